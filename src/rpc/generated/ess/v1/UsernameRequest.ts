// Original file: proto/ess/v1/admin.proto


export interface UsernameRequest {
  'username'?: (string);
}

export interface UsernameRequest__Output {
  'username': (string);
}

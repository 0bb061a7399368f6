// Original file: proto/ess/v1/auth.proto


export interface LoginRequest {
  'username'?: (string);
  'password'?: (string);
}

export interface LoginRequest__Output {
  'username': (string);
  'password': (string);
}

// Original file: proto/ess/v1/admin.proto


export interface CreateUserRequest {
  'username'?: (string);
  'password'?: (string);
  'tenant_id'?: (string);
  'role'?: (string);
}

export interface CreateUserRequest__Output {
  'username': (string);
  'password': (string);
  'tenant_id': (string);
  'role': (string);
}

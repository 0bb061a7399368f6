// Original file: proto/ess/v1/types.proto


export interface User {
  'username'?: (string);
  'tenant_id'?: (string);
  'role'?: (string);
  'created_at'?: (string);
}

export interface User__Output {
  'username': (string);
  'tenant_id': (string);
  'role': (string);
  'created_at': (string);
}

// Original file: proto/ess/v1/auth.proto

import type { Long } from '@grpc/proto-loader';

export interface LoginResult {
  'access_token'?: (string);
  'token_type'?: (string);
  'expires_in'?: (number | string | Long);
  'tenant_id'?: (string);
  'role'?: (string);
}

export interface LoginResult__Output {
  'access_token': (string);
  'token_type': (string);
  'expires_in': (number);
  'tenant_id': (string);
  'role': (string);
}

// Original file: proto/ess/v1/auth.proto

import type { Long } from '@grpc/proto-loader';

export interface WhoAmIResult {
  'username'?: (string);
  'tenant_id'?: (string);
  'role'?: (string);
  'expires_at_ms'?: (number | string | Long);
}

export interface WhoAmIResult__Output {
  'username': (string);
  'tenant_id': (string);
  'role': (string);
  'expires_at_ms': (number);
}

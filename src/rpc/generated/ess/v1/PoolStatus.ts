// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface PoolStatus {
  'total'?: (number | string | Long);
  'idle'?: (number | string | Long);
  'waiting'?: (number | string | Long);
}

export interface PoolStatus__Output {
  'total': (number);
  'idle': (number);
  'waiting': (number);
}

// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface TableStatus {
  'name'?: (string);
  'total_bytes'?: (number | string | Long);
  'index_bytes'?: (number | string | Long);
  'rows_estimate'?: (number | string | Long);
}

export interface TableStatus__Output {
  'name': (string);
  'total_bytes': (number);
  'index_bytes': (number);
  'rows_estimate': (number);
}

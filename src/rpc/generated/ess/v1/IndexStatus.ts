// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface IndexStatus {
  'entries'?: (number | string | Long);
  'memory_bytes'?: (number | string | Long);
  'bytes_per_event'?: (number | string);
  'checkpoint_position'?: (number | string | Long);
  'id_check_false_hits'?: (number | string | Long);
}

export interface IndexStatus__Output {
  'entries': (number);
  'memory_bytes': (number);
  'bytes_per_event': (number);
  'checkpoint_position': (number);
  'id_check_false_hits': (number);
}

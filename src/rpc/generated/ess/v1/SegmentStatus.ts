// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface SegmentStatus {
  'name'?: (string);
  'base_position'?: (number | string | Long);
  'records'?: (number | string | Long);
  'bytes'?: (number | string | Long);
  'sealed'?: (boolean);
}

export interface SegmentStatus__Output {
  'name': (string);
  'base_position': (number);
  'records': (number);
  'bytes': (number);
  'sealed': (boolean);
}

// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface JobProgress {
  'done'?: (number | string | Long);
  'total'?: (number | string | Long);
  'unit'?: (string);
}

export interface JobProgress__Output {
  'done': (number);
  'total': (number);
  'unit': (string);
}

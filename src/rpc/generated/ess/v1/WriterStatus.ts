// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface WriterStatus {
  'batches'?: (number | string | Long);
  'fsyncs'?: (number | string | Long);
  'avg_batch_events'?: (number | string);
  'queue_depth'?: (number | string | Long);
}

export interface WriterStatus__Output {
  'batches': (number);
  'fsyncs': (number);
  'avg_batch_events': (number);
  'queue_depth': (number);
}

// Original file: proto/ess/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface AppendResult {
  'stream_id'?: (string);
  'first_revision'?: (number | string | Long);
  'last_revision'?: (number | string | Long);
  'position'?: (number | string | Long);
  'count'?: (number | string | Long);
}

export interface AppendResult__Output {
  'stream_id': (string);
  'first_revision': (number);
  'last_revision': (number);
  'position': (number);
  'count': (number);
}

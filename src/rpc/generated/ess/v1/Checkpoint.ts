// Original file: proto/ess/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface Checkpoint {
  'position'?: (number | string | Long);
}

export interface Checkpoint__Output {
  'position': (number);
}

// Original file: proto/ess/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadAllRequest {
  'tenant'?: (string);
  'from_position'?: (number | string | Long);
  'limit'?: (number);
  '_tenant'?: "tenant";
  '_from_position'?: "from_position";
  '_limit'?: "limit";
}

export interface ReadAllRequest__Output {
  'tenant'?: (string);
  'from_position'?: (number);
  'limit'?: (number);
  '_tenant'?: "tenant";
  '_from_position'?: "from_position";
  '_limit'?: "limit";
}

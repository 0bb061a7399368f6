// Original file: proto/ess/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadRequest {
  'stream_id'?: (string);
  'tenant'?: (string);
  'from'?: (number | string | Long);
  'limit'?: (number);
  'direction'?: (string);
  '_tenant'?: "tenant";
  '_from'?: "from";
  '_limit'?: "limit";
  '_direction'?: "direction";
}

export interface ReadRequest__Output {
  'stream_id': (string);
  'tenant'?: (string);
  'from'?: (number);
  'limit'?: (number);
  'direction'?: (string);
  '_tenant'?: "tenant";
  '_from'?: "from";
  '_limit'?: "limit";
  '_direction'?: "direction";
}

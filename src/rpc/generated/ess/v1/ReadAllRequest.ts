// Original file: proto/ess/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadAllRequest {
  'tenant'?: (string);
  'from_position'?: (number | string | Long);
  'limit'?: (number);
  'direction'?: (string);
  'stream_prefix'?: (string)[];
  'event_type_prefix'?: (string)[];
  'stream_regex'?: (string);
  'event_type_regex'?: (string);
  '_tenant'?: "tenant";
  '_from_position'?: "from_position";
  '_limit'?: "limit";
  '_direction'?: "direction";
  '_stream_regex'?: "stream_regex";
  '_event_type_regex'?: "event_type_regex";
}

export interface ReadAllRequest__Output {
  'tenant'?: (string);
  'from_position'?: (number);
  'limit'?: (number);
  'direction'?: (string);
  'stream_prefix': (string)[];
  'event_type_prefix': (string)[];
  'stream_regex'?: (string);
  'event_type_regex'?: (string);
  '_tenant'?: "tenant";
  '_from_position'?: "from_position";
  '_limit'?: "limit";
  '_direction'?: "direction";
  '_stream_regex'?: "stream_regex";
  '_event_type_regex'?: "event_type_regex";
}

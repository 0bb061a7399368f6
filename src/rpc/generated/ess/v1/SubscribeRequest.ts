// Original file: proto/ess/v1/streams.proto


export interface SubscribeRequest {
  'stream_id'?: (string);
  'tenant'?: (string);
  'from'?: (string);
  'stream_prefix'?: (string)[];
  'event_type_prefix'?: (string)[];
  'stream_regex'?: (string);
  'event_type_regex'?: (string);
  '_tenant'?: "tenant";
  '_from'?: "from";
  '_stream_regex'?: "stream_regex";
  '_event_type_regex'?: "event_type_regex";
}

export interface SubscribeRequest__Output {
  'stream_id': (string);
  'tenant'?: (string);
  'from'?: (string);
  'stream_prefix': (string)[];
  'event_type_prefix': (string)[];
  'stream_regex'?: (string);
  'event_type_regex'?: (string);
  '_tenant'?: "tenant";
  '_from'?: "from";
  '_stream_regex'?: "stream_regex";
  '_event_type_regex'?: "event_type_regex";
}

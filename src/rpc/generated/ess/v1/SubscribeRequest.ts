// Original file: proto/ess/v1/streams.proto


export interface SubscribeRequest {
  'stream_id'?: (string);
  'tenant'?: (string);
  'from'?: (string);
  '_tenant'?: "tenant";
  '_from'?: "from";
}

export interface SubscribeRequest__Output {
  'stream_id': (string);
  'tenant'?: (string);
  'from'?: (string);
  '_tenant'?: "tenant";
  '_from'?: "from";
}

// Original file: proto/ess/v1/streams.proto


export interface StreamRequest {
  'stream_id'?: (string);
  'tenant'?: (string);
  '_tenant'?: "tenant";
}

export interface StreamRequest__Output {
  'stream_id': (string);
  'tenant'?: (string);
  '_tenant'?: "tenant";
}

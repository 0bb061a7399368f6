// Original file: proto/ess/v1/streams.proto


export interface ListStreamsRequest {
  'tenant'?: (string);
  'prefix'?: (string);
  'limit'?: (number);
  'cursor'?: (string);
  '_tenant'?: "tenant";
  '_prefix'?: "prefix";
  '_limit'?: "limit";
  '_cursor'?: "cursor";
}

export interface ListStreamsRequest__Output {
  'tenant'?: (string);
  'prefix'?: (string);
  'limit'?: (number);
  'cursor'?: (string);
  '_tenant'?: "tenant";
  '_prefix'?: "prefix";
  '_limit'?: "limit";
  '_cursor'?: "cursor";
}

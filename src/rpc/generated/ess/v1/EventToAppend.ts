// Original file: proto/ess/v1/streams.proto


export interface EventToAppend {
  'event_type'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'metadata'?: (Buffer | Uint8Array | string);
  'event_id'?: (string);
  'content_type'?: (string);
  'metadata_bytes'?: (Buffer | Uint8Array | string);
  '_metadata'?: "metadata";
  '_event_id'?: "event_id";
  '_content_type'?: "content_type";
  '_metadata_bytes'?: "metadata_bytes";
}

export interface EventToAppend__Output {
  'event_type': (string);
  'data': (Buffer);
  'metadata'?: (Buffer);
  'event_id'?: (string);
  'content_type'?: (string);
  'metadata_bytes'?: (Buffer);
  '_metadata'?: "metadata";
  '_event_id'?: "event_id";
  '_content_type'?: "content_type";
  '_metadata_bytes'?: "metadata_bytes";
}

// Original file: proto/ess/v1/streams.proto


export interface EventToAppend {
  'event_type'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'metadata'?: (Buffer | Uint8Array | string);
  'event_id'?: (string);
  '_metadata'?: "metadata";
  '_event_id'?: "event_id";
}

export interface EventToAppend__Output {
  'event_type': (string);
  'data': (Buffer);
  'metadata'?: (Buffer);
  'event_id'?: (string);
  '_metadata'?: "metadata";
  '_event_id'?: "event_id";
}

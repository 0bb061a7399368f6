// Original file: proto/ess/v1/streams.proto


export interface AppendError {
  'code'?: (string);
  'message'?: (string);
  'details'?: (Buffer | Uint8Array | string);
}

export interface AppendError__Output {
  'code': (string);
  'message': (string);
  'details': (Buffer);
}

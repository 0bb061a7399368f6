// Original file: proto/ess/v1/streams.proto


export interface SessionError {
  'code'?: (string);
  'message'?: (string);
  'details'?: (Buffer | Uint8Array | string);
}

export interface SessionError__Output {
  'code': (string);
  'message': (string);
  'details': (Buffer);
}

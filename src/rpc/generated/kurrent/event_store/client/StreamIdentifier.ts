// Original file: proto/kurrent/shared.proto


export interface StreamIdentifier {
  'stream_name'?: (Buffer | Uint8Array | string);
}

export interface StreamIdentifier__Output {
  'stream_name': (Buffer);
}

// Original file: proto/kurrent/shared.proto


export interface BadRequest {
  'message'?: (string);
}

export interface BadRequest__Output {
  'message': (string);
}

// Original file: proto/kurrent/shared.proto


export interface MaximumAppendSizeExceeded {
  'maxAppendSize'?: (number);
}

export interface MaximumAppendSizeExceeded__Output {
  'maxAppendSize': (number);
}

// Original file: proto/ess/v1/health.proto


export interface StorageHealth {
  'engine'?: (string);
  'writable'?: (boolean);
}

export interface StorageHealth__Output {
  'engine': (string);
  'writable': (boolean);
}

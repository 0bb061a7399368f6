// Original file: proto/kurrent/serverfeatures.proto


export interface SupportedMethod {
  'method_name'?: (string);
  'service_name'?: (string);
  'features'?: (string)[];
}

export interface SupportedMethod__Output {
  'method_name': (string);
  'service_name': (string);
  'features': (string)[];
}

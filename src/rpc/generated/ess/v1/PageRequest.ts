// Original file: proto/ess/v1/admin.proto


export interface PageRequest {
  'limit'?: (number);
  'cursor'?: (string);
  '_limit'?: "limit";
  '_cursor'?: "cursor";
}

export interface PageRequest__Output {
  'limit'?: (number);
  'cursor'?: (string);
  '_limit'?: "limit";
  '_cursor'?: "cursor";
}

// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface VerifyError {
  'segment'?: (string);
  'offset'?: (number | string | Long);
  'kind'?: (string);
  'message'?: (string);
}

export interface VerifyError__Output {
  'segment': (string);
  'offset': (number);
  'kind': (string);
  'message': (string);
}

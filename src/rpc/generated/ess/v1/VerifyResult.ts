// Original file: proto/ess/v1/admin.proto

import type { VerifyError as _ess_v1_VerifyError, VerifyError__Output as _ess_v1_VerifyError__Output } from '../../ess/v1/VerifyError.js';
import type { Long } from '@grpc/proto-loader';

export interface VerifyResult {
  'ok'?: (boolean);
  'segments_checked'?: (number | string | Long);
  'records_checked'?: (number | string | Long);
  'bytes_checked'?: (number | string | Long);
  'errors'?: (_ess_v1_VerifyError)[];
  'duration_ms'?: (number | string);
}

export interface VerifyResult__Output {
  'ok': (boolean);
  'segments_checked': (number);
  'records_checked': (number);
  'bytes_checked': (number);
  'errors': (_ess_v1_VerifyError__Output)[];
  'duration_ms': (number);
}

// Original file: proto/ess/v1/streams.proto

import type { ReadResult as _ess_v1_ReadResult, ReadResult__Output as _ess_v1_ReadResult__Output } from '../../ess/v1/ReadResult.js';
import type { SessionError as _ess_v1_SessionError, SessionError__Output as _ess_v1_SessionError__Output } from '../../ess/v1/SessionError.js';
import type { Long } from '@grpc/proto-loader';

export interface ReadSessionResponse {
  'correlation_id'?: (number | string | Long);
  'result'?: (_ess_v1_ReadResult | null);
  'error'?: (_ess_v1_SessionError | null);
  'outcome'?: "result"|"error";
}

export interface ReadSessionResponse__Output {
  'correlation_id': (number);
  'result'?: (_ess_v1_ReadResult__Output | null);
  'error'?: (_ess_v1_SessionError__Output | null);
  'outcome'?: "result"|"error";
}

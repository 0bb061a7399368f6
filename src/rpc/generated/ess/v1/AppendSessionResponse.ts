// Original file: proto/ess/v1/streams.proto

import type { AppendResult as _ess_v1_AppendResult, AppendResult__Output as _ess_v1_AppendResult__Output } from '../../ess/v1/AppendResult.js';
import type { SessionError as _ess_v1_SessionError, SessionError__Output as _ess_v1_SessionError__Output } from '../../ess/v1/SessionError.js';
import type { AppendSessionOutcome as _ess_v1_AppendSessionOutcome, AppendSessionOutcome__Output as _ess_v1_AppendSessionOutcome__Output } from '../../ess/v1/AppendSessionOutcome.js';
import type { Long } from '@grpc/proto-loader';

export interface AppendSessionResponse {
  'correlation_id'?: (number | string | Long);
  'result'?: (_ess_v1_AppendResult | null);
  'error'?: (_ess_v1_SessionError | null);
  'outcomes'?: (_ess_v1_AppendSessionOutcome)[];
  'outcome'?: "result"|"error";
}

export interface AppendSessionResponse__Output {
  'correlation_id': (number);
  'result'?: (_ess_v1_AppendResult__Output | null);
  'error'?: (_ess_v1_SessionError__Output | null);
  'outcomes': (_ess_v1_AppendSessionOutcome__Output)[];
  'outcome'?: "result"|"error";
}

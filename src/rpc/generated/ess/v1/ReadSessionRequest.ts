// Original file: proto/ess/v1/streams.proto

import type { ReadRequest as _ess_v1_ReadRequest, ReadRequest__Output as _ess_v1_ReadRequest__Output } from '../../ess/v1/ReadRequest.js';
import type { Long } from '@grpc/proto-loader';

export interface ReadSessionRequest {
  'correlation_id'?: (number | string | Long);
  'read'?: (_ess_v1_ReadRequest | null);
}

export interface ReadSessionRequest__Output {
  'correlation_id': (number);
  'read': (_ess_v1_ReadRequest__Output | null);
}

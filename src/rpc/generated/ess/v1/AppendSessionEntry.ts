// Original file: proto/ess/v1/streams.proto

import type { AppendRequest as _ess_v1_AppendRequest, AppendRequest__Output as _ess_v1_AppendRequest__Output } from '../../ess/v1/AppendRequest.js';
import type { Long } from '@grpc/proto-loader';

export interface AppendSessionEntry {
  'correlation_id'?: (number | string | Long);
  'append'?: (_ess_v1_AppendRequest | null);
}

export interface AppendSessionEntry__Output {
  'correlation_id': (number);
  'append': (_ess_v1_AppendRequest__Output | null);
}

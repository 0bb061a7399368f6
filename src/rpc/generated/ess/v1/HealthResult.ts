// Original file: proto/ess/v1/health.proto

import type { StorageHealth as _ess_v1_StorageHealth, StorageHealth__Output as _ess_v1_StorageHealth__Output } from '../../ess/v1/StorageHealth.js';
import type { Long } from '@grpc/proto-loader';

export interface HealthResult {
  'status'?: (string);
  'version'?: (string);
  'uptime_seconds'?: (number | string | Long);
  'storage'?: (_ess_v1_StorageHealth | null);
}

export interface HealthResult__Output {
  'status': (string);
  'version': (string);
  'uptime_seconds': (number);
  'storage': (_ess_v1_StorageHealth__Output | null);
}

// Original file: proto/ess/v1/types.proto

import type { Retention as _ess_v1_Retention, Retention__Output as _ess_v1_Retention__Output } from '../../ess/v1/Retention.js';
import type { Long } from '@grpc/proto-loader';

export interface StreamInfo {
  'stream_id'?: (string);
  'tenant_id'?: (string);
  'event_count'?: (number | string | Long);
  'first_revision'?: (number | string | Long);
  'last_revision'?: (number | string | Long);
  'bytes'?: (number | string | Long);
  'created_at'?: (string);
  'updated_at'?: (string);
  'deleted'?: (boolean);
  'retention'?: (_ess_v1_Retention | null);
  'tombstoned'?: (boolean);
  '_first_revision'?: "first_revision";
  '_last_revision'?: "last_revision";
}

export interface StreamInfo__Output {
  'stream_id': (string);
  'tenant_id': (string);
  'event_count': (number);
  'first_revision'?: (number);
  'last_revision'?: (number);
  'bytes': (number);
  'created_at': (string);
  'updated_at': (string);
  'deleted': (boolean);
  'retention': (_ess_v1_Retention__Output | null);
  'tombstoned': (boolean);
  '_first_revision'?: "first_revision";
  '_last_revision'?: "last_revision";
}

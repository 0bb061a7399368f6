// Original file: proto/ess/v1/types.proto

import type { Long } from '@grpc/proto-loader';

export interface StreamSummary {
  'stream_id'?: (string);
  'tenant_id'?: (string);
  'event_count'?: (number | string | Long);
  'last_revision'?: (number | string | Long);
  'bytes'?: (number | string | Long);
  'updated_at'?: (string);
  'deleted'?: (boolean);
  '_last_revision'?: "last_revision";
}

export interface StreamSummary__Output {
  'stream_id': (string);
  'tenant_id': (string);
  'event_count': (number);
  'last_revision'?: (number);
  'bytes': (number);
  'updated_at': (string);
  'deleted': (boolean);
  '_last_revision'?: "last_revision";
}

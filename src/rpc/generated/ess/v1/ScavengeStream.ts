// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface ScavengeStream {
  'stream_id'?: (string);
  'tenant_id'?: (string);
  'events_removed'?: (number | string | Long);
  'bytes_reclaimed'?: (number | string | Long);
}

export interface ScavengeStream__Output {
  'stream_id': (string);
  'tenant_id': (string);
  'events_removed': (number);
  'bytes_reclaimed': (number);
}

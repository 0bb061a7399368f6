// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface ScavengeResult {
  'dry_run'?: (boolean);
  'events_removed'?: (number | string | Long);
  'bytes_reclaimed'?: (number | string | Long);
  'segments_rewritten'?: (number | string | Long);
  'streams_affected'?: (number | string | Long);
  'duration_ms'?: (number | string);
}

export interface ScavengeResult__Output {
  'dry_run': (boolean);
  'events_removed': (number);
  'bytes_reclaimed': (number);
  'segments_rewritten': (number);
  'streams_affected': (number);
  'duration_ms': (number);
}

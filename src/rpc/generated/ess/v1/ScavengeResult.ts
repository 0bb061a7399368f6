// Original file: proto/ess/v1/admin.proto

import type { ScavengeStream as _ess_v1_ScavengeStream, ScavengeStream__Output as _ess_v1_ScavengeStream__Output } from '../../ess/v1/ScavengeStream.js';
import type { Long } from '@grpc/proto-loader';

export interface ScavengeResult {
  'dry_run'?: (boolean);
  'events_removed'?: (number | string | Long);
  'bytes_reclaimed'?: (number | string | Long);
  'segments_rewritten'?: (number | string | Long);
  'streams_affected'?: (number | string | Long);
  'duration_ms'?: (number | string);
  'streams'?: (_ess_v1_ScavengeStream)[];
}

export interface ScavengeResult__Output {
  'dry_run': (boolean);
  'events_removed': (number);
  'bytes_reclaimed': (number);
  'segments_rewritten': (number);
  'streams_affected': (number);
  'duration_ms': (number);
  'streams': (_ess_v1_ScavengeStream__Output)[];
}

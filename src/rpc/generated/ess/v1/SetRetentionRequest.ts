// Original file: proto/ess/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface SetRetentionRequest {
  'stream_id'?: (string);
  'tenant'?: (string);
  'max_age_seconds'?: (number | string | Long);
  'max_count'?: (number | string | Long);
  'truncate_before'?: (number | string | Long);
  '_tenant'?: "tenant";
  '_max_age_seconds'?: "max_age_seconds";
  '_max_count'?: "max_count";
  '_truncate_before'?: "truncate_before";
}

export interface SetRetentionRequest__Output {
  'stream_id': (string);
  'tenant'?: (string);
  'max_age_seconds'?: (number);
  'max_count'?: (number);
  'truncate_before'?: (number);
  '_tenant'?: "tenant";
  '_max_age_seconds'?: "max_age_seconds";
  '_max_count'?: "max_count";
  '_truncate_before'?: "truncate_before";
}

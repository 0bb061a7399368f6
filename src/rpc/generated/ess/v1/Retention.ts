// Original file: proto/ess/v1/types.proto

import type { Long } from '@grpc/proto-loader';

export interface Retention {
  'max_age_seconds'?: (number | string | Long);
  'max_count'?: (number | string | Long);
  'truncate_before'?: (number | string | Long);
  '_max_age_seconds'?: "max_age_seconds";
  '_max_count'?: "max_count";
  '_truncate_before'?: "truncate_before";
}

export interface Retention__Output {
  'max_age_seconds'?: (number);
  'max_count'?: (number);
  'truncate_before'?: (number);
  '_max_age_seconds'?: "max_age_seconds";
  '_max_count'?: "max_count";
  '_truncate_before'?: "truncate_before";
}

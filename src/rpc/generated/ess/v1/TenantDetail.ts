// Original file: proto/ess/v1/admin.proto

import type { StreamSummary as _ess_v1_StreamSummary, StreamSummary__Output as _ess_v1_StreamSummary__Output } from '../../ess/v1/StreamSummary.js';
import type { Long } from '@grpc/proto-loader';

export interface TenantDetail {
  'tenant_id'?: (string);
  'streams'?: (number | string | Long);
  'events'?: (number | string | Long);
  'bytes'?: (number | string | Long);
  'appends_total'?: (number | string | Long);
  'reads_total'?: (number | string | Long);
  'last_append_at'?: (string);
  'largest_streams'?: (_ess_v1_StreamSummary)[];
  '_last_append_at'?: "last_append_at";
}

export interface TenantDetail__Output {
  'tenant_id': (string);
  'streams': (number);
  'events': (number);
  'bytes': (number);
  'appends_total': (number);
  'reads_total': (number);
  'last_append_at'?: (string);
  'largest_streams': (_ess_v1_StreamSummary__Output)[];
  '_last_append_at'?: "last_append_at";
}

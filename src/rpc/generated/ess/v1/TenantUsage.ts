// Original file: proto/ess/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface TenantUsage {
  'tenant_id'?: (string);
  'streams'?: (number | string | Long);
  'events'?: (number | string | Long);
  'bytes'?: (number | string | Long);
  'appends_total'?: (number | string | Long);
  'reads_total'?: (number | string | Long);
  'last_append_at'?: (string);
  '_last_append_at'?: "last_append_at";
}

export interface TenantUsage__Output {
  'tenant_id': (string);
  'streams': (number);
  'events': (number);
  'bytes': (number);
  'appends_total': (number);
  'reads_total': (number);
  'last_append_at'?: (string);
  '_last_append_at'?: "last_append_at";
}

// Original file: proto/ess/v1/admin.proto

import type { TenantUsage as _ess_v1_TenantUsage, TenantUsage__Output as _ess_v1_TenantUsage__Output } from '../../ess/v1/TenantUsage.js';

export interface TenantList {
  'tenants'?: (_ess_v1_TenantUsage)[];
  'next_cursor'?: (string);
  '_next_cursor'?: "next_cursor";
}

export interface TenantList__Output {
  'tenants': (_ess_v1_TenantUsage__Output)[];
  'next_cursor'?: (string);
  '_next_cursor'?: "next_cursor";
}

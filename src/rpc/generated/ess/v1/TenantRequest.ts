// Original file: proto/ess/v1/admin.proto


export interface TenantRequest {
  'tenant_id'?: (string);
}

export interface TenantRequest__Output {
  'tenant_id': (string);
}

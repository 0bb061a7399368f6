// Original file: proto/grpc/health/v1/health.proto


export interface HealthListRequest {
}

export interface HealthListRequest__Output {
}

// Original file: proto/ess/v1/health.proto


export interface CheckRequest {
}

export interface CheckRequest__Output {
}

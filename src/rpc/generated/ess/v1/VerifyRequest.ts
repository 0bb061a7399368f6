// Original file: proto/ess/v1/admin.proto


export interface VerifyRequest {
}

export interface VerifyRequest__Output {
}

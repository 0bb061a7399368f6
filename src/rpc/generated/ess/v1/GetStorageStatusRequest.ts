// Original file: proto/ess/v1/admin.proto


export interface GetStorageStatusRequest {
}

export interface GetStorageStatusRequest__Output {
}

// Original file: proto/kurrent/shared.proto


export interface AccessDenied {
}

export interface AccessDenied__Output {
}

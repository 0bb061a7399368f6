// Original file: proto/kurrent/shared.proto


export interface InvalidTransaction {
}

export interface InvalidTransaction__Output {
}

// Original file: proto/kurrent/shared.proto


export interface Timeout {
}

export interface Timeout__Output {
}

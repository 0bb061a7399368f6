// Original file: proto/kurrent/shared.proto


export interface Empty {
}

export interface Empty__Output {
}

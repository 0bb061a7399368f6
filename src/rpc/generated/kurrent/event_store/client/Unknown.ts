// Original file: proto/kurrent/shared.proto


export interface Unknown {
}

export interface Unknown__Output {
}

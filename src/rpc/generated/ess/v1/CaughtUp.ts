// Original file: proto/ess/v1/streams.proto


export interface CaughtUp {
}

export interface CaughtUp__Output {
}

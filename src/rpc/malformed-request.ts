/**
 * Requests that are not valid protobuf: every decoder the server uses throws only an
 * INVALID_ARGUMENT EssError on bad bytes, answered with its message and trailers on every
 * carrier: the hand-written decoders (./codec/, ./session-codec.ts) by themselves,
 * proto-loader's (protobufjs) through checkedGenericDecoder.
 *
 * A unary or server-streaming call's message is decoded by the carrier after authentication
 * (./methods/admission.ts). A session's requests, on grpc-js, are decoded by grpc-js, which
 * answers any throw of a deserializer with INTERNAL ("Error deserializing request"); there the
 * deserializer gives a MalformedRequest carrying the error instead (orMalformed), and the
 * session ends with it (./pipelined-session.ts). A throw that is not bad input (a bug) still
 * reaches grpc-js: INTERNAL.
 */
import { EssError, invalidArgument } from "../errors.js";
import { checkWireFormat } from "./codec/wire.js";

export class MalformedRequest {
  constructor(readonly error: EssError) {}
}

/**
 * proto-loader's decoder throwing only as the hand-written ones do. protobufjs bounds nesting but
 * takes an end-group of another field as the end of a group: checkWireFormat refuses that first
 * (in the message's own fields; what an embedded message holds is left to protobufjs).
 */
export function checkedGenericDecoder<T>(decode: (bytes: Buffer) => T): (bytes: Buffer) => T {
  return (bytes) => {
    checkWireFormat(bytes);
    try {
      return decode(bytes);
    } catch (error) {
      // protobufjs's reader on bad bytes: "index out of range", "invalid wire type", "maximum nesting depth".
      const what = error instanceof Error ? error.message : String(error);
      throw invalidArgument(`malformed protobuf message: ${what}`);
    }
  };
}

/** `decode`, giving a MalformedRequest for bad input instead of throwing. */
export function orMalformed<T>(decode: (bytes: Buffer) => T): (bytes: Buffer) => T | MalformedRequest {
  return (bytes) => {
    try {
      return decode(bytes);
    } catch (error) {
      if (error instanceof EssError && error.code === "INVALID_ARGUMENT") return new MalformedRequest(error);
      throw error;
    }
  };
}

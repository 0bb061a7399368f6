/**
 * Requests that are not valid protobuf, on the grpc-js path: answered INVALID_ARGUMENT with the
 * error's message and trailers, as on the fast path, not grpc-js's INTERNAL.
 *
 * grpc-js answers any throw of a request deserializer with INTERNAL ("Error deserializing
 * request"), and its server interceptors would cost the session answers their direct send
 * (./pipelined-session.ts). So the deserializers do not throw on bad input: they give a
 * MalformedRequest carrying the INVALID_ARGUMENT error, and the handler answers with it (a unary
 * or server-streaming call here, a session's request in PipelinedSession). A throw that is not
 * bad input (a bug) still reaches grpc-js: INTERNAL.
 *
 * Every decoder the server uses throws only that error on bad bytes: the hand-written ones
 * (./codec.ts, ./session-codec.ts) by themselves, proto-loader's (protobufjs) through
 * checkedGenericDecoder.
 */
import type * as grpc from "@grpc/grpc-js";
import { EssError, invalidArgument } from "../errors.js";
import { checkWireFormat } from "./codec.js";
import { toServiceError } from "./error-mapping.js";

export class MalformedRequest {
  constructor(readonly error: EssError) {}
}

/** The error of a request that did not decode; null for a decoded one. */
export function malformedError(request: unknown): EssError | null {
  return request instanceof MalformedRequest ? request.error : null;
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

/**
 * `service` with every request deserializer giving MalformedRequest for bad input: those named in
 * `handWritten` as they are, the others (proto-loader's) through checkedGenericDecoder.
 */
export function withMalformedRequests(
  service: grpc.ServiceDefinition,
  handWritten: readonly string[] = [],
): grpc.ServiceDefinition {
  return Object.fromEntries(
    Object.entries(service).map(([name, method]) => {
      const decode = handWritten.includes(name)
        ? method.requestDeserialize
        : checkedGenericDecoder(method.requestDeserialize);
      return [name, { ...method, requestDeserialize: orMalformed(decode) }];
    }),
  );
}

/**
 * `handlers` answering a MalformedRequest with its error before the handler sees it, for the
 * unary and server-streaming methods of `service`. A client-streaming or bidirectional method
 * (the sessions) gets its requests as they come and checks each one itself.
 */
export function refusingMalformed(
  service: grpc.ServiceDefinition,
  handlers: grpc.UntypedServiceImplementation,
): grpc.UntypedServiceImplementation {
  const checked: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers)) {
    const method = service[name];
    if (method === undefined || method.requestStream) {
      checked[name] = handler;
    } else if (method.responseStream) {
      const serve = handler as grpc.handleServerStreamingCall<unknown, unknown>;
      checked[name] = (call: grpc.ServerWritableStream<unknown, unknown>) => {
        const error = malformedError(call.request);
        if (error === null) serve(call);
        else call.emit("error", toServiceError(error));
      };
    } else {
      const serve = handler as grpc.handleUnaryCall<unknown, unknown>;
      checked[name] = (
        call: grpc.ServerUnaryCall<unknown, unknown>,
        callback: grpc.sendUnaryData<unknown>,
      ) => {
        const error = malformedError(call.request);
        if (error === null) serve(call, callback);
        else callback(toServiceError(error));
      };
    }
  }
  return checked;
}

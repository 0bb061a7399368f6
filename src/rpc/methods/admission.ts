/**
 * The steps every carrier takes between a call's arrival and its method's handler, so that no
 * carrier can take them otherwise: the context from the `authorization` header, the token
 * verified (for an "authenticated" method) before the request message is decoded, then the
 * message decoded, a refusal of its bytes answered with its INVALID_ARGUMENT.
 */
import { status as grpcStatus } from "@grpc/grpc-js";
import { EssError, isEssError, toEssError } from "../../errors.js";
import type { Caller, CallContext, Operations } from "../../operations/contract.js";
import { contextWith, operationOfRpcName } from "../../operations/contract.js";
import type { Access, Failure, GrpcFailure } from "./method.js";

/** What grpc-js answers when a request deserializer throws; here, a decoder's bug. */
export const undecodableRequest: GrpcFailure = {
  code: grpcStatus.INTERNAL,
  details: "Error deserializing request",
};

/**
 * The host part of a peer (`127.0.0.1:5000`, `[::1]:5000`, or grpc-js's unbracketed `::1:5000`);
 * null when it is not an address and port.
 */
export function peerAddress(peer: string): string | null {
  const bracketed = /^\[(.+)\]:\d+$/.exec(peer);
  if (bracketed !== null) return bracketed[1] ?? null;
  const match = /^(.+):\d+$/.exec(peer);
  return match?.[1] ?? null;
}

/**
 * The context a method's handler gets before authentication: `ctx` (the header's token), and for
 * a public method the client's address, which the login throttle counts.
 */
export function callContext(access: Access, ctx: CallContext, peer: () => string): CallContext {
  if (access === "authenticated") return ctx;
  return contextWith(ctx, { client_address: peerAddress(peer()) });
}

/** How the carriers admit a call: the token check, and whom to tell of a call refused here. */
export interface Admission {
  authenticate(ctx: CallContext): Promise<Caller>;
  /** A call refused before its operation ran (a bad token, undecodable bytes): for the metrics. */
  refused(path: string, ctx: CallContext, failure: Failure): void;
}

/** The Admission of a server over `ops` (Operations.refused counts the refusals). */
export function operationsAdmission(ops: Operations): Admission {
  return {
    // The check before the call is no request of its own (CallContext.admission).
    authenticate: (ctx) => ops.authenticate(contextWith(ctx, { admission: true })),
    refused(path, ctx, failure) {
      if (ops.refused === undefined || !(failure instanceof EssError)) return;
      // "/ess.v1.Streams/Append" is the operation of "Streams.Append"; other services have none.
      const operation = operationOfRpcName.get(path.slice(path.indexOf(".v1.") + 4).replace("/", "."));
      if (path.startsWith("/ess.v1.") && operation !== undefined) ops.refused(ctx, operation, failure.code);
    },
  };
}

/**
 * Verifies the token of an authenticated method's call (a public one goes on as it is), then
 * decodes `message` and hands the request to `serve`, or the failure to `fail`.
 */
export function admitCall<Request>(
  method: { readonly access: Access; readonly path: string; decode(message: Buffer): Request },
  ctx: CallContext,
  message: Buffer,
  admission: Admission,
  serve: (ctx: CallContext, request: Request) => void,
  fail: (failure: Failure) => void,
): void {
  if (method.access === "public") {
    decodeThenServe(method, ctx, message, admission, serve, fail);
    return;
  }
  admission.authenticate(ctx).then(
    (caller) => decodeThenServe(method, contextWith(ctx, { caller }), message, admission, serve, fail),
    (error: unknown) => {
      const failure = toEssError(error);
      admission.refused(method.path, ctx, failure);
      fail(failure);
    },
  );
}

function decodeThenServe<Request>(
  method: { readonly path: string; decode(message: Buffer): Request },
  ctx: CallContext,
  message: Buffer,
  admission: Admission,
  serve: (ctx: CallContext, request: Request) => void,
  fail: (failure: Failure) => void,
): void {
  let request: Request;
  try {
    request = method.decode(message);
  } catch (error) {
    // Bad bytes (not protobuf, text not UTF-8) are refused with the decoder's INVALID_ARGUMENT;
    // anything else is a bug, answered as grpc-js answers a deserializer that throws.
    const failure = isEssError(error) ? error : undecodableRequest;
    admission.refused(method.path, ctx, failure);
    fail(failure);
    return;
  }
  serve(ctx, request);
}

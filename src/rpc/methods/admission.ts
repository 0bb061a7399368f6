/**
 * The steps every carrier takes between a call's arrival and its method's handler, so that no
 * carrier can take them otherwise: the context from the `authorization` header, the token
 * verified (for an "authenticated" method) before the request message is decoded, then the
 * message decoded, a refusal of its bytes answered with its INVALID_ARGUMENT.
 */
import { status as grpcStatus } from "@grpc/grpc-js";
import { isEssError, toEssError } from "../../errors.js";
import type { Caller, CallContext } from "../../operations/contract.js";
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
  return { ...ctx, client_address: peerAddress(peer()) };
}

/**
 * Verifies the token of an authenticated method's call (a public one goes on as it is), then
 * decodes `message` and hands the request to `serve`, or the failure to `fail`.
 */
export function admitCall<Request>(
  method: { readonly access: Access; decode(message: Buffer): Request },
  ctx: CallContext,
  message: Buffer,
  authenticate: (ctx: CallContext) => Promise<Caller>,
  serve: (ctx: CallContext, request: Request) => void,
  fail: (failure: Failure) => void,
): void {
  if (method.access === "public") {
    decodeThenServe(method, ctx, message, serve, fail);
    return;
  }
  authenticate(ctx).then(
    (caller) => decodeThenServe(method, { ...ctx, caller }, message, serve, fail),
    (error: unknown) => fail(toEssError(error)),
  );
}

function decodeThenServe<Request>(
  method: { decode(message: Buffer): Request },
  ctx: CallContext,
  message: Buffer,
  serve: (ctx: CallContext, request: Request) => void,
  fail: (failure: Failure) => void,
): void {
  let request: Request;
  try {
    request = method.decode(message);
  } catch (error) {
    // Bad bytes (not protobuf, text not UTF-8) are refused with the decoder's INVALID_ARGUMENT;
    // anything else is a bug, answered as grpc-js answers a deserializer that throws.
    fail(isEssError(error) ? error : undecodableRequest);
    return;
  }
  serve(ctx, request);
}

/**
 * The fast carrier: the methods where grpc-js's per-call layers were measured to cost most of a
 * call's server CPU, served straight on their node:http2 streams (docs/rpc.md, "Carriers"): the
 * unary Append, Read and ReadAll (./unary-call.ts) and the AppendSession and ReadSession streams
 * (./session-call.ts).
 *
 * It takes a stream only for a method it serves, with a gRPC content type and no message
 * compression (`grpc-encoding` absent or `identity`); every other stream goes to grpc-js.
 */
import * as http2 from "node:http2";
import { timerMsMax } from "../../expiry-timer.js";
import { limits } from "../../limits.js";
import { parseGrpcTimeout } from "../grpc-timeout.js";
import type { RpcMethod } from "../methods/method.js";
import { appendPath, readAllPath, readPath } from "../methods/streams.js";
import type { FastStreamHandler } from "./grpc-answers.js";
import { sessionMethodHandler, unaryMethodHandler, type MethodHandlerDeps } from "./method-handlers.js";
import { unaryFastPath, type FastUnaryMethod } from "./unary-call.js";

const { HTTP2_HEADER_PATH, HTTP2_HEADER_CONTENT_TYPE } = http2.constants;

/**
 * The methods the fast carrier serves. A unary call that waits for the end of the turn
 * (./unary-call.ts) runs with the others of its method and connection, in halves from
 * `burstSplitMin` on: appends that arrive together (./burst-queue.ts); reads are paced by their
 * TurnQueue instead (../methods/reads.ts).
 */
const fastMethods: ReadonlyMap<string, { burstSplitMin: number }> = new Map([
  [appendPath, { burstSplitMin: limits.unaryAppendBurstSplitMin }],
  [readPath, { burstSplitMin: Number.POSITIVE_INFINITY }],
  [readAllPath, { burstSplitMin: Number.POSITIVE_INFINITY }],
  ["/ess.v1.Streams/AppendSession", { burstSplitMin: Number.POSITIVE_INFINITY }],
  ["/ess.v1.Streams/ReadSession", { burstSplitMin: Number.POSITIVE_INFINITY }],
]);

/** The stream handlers of the fast carrier's methods of `table`, by path. */
export function fastStreamHandlers(
  table: ReadonlyMap<string, RpcMethod>,
  deps: MethodHandlerDeps,
): Map<string, FastStreamHandler> {
  const unary = new Map<string, FastUnaryMethod>();
  const handlers = new Map<string, FastStreamHandler>();
  for (const [path, { burstSplitMin }] of fastMethods) {
    const method = table.get(path);
    if (method === undefined) throw new Error(`the fast carrier's ${path} is not in the method table`);
    if (method.kind === "unary")
      unary.set(path, { handler: unaryMethodHandler(method, deps), burstSplitMin });
    else if (method.kind === "session") handlers.set(path, sessionMethodHandler(method, deps));
  }
  for (const [path, handler] of unaryFastPath(unary, deps.receiveBytesMax)) handlers.set(path, handler);
  return handlers;
}

/**
 * Puts the fast carrier in front of grpc-js's stream handler on each of its HTTP/2 servers:
 * streams for `handlers`' paths are served here, every other stream as before (with a timeout
 * grpc-js would mistake for an expired one taken out: dropUnholdableTimeout).
 */
export function serveFastPath(
  http2Servers: Iterable<http2.Http2Server>,
  handlers: ReadonlyMap<string, FastStreamHandler>,
): void {
  for (const h2 of http2Servers) {
    const grpcHandlers = h2.listeners("stream") as ((...args: unknown[]) => void)[];
    h2.removeAllListeners("stream");
    h2.on(
      "stream",
      (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, ...rest: unknown[]) => {
        const path = headers[HTTP2_HEADER_PATH];
        const handler = typeof path === "string" ? handlers.get(path) : undefined;
        if (handler !== undefined && isPlainGrpc(headers)) {
          handler(stream, headers);
          return;
        }
        dropUnholdableTimeout(headers);
        for (const grpcHandler of grpcHandlers) grpcHandler.call(h2, stream, headers, ...rest);
      },
    );
  }
}

/**
 * grpc-js truncates a call's timeout to 32 bits, so a deadline past a Node timer's ~24.8 days
 * (a stock client's 41-day deadline on a subscription, sent as `3542400S`) fails the call at once
 * with DEADLINE_EXCEEDED. Such a timeout is taken out before grpc-js sees the call: no deadline,
 * as on the fast carrier.
 */
export function dropUnholdableTimeout(headers: http2.IncomingHttpHeaders): void {
  const timeout = headers["grpc-timeout"];
  if (typeof timeout === "string" && (parseGrpcTimeout(timeout) ?? 0) > timerMsMax)
    delete headers["grpc-timeout"];
}

/** A gRPC request whose messages are not compressed (grpc-js handles the others). */
function isPlainGrpc(headers: http2.IncomingHttpHeaders): boolean {
  const contentType = headers[HTTP2_HEADER_CONTENT_TYPE];
  const encoding = headers["grpc-encoding"];
  return (
    typeof contentType === "string" &&
    contentType.startsWith("application/grpc") &&
    (encoding === undefined || encoding === "identity")
  );
}

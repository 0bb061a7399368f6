/**
 * The hot Streams methods served straight over node:http2, beside grpc-js on the same port
 * (docs/rpc.md, "Fast path"): the unary Append, Read and ReadAll (./unary-fast-path.ts) and the
 * AppendSession and ReadSession streams (./session-fast-path.ts). grpc-js spends a third of a
 * unary call's server CPU, and a session append's stream layers, in work these methods do not
 * need.
 *
 * The fast path takes a stream only for a method it serves, with a gRPC content type and no
 * message compression (`grpc-encoding` absent or `identity`); every other stream goes on to
 * grpc-js, which keeps serving everything else (Subscribe, Admin, health, reflection, and
 * compressed calls). What grpc-js does per connection stays in force, because the connection is
 * still grpc-js's: SETTINGS_MAX_CONCURRENT_STREAMS, keepalive, GOAWAY and shutdown (a graceful
 * close waits for these streams as for its own). grpc-js's per-connection idle timer does not see
 * these calls, so the server leaves `grpc.max_connection_idle_ms` unset.
 */
import * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { timerMsMax } from "../expiry-timer.js";
import { parseGrpcTimeout } from "./grpc-timeout.js";

/** Serves one stream the fast path took. */
export type FastStreamHandler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void;

/**
 * A failed status to end a call with: code, message, and trailers of its own (`error-code`, ...).
 * (The load generator's CallStatus in bench/grpc-load/call-status.ts is the status as received.)
 */
export interface CallFailure {
  code: grpcStatus;
  details: string;
  trailers?: http2.OutgoingHttpHeaders;
}

const { HTTP2_HEADER_PATH, HTTP2_HEADER_CONTENT_TYPE, HTTP2_HEADER_STATUS } = http2.constants;

/** grpc-js's response headers (server-interceptors.ts), so clients see the same answer. */
const responseHeaders: http2.OutgoingHttpHeaders = {
  [HTTP2_HEADER_STATUS]: 200,
  [HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
  "grpc-accept-encoding": "identity,deflate,gzip",
  "grpc-encoding": "identity",
};
export const okTrailers: http2.OutgoingHttpHeaders = { "grpc-status": "0", "grpc-message": "OK" };

/** A failed status as trailers (the message percent-encoded, as grpc-js sends it). */
export function failureTrailers(status: CallFailure): http2.OutgoingHttpHeaders {
  return {
    "grpc-status": String(status.code),
    "grpc-message": encodeURI(status.details),
    ...status.trailers,
  };
}

/** A failed status as a trailers-only answer's headers (what grpc-js sends before any message). */
function trailersOnlyHeaders(status: CallFailure): http2.OutgoingHttpHeaders {
  return {
    ...failureTrailers(status),
    [HTTP2_HEADER_STATUS]: 200,
    [HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
  };
}

const answerOptions: http2.ServerStreamResponseOptions = { waitForTrailers: true };
const trailersOnlyOptions: http2.ServerStreamResponseOptions = { endStream: true };

/** Sends the response headers, unless they were sent; the status follows in trailers. */
export function respondOnce(stream: http2.ServerHttp2Stream): void {
  if (!stream.headersSent) stream.respond(responseHeaders, answerOptions);
}

/**
 * Ends a call that answers: the response headers if not sent yet, `lastMessage` (a framed
 * message) if any, then `trailers` once node:http2 asks for them.
 */
export function endWithTrailers(
  stream: http2.ServerHttp2Stream,
  trailers: http2.OutgoingHttpHeaders,
  lastMessage?: Buffer,
): void {
  respondOnce(stream);
  stream.once("wantTrailers", () => {
    if (!stream.destroyed && !stream.closed) stream.sendTrailers(trailers);
  });
  if (lastMessage === undefined) stream.end();
  else stream.end(lastMessage);
}

/** Ends a call with a failed status before any answer: a trailers-only answer, as grpc-js sends. */
export function respondTrailersOnly(stream: http2.ServerHttp2Stream, status: CallFailure): void {
  stream.respond(trailersOnlyHeaders(status), trailersOnlyOptions);
}

/** The status grpc-js gives a message with the compressed flag on a call that negotiated none. */
export const compressedMessageDetails = "Compressed message without negotiated compression";

/** The status grpc-js gives a request message over the server's limit. */
export function tooLargeDetails(length: number, max: number): string {
  return `Received message larger than max (${length} vs ${max})`;
}

/**
 * Starts a call's deadline from its `grpc-timeout`, read as grpc-js reads it: `expired` gets
 * DEADLINE_EXCEEDED once it passes. No timer (null) without a timeout or past what a Node timer
 * holds (~24.8 days: no deadline then, rather than one that fires at once); `refused` (INTERNAL)
 * for a value grpc-js would not take, which fails the call at once.
 */
export function startCallDeadline(
  headers: http2.IncomingHttpHeaders,
  expired: (status: CallFailure) => void,
): { timer: NodeJS.Timeout | null } | { refused: CallFailure } {
  const timeout = headers["grpc-timeout"];
  if (typeof timeout !== "string") return { timer: null };
  const ms = parseGrpcTimeout(timeout);
  if (ms === null) {
    return { refused: { code: grpcStatus.INTERNAL, details: `Invalid grpc-timeout value "${timeout}"` } };
  }
  if (ms > timerMsMax) return { timer: null };
  const timer = setTimeout(
    () => expired({ code: grpcStatus.DEADLINE_EXCEEDED, details: "Deadline exceeded" }),
    ms,
  );
  return { timer };
}

/**
 * Puts the fast path in front of grpc-js's stream handler on each of its HTTP/2 servers:
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
 * as on the fast path.
 */
function dropUnholdableTimeout(headers: http2.IncomingHttpHeaders): void {
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

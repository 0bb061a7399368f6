/**
 * How the fast carrier answers on a node:http2 stream, as grpc-js answers, so that a client sees
 * the same bytes whichever carrier served it: grpc-js's response headers, the status in trailers
 * after the messages or in a trailers-only answer before any, its texts for the refusals it makes
 * itself, and its reading of `grpc-timeout`.
 */
import * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { timerMsMax } from "../../expiry-timer.js";
import type { CallFailure } from "../error-mapping.js";
import { parseGrpcTimeout } from "../grpc-timeout.js";
import { acceptRequestId, requestIdHeader } from "../../contract/request-id.js";

export type { CallFailure };

/** Serves one stream the fast carrier took. */
export type FastStreamHandler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void;

const { HTTP2_HEADER_CONTENT_TYPE, HTTP2_HEADER_STATUS } = http2.constants;

/**
 * grpc-js's response headers (server-interceptors.ts), so clients see the same answer, with the
 * call's request id. One literal, not a constant spread with the id added: Node 20's V8 builds
 * a spread followed by a new key on a slow path, about 2 µs a call (BENCHMARKS.md, "Session of
 * 2026-11-27, 15:15–18:15 UTC").
 */
function responseHeaders(requestId: string): http2.OutgoingHttpHeaders {
  return {
    ":status": 200,
    "content-type": "application/grpc+proto",
    "grpc-accept-encoding": "identity,deflate,gzip",
    "grpc-encoding": "identity",
    "x-request-id": requestId,
  };
}
export const okTrailers: http2.OutgoingHttpHeaders = { "grpc-status": "0", "grpc-message": "OK" };

/** A failed status as trailers (the message percent-encoded, as grpc-js sends it). */
export function failureTrailers(status: CallFailure): http2.OutgoingHttpHeaders {
  return {
    "grpc-status": String(status.code),
    "grpc-message": encodeURI(status.details),
    ...status.trailers,
  };
}

/**
 * A call's request id (../../contract/request-id.ts), kept on its stream from dispatch on: every
 * answer's first headers carry it (the response headers, or a trailers-only answer), as the
 * grpc-js carrier sends it (../grpc-js-carrier.ts).
 */
const requestIdKey = Symbol("ess.requestId");
type StreamWithRequestId = http2.ServerHttp2Stream & { [requestIdKey]?: string };

/** Takes the client's sane `x-request-id` for the stream's call, or makes one. */
export function assignRequestId(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
  (stream as StreamWithRequestId)[requestIdKey] = acceptRequestId(headers[requestIdHeader]);
}

/** The request id assignRequestId gave the stream's call. */
export function requestIdOf(stream: http2.ServerHttp2Stream): string {
  return (stream as StreamWithRequestId)[requestIdKey] ?? "";
}

/** A failed status as a trailers-only answer's headers (what grpc-js sends before any message). */
function trailersOnlyHeaders(
  stream: http2.ServerHttp2Stream,
  status: CallFailure,
): http2.OutgoingHttpHeaders {
  return {
    ...failureTrailers(status),
    [requestIdHeader]: requestIdOf(stream),
    [HTTP2_HEADER_STATUS]: 200,
    [HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
  };
}

const answerOptions: http2.ServerStreamResponseOptions = { waitForTrailers: true };
const trailersOnlyOptions: http2.ServerStreamResponseOptions = { endStream: true };

/** Sends the response headers, unless they were sent; the status follows in trailers. */
export function respondOnce(stream: http2.ServerHttp2Stream): void {
  if (!stream.headersSent) {
    stream.respond(responseHeaders(requestIdOf(stream)), answerOptions);
  }
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
  stream.respond(trailersOnlyHeaders(stream, status), trailersOnlyOptions);
}

/**
 * Ends a call with a failed status before any answer, as respondTrailersOnly; a client still
 * sending its request is told to stop (RFC 9113 section 8.1): the status has gone first, and
 * what it sends meanwhile is dropped.
 */
export function respondTrailersOnlyAndStop(stream: http2.ServerHttp2Stream, status: CallFailure): void {
  respondTrailersOnly(stream, status);
  if (!stream.readableEnded) stream.close(http2.constants.NGHTTP2_NO_ERROR);
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

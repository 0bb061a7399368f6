/**
 * The hot unary calls (Streams.Append, Read and ReadAll) served straight over node:http2, beside
 * grpc-js on the same port: the server's twin of ./unary-transport.ts. grpc-js spends about a
 * third of such a call's server CPU in its own layers (a Metadata object, an intercepting call,
 * listeners and a decoder per call; the status sent only once the message's write completes);
 * this does what a unary call needs and nothing else (docs/rpc.md, "Unary fast path"):
 *
 * - it takes a stream only for a method it serves, with a gRPC content type and no message
 *   compression (`grpc-encoding` absent or `identity`); every other stream goes to grpc-js, which
 *   keeps serving everything else (sessions, Subscribe, Admin, health, reflection, and
 *   compressed calls);
 * - the request is one length-prefixed message, at most `receiveBytesMax` long; a larger one,
 *   none, a second one or a compressed one is refused with the status grpc-js gives;
 * - `grpc-timeout` is honoured as in grpc-js: past it the call ends with DEADLINE_EXCEEDED, and
 *   an answer that comes later is dropped; a stream closed by the client (RST_STREAM, connection
 *   gone) marks the call cancelled;
 * - the answer is HEADERS, one DATA frame and the status in trailers, or a trailers-only
 *   answer for a failure, with the headers grpc-js sends;
 * - answers go before new work: while other fast-path calls are in flight, a call whose request
 *   has arrived runs from `setImmediate` instead of at once (CallsInFlight below).
 *
 * What grpc-js does per connection stays in force, because the connection is still grpc-js's:
 * SETTINGS_MAX_CONCURRENT_STREAMS, keepalive, GOAWAY and shutdown (a graceful close waits for
 * these streams as for its own). grpc-js's per-connection idle timer does not see these calls,
 * so the server leaves `grpc.max_connection_idle_ms` unset.
 */
import * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { GRPC_FRAME_HEAD_BYTES } from "./grpc-frame.js";
import { parseGrpcTimeout, timerMsMax } from "./grpc-timeout.js";

/**
 * A failed status to end a call with: code, message, and trailers of its own (`error-code`, ...).
 * (The client's CallStatus in ./unary-transport.ts is the status as it is received.)
 */
export interface CallFailure {
  code: grpcStatus;
  details: string;
  trailers?: http2.OutgoingHttpHeaders;
}

/** One call, as a fast-path handler sees it. */
export interface FastUnaryCall {
  readonly stream: http2.ServerHttp2Stream;
  /** The `authorization` header, if any. */
  readonly authorization: string | undefined;
  /** The client went away or the deadline passed: nothing more will reach it. */
  readonly cancelled: boolean;
  /** Answers with one framed message (./grpc-frame.ts) and status OK. */
  answer(frame: Buffer): void;
  /** Ends the call with a failed status. */
  fail(status: CallFailure): void;
}

/** Serves one request message (without its frame head). */
export type FastUnaryHandler = (call: FastUnaryCall, message: Buffer) => void;

const { HTTP2_HEADER_PATH, HTTP2_HEADER_CONTENT_TYPE, HTTP2_HEADER_STATUS, NGHTTP2_NO_ERROR } =
  http2.constants;

/** grpc-js's response headers (server-interceptors.ts), so clients see the same answer. */
const responseHeaders: http2.OutgoingHttpHeaders = {
  [HTTP2_HEADER_STATUS]: 200,
  [HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
  "grpc-accept-encoding": "identity,deflate,gzip",
  "grpc-encoding": "identity",
};
const okTrailers: http2.OutgoingHttpHeaders = { "grpc-status": "0", "grpc-message": "OK" };
const answerOptions: http2.ServerStreamResponseOptions = { waitForTrailers: true };
const failureOptions: http2.ServerStreamResponseOptions = { endStream: true };

/**
 * The fast-path calls started and not yet finished, across the servers of one serveUnaryFastPath.
 *
 * node:http2 sends an answer's trailers from a `setImmediate` of its own, one event-loop turn
 * after the answer's data, and the next turn first reads and serves every request that arrived
 * meanwhile. Under load that put 0.7-2 ms between a unary answer's data and its trailers, a
 * quarter of the call at 16 concurrent calls (docs/performance-findings.md, "Answers before new
 * work"). So while other calls are in flight, a call that has its request runs from
 * `setImmediate`: after the check phase's native writes (the trailers submitted in the turn
 * before) instead of in the poll phase ahead of them. A call alone runs at once: the extra turn
 * would only add to its latency.
 */
class CallsInFlight {
  count = 0;
}

/**
 * Puts the fast path in front of grpc-js's stream handler on each of its HTTP/2 servers:
 * streams for `handlers`' paths are served here, every other stream as before (with a timeout
 * grpc-js would mistake for an expired one taken out: dropUnholdableTimeout).
 */
export function serveUnaryFastPath(
  http2Servers: Iterable<http2.Http2Server>,
  handlers: ReadonlyMap<string, FastUnaryHandler>,
  receiveBytesMax: number,
): void {
  const inFlight = new CallsInFlight();
  for (const h2 of http2Servers) {
    const grpcHandlers = h2.listeners("stream") as ((...args: unknown[]) => void)[];
    h2.removeAllListeners("stream");
    h2.on(
      "stream",
      (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, ...rest: unknown[]) => {
        const path = headers[HTTP2_HEADER_PATH];
        const handler = typeof path === "string" ? handlers.get(path) : undefined;
        if (handler !== undefined && isPlainGrpc(headers)) {
          new FastCall(stream, headers, handler, receiveBytesMax, inFlight).start();
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

class FastCall implements FastUnaryCall {
  readonly authorization: string | undefined;
  /** Bytes received so far: null, one chunk, or chunks to join. */
  private received: Buffer | Buffer[] | null = null;
  private receivedBytes = 0;
  /** Answered, failed, or cancelled: the call takes nothing more. */
  private done = false;
  /** The client reset the stream or went away, or the deadline passed, before the answer. */
  private cancelledEarly = false;
  private deadlineTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly stream: http2.ServerHttp2Stream,
    private readonly headers: http2.IncomingHttpHeaders,
    private readonly handler: FastUnaryHandler,
    private readonly receiveBytesMax: number,
    private readonly inFlight: CallsInFlight,
  ) {
    const authorization = headers.authorization;
    this.authorization = typeof authorization === "string" ? authorization : undefined;
  }

  get cancelled(): boolean {
    return this.cancelledEarly || this.stream.destroyed;
  }

  start(): void {
    const { stream } = this;
    // Counted in flight until the first finish().
    this.inFlight.count++;
    // Errors are followed by 'close', which is what the call reacts to.
    stream.on("error", () => undefined);
    stream.once("close", () => {
      if (!this.done) this.cancelledEarly = true;
      this.finish();
    });
    const timeout = this.headers["grpc-timeout"];
    if (typeof timeout === "string" && !this.startDeadline(timeout)) return;
    stream.on("data", (chunk: Buffer) => this.receive(chunk));
    stream.once("end", () => this.receivedAll());
  }

  answer(frame: Buffer): void {
    if (this.done || this.unwritable()) return this.finish();
    this.finish();
    const { stream } = this;
    stream.respond(responseHeaders, answerOptions);
    stream.once("wantTrailers", () => {
      if (!stream.destroyed && !stream.closed) stream.sendTrailers(okTrailers);
    });
    stream.end(frame);
  }

  fail(status: CallFailure): void {
    if (this.done || this.unwritable()) return this.finish();
    this.finish();
    // A trailers-only answer, as grpc-js sends before any message.
    this.stream.respond(
      {
        "grpc-status": String(status.code),
        "grpc-message": encodeURI(status.details),
        [HTTP2_HEADER_STATUS]: 200,
        [HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
        ...status.trailers,
      },
      failureOptions,
    );
    // A client still sending its request is told to stop (RFC 9113 section 8.1): the status has
    // gone first, and what it sends meanwhile is dropped.
    if (!this.stream.readableEnded) this.stream.close(NGHTTP2_NO_ERROR);
  }

  /** False (and the call failed) when the header is not a timeout grpc-js would take. */
  private startDeadline(timeout: string): boolean {
    const ms = parseGrpcTimeout(timeout);
    if (ms === null) {
      this.fail({ code: grpcStatus.INTERNAL, details: `Invalid grpc-timeout value "${timeout}"` });
      return false;
    }
    // Past what a Node timer holds (~24.8 days) a timer would fire at once: no deadline instead.
    if (ms > timerMsMax) return true;
    this.deadlineTimer = setTimeout(() => {
      this.cancelledEarly = true;
      this.fail({ code: grpcStatus.DEADLINE_EXCEEDED, details: "Deadline exceeded" });
    }, ms);
    return true;
  }

  private receive(chunk: Buffer): void {
    if (this.done) return;
    const before = this.receivedBytes;
    this.receivedBytes += chunk.length;
    if (this.received === null) this.received = chunk;
    else if (Array.isArray(this.received)) this.received.push(chunk);
    else this.received = [this.received, chunk];
    // Refused as soon as the frame head shows a message too large, before it arrives whole.
    if (before < GRPC_FRAME_HEAD_BYTES && this.receivedBytes >= GRPC_FRAME_HEAD_BYTES) {
      const length = this.joined().readUInt32BE(1);
      if (length > this.receiveBytesMax) {
        this.received = null;
        this.fail({
          code: grpcStatus.RESOURCE_EXHAUSTED,
          details: `Received message larger than max (${length} vs ${this.receiveBytesMax})`,
        });
      }
    }
  }

  private receivedAll(): void {
    if (this.done) return;
    const body = this.receivedBytes === 0 ? null : this.joined();
    this.received = null;
    const path = String(this.headers[HTTP2_HEADER_PATH]);
    if (
      body === null ||
      body.length < GRPC_FRAME_HEAD_BYTES ||
      body.length < GRPC_FRAME_HEAD_BYTES + body.readUInt32BE(1)
    ) {
      this.fail({
        code: grpcStatus.UNIMPLEMENTED,
        details: `Received no request message for unary method ${path}`,
      });
    } else if (body.length > GRPC_FRAME_HEAD_BYTES + body.readUInt32BE(1)) {
      this.fail({
        code: grpcStatus.UNIMPLEMENTED,
        details: `Received a second request message for unary method ${path}`,
      });
    } else if (body[0] !== 0) {
      this.fail({ code: grpcStatus.INTERNAL, details: "Compressed message without negotiated compression" });
    } else {
      const message = body.subarray(GRPC_FRAME_HEAD_BYTES);
      if (this.inFlight.count > 1) setImmediate(() => this.run(message));
      else this.run(message);
    }
  }

  private run(message: Buffer): void {
    // Deferred (see CallsInFlight): the deadline or the client may have ended the call meanwhile.
    if (this.done) return;
    try {
      this.handler(this, message);
    } catch {
      // A handler's bug fails its call, not the process (grpc-js answers UNKNOWN here too).
      this.fail({ code: grpcStatus.UNKNOWN, details: "the server failed to handle the call" });
    }
  }

  /** The bytes received, as one buffer (joined once, then kept). */
  private joined(): Buffer {
    const received = this.received;
    if (received === null) return Buffer.alloc(0);
    if (!Array.isArray(received)) return received;
    const one = Buffer.concat(received, this.receivedBytes);
    this.received = one;
    return one;
  }

  /** The stream is gone or already has its answer. */
  private unwritable(): boolean {
    return this.stream.destroyed || this.stream.closed || this.stream.headersSent;
  }

  private finish(): void {
    if (!this.done) this.inFlight.count--;
    this.done = true;
    if (this.deadlineTimer !== null) {
      clearTimeout(this.deadlineTimer);
      this.deadlineTimer = null;
    }
  }
}

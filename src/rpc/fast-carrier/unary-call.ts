/**
 * The unary calls the fast carrier serves (Streams.Append, Read and ReadAll: ./fast-carrier.ts),
 * read and answered straight on their node:http2 streams: the server's twin of the load
 * generator's bench/grpc-load/unary-transport.ts. grpc-js spends about a third of such a call's server
 * CPU in its own layers (a Metadata object, an intercepting call, listeners and a decoder per
 * call; the status sent only once the message's write completes); this does what a unary call
 * needs and nothing else (docs/rpc.md, "Unary fast path"):
 *
 * - the request is one length-prefixed message, at most `receiveBytesMax` long; a larger one,
 *   none, a second one or a compressed one is refused with the status grpc-js gives;
 * - `grpc-timeout` is honoured as in grpc-js: past it the call ends with DEADLINE_EXCEEDED, and
 *   an answer that comes later is dropped; a stream closed by the client (RST_STREAM, connection
 *   gone) marks the call cancelled;
 * - the answer is HEADERS, one DATA frame and the status in trailers, or a trailers-only
 *   answer for a failure, with the headers grpc-js sends;
 * - answers go before new work: while other fast-path calls are in flight, a call whose request
 *   has arrived runs at the end of the turn instead of at once (CallsInFlight below), through its
 *   method's BurstQueue on its connection (./burst-queue.ts): appends that arrive together run
 *   in two halves.
 */
import * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import {
  compressedMessageDetails,
  endWithTrailers,
  okTrailers,
  respondTrailersOnly,
  startCallDeadline,
  tooLargeDetails,
  type CallFailure,
  type FastStreamHandler,
} from "./grpc-answers.js";
import { BurstQueue } from "./burst-queue.js";
import { GRPC_FRAME_HEAD_BYTES } from "../grpc-frame.js";

/** One call, as a fast-carrier handler sees it. */
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

/** One unary method on the fast carrier. */
export interface FastUnaryMethod {
  handler: FastUnaryHandler;
  /**
   * Its calls that wait for the end of the turn (CallsInFlight) run in halves from this many
   * on, counted per connection (a BurstQueue per method and connection); Infinity: never split.
   */
  burstSplitMin: number;
}

const { HTTP2_HEADER_PATH, NGHTTP2_NO_ERROR } = http2.constants;

/**
 * The fast carrier's unary calls started and not yet finished, across the methods of one
 * unaryFastPath.
 *
 * node:http2 sends an answer's trailers from a `setImmediate` of its own, one event-loop turn
 * after the answer's data, and the next turn first reads and serves every request that arrived
 * meanwhile. Under load that put 0.7-2 ms between a unary answer's data and its trailers, a
 * quarter of the call at 16 concurrent calls (docs/performance-findings.md, "Answers before new
 * work"). So while other calls are in flight, a call that has its request runs at the end of the
 * turn (its method's BurstQueue on its connection): after the check phase's native writes (the
 * trailers submitted in the turn before) instead of in the poll phase ahead of them. A call alone
 * runs at once: the extra turn would only add to its latency.
 */
class CallsInFlight {
  count = 0;
}

/** The fast carrier's stream handlers for `methods` (by path). */
export function unaryFastPath(
  methods: ReadonlyMap<string, FastUnaryMethod>,
  receiveBytesMax: number,
): Map<string, FastStreamHandler> {
  const inFlight = new CallsInFlight();
  const streamHandlers = new Map<string, FastStreamHandler>();
  for (const [path, method] of methods) {
    const queueOf = burstQueues(method.burstSplitMin);
    streamHandlers.set(path, (stream, headers) =>
      new FastCall(stream, headers, method.handler, queueOf(stream), receiveBytesMax, inFlight).start(),
    );
  }
  return streamHandlers;
}

/**
 * A BurstQueue per connection: a burst is split where it came from, and a call from another
 * connection does not wait behind its halves (docs/performance-findings.md, "A lone client
 * beside a burst").
 */
function burstQueues(splitMin: number): (stream: http2.ServerHttp2Stream) => BurstQueue {
  const byConnection = new WeakMap<http2.Http2Session, BurstQueue>();
  // A stream always has its session while its handler starts; this is only the type's fallback.
  const detached = new BurstQueue(splitMin);
  return (stream) => {
    const connection = stream.session;
    if (connection === undefined) return detached;
    let queue = byConnection.get(connection);
    if (queue === undefined) {
      queue = new BurstQueue(splitMin);
      byConnection.set(connection, queue);
    }
    return queue;
  };
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
    /** Where the call waits for the end of the turn while others are in flight. */
    private readonly deferred: BurstQueue,
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
    if (!this.startDeadline()) return;
    stream.on("data", (chunk: Buffer) => this.receive(chunk));
    stream.once("end", () => this.receivedAll());
  }

  answer(frame: Buffer): void {
    if (this.done || this.unwritable()) return this.finish();
    this.finish();
    endWithTrailers(this.stream, okTrailers, frame);
  }

  fail(status: CallFailure): void {
    if (this.done || this.unwritable()) return this.finish();
    this.finish();
    // A trailers-only answer, as grpc-js sends before any message.
    respondTrailersOnly(this.stream, status);
    // A client still sending its request is told to stop (RFC 9113 section 8.1): the status has
    // gone first, and what it sends meanwhile is dropped.
    if (!this.stream.readableEnded) this.stream.close(NGHTTP2_NO_ERROR);
  }

  /** False (and the call failed) when the header is not a timeout grpc-js would take. */
  private startDeadline(): boolean {
    const deadline = startCallDeadline(this.headers, (status) => {
      this.cancelledEarly = true;
      this.fail(status);
    });
    if ("refused" in deadline) {
      this.fail(deadline.refused);
      return false;
    }
    this.deadlineTimer = deadline.timer;
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
          details: tooLargeDetails(length, this.receiveBytesMax),
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
      this.fail({ code: grpcStatus.INTERNAL, details: compressedMessageDetails });
    } else {
      const message = body.subarray(GRPC_FRAME_HEAD_BYTES);
      if (this.inFlight.count > 1) this.deferred.defer(() => this.run(message));
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

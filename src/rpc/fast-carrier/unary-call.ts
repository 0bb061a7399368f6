/**
 * The unary calls the fast carrier serves (Streams.Append, Read and ReadAll: ./fast-carrier.ts),
 * read as ./one-request-call.ts reads them and answered straight on their node:http2 streams:
 * HEADERS, one DATA frame and the status in trailers, or trailers-only for a failure, with
 * grpc-js's headers. grpc-js spent about a third of such a call's server CPU in its own layers
 * (docs/rpc.md, "Unary calls on the fast carrier"). Answers go before new work: while other calls
 * are in flight, a call whose request has arrived runs at the end of the turn (CallsInFlight
 * below), through its method's BurstQueue on its connection (./burst-queue.ts).
 */
import type * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import {
  endWithTrailers,
  okTrailers,
  respondTrailersOnlyAndStop,
  type CallFailure,
  type FastStreamHandler,
} from "./grpc-answers.js";
import { BurstQueue } from "./burst-queue.js";
import { OneRequestCall } from "./one-request-call.js";

/** One call, as a fast-carrier handler sees it. */
export interface FastUnaryCall {
  readonly stream: http2.ServerHttp2Stream;
  readonly authorization: string | undefined;
  /** The client went away or the deadline passed: nothing more will reach it. */
  readonly cancelled: boolean;
  /** Answers with one framed message (../grpc-frame.ts) and status OK. */
  answer(frame: Buffer): void;
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

/**
 * The fast carrier's unary calls started and not yet finished, across the methods of one
 * unaryFastPath.
 *
 * node:http2 sends an answer's trailers from a `setImmediate` of its own, one event-loop turn
 * after the answer's data, and the next turn first reads and serves every request that arrived
 * meanwhile. Under load that put 0.7-2 ms between a unary answer's data and its trailers, a
 * quarter of the call at 16 concurrent calls (docs/performance-findings.md, "Answers before new
 * work"). So while other calls are in flight, a call that has its request runs at the end of the
 * turn (its method's BurstQueue on its connection, in the order the requests completed): after
 * the check phase's native writes (the trailers submitted in the turn before) instead of in the
 * poll phase ahead of them. A call alone runs at once: the extra turn would only add to its
 * latency.
 */
class CallsInFlight {
  count = 0;
}

/** The fast carrier's stream handlers for the unary `methods` (by path). */
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

class FastCall extends OneRequestCall implements FastUnaryCall {
  constructor(
    stream: http2.ServerHttp2Stream,
    headers: http2.IncomingHttpHeaders,
    private readonly handler: FastUnaryHandler,
    /** Where the call waits for the end of the turn while others are in flight. */
    private readonly deferred: BurstQueue,
    receiveBytesMax: number,
    private readonly inFlight: CallsInFlight,
  ) {
    super(stream, headers, receiveBytesMax, "unary");
  }

  override start(): void {
    // Counted in flight until the first finish().
    this.inFlight.count++;
    super.start();
  }

  answer(frame: Buffer): void {
    if (this.done || this.unwritable()) return this.finish();
    this.finish();
    endWithTrailers(this.stream, okTrailers, frame);
  }

  fail(status: CallFailure): void {
    if (this.done || this.unwritable()) return this.finish();
    this.finish();
    respondTrailersOnlyAndStop(this.stream, status);
  }

  protected requestReceived(message: Buffer): void {
    if (this.inFlight.count > 1) this.deferred.defer(() => this.run(message));
    else this.run(message);
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

  /** The stream is gone or already has its answer. */
  private unwritable(): boolean {
    return this.stream.destroyed || this.stream.closed || this.stream.headersSent;
  }

  protected override finish(): void {
    if (!this.done) this.inFlight.count--;
    super.finish();
  }
}

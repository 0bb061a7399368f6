/**
 * gRPC `Streams.Subscribe`: the same subscription as the WebSocket interface, over one server
 * stream per subscription. It only translates; the rules live in ../operations/subscribe.ts.
 *
 * Invariants:
 * - the token is verified first, then the request (the order every operation keeps);
 * - a message is weighed when it is written (an event: its data and metadata plus
 *   `messageOverheadBytes`) and counted until its write callback, which the carrier calls once
 *   node:http2 has written the message to the socket. While the call holds more than
 *   `bufferBytesMax` the call's gate is closed: the subscription stops sending and resumes from
 *   storage once half of it has left, as on a WebSocket. So the carrier's queue and node:http2's
 *   hold at most the bound plus one message per call. (grpc-js's own signal, `write()` answering
 *   false, comes only after 16 queued messages whatever their size: up to 16 MiB of events.);
 * - a call whose gate stays closed past the stall timeout has its HTTP/2 stream reset
 *   (RST_STREAM CANCEL) and its subscription closed, and what was queued for it is dropped at
 *   once: a status would have to wait behind the data the client does not read (a carrier that
 *   cannot reset a stream ends the call with UNAVAILABLE instead);
 * - the call ends exactly once: with a status for an error (expired token: UNAUTHENTICATED),
 *   quietly when the client cancels; the subscription is closed either way. A status that waits
 *   behind queued messages the client does not take within the stall timeout is dropped with
 *   them: the stream is reset.
 */
import { EssError, toEssError } from "../errors.js";
import { limits } from "../limits.js";
import { logger as defaultLogger, type Logger } from "../logger.js";
import { ByteWindow, FlowGate } from "../operations/subscription/flow-gate.js";
import type { SubscriptionSink } from "../operations/subscription/subscription.js";
import type { SubscriptionService } from "../operations/subscribe.js";
import { toPbEventRecord } from "./convert.js";
import type { SubscribeRequest__Output } from "./generated/ess/v1/SubscribeRequest.js";
import type { SubscribeCall, SubscribeServer } from "./methods/subscribe.js";

export interface SubscribeHandlerOptions {
  /** Milliseconds a call may stay past its buffer bound before it is reset. Default limits.subscriberStallMsMax. */
  stallMsMax?: number;
  /** Bytes queued to one call before its subscription pauses. Default limits.subscriberBufferBytesMax. */
  bufferBytesMax?: number;
  /** Where a stalled subscriber's reset is reported (info). Default the process logger. */
  logger?: Logger;
}

/** What a handler's calls hold now (tests; metrics). */
export interface SubscribeCallStats {
  /** Subscribe calls not yet ended. */
  readonly calls: number;
  /** Bytes written to those calls and not yet written to their sockets, as weighed here. */
  readonly bufferedBytes: number;
}

export type SubscribeHandler = SubscribeServer & {
  readonly stats: SubscribeCallStats;
};

/**
 * The weight of a message beyond an event's data and metadata: its other fields (ids, type,
 * time: a few hundred bytes on the wire at most) and the objects that carry it until it is sent.
 */
const messageOverheadBytes = 512;

function byteLength(field: Buffer | Uint8Array | string | undefined): number {
  if (field === undefined) return 0;
  return typeof field === "string" ? Buffer.byteLength(field) : field.byteLength;
}

export function createSubscribeHandler(
  service: SubscriptionService,
  options: SubscribeHandlerOptions = {},
): SubscribeHandler {
  const deps: CallDeps = {
    service,
    stallMsMax: options.stallMsMax ?? limits.subscriberStallMsMax,
    bufferBytesMax: options.bufferBytesMax ?? limits.subscriberBufferBytesMax,
    logger: options.logger ?? defaultLogger,
    stats: { calls: 0, bufferedBytes: 0 },
  };
  const handle = (call: SubscribeCall, subscribeRequest: SubscribeRequest__Output): void =>
    new SubscribeCallSubscription(call, subscribeRequest, deps).start();
  // The figures are kept up to date in this object: readers see them live.
  return Object.assign(handle, { stats: deps.stats });
}

/** What every call of one handler shares. */
interface CallDeps {
  service: SubscriptionService;
  stallMsMax: number;
  bufferBytesMax: number;
  logger: Logger;
  stats: { calls: number; bufferedBytes: number };
}

/** One Subscribe call's subscription: its session, its flow gate and how the call ends. */
class SubscribeCallSubscription {
  private ended = false;
  private readonly session: ReturnType<SubscriptionService["openSession"]>;
  private readonly gate: FlowGate;
  private readonly window: ByteWindow;

  constructor(
    private readonly call: SubscribeCall,
    private readonly subscribeRequest: SubscribeRequest__Output,
    private readonly deps: CallDeps,
  ) {
    deps.stats.calls += 1;
    this.session = deps.service.openSession({
      carrier: "grpc",
      onExpired: () =>
        this.end(new EssError("UNAUTHENTICATED", "the token expired; authenticate again and resubscribe")),
    });
    this.gate = new FlowGate({ stallMsMax: deps.stallMsMax, onStall: () => this.stalled() });
    this.window = new ByteWindow(this.gate, deps.bufferBytesMax);
  }

  start(): void {
    const { call, subscribeRequest: r } = this;
    call.onEnd(() => this.end(null));
    const request = {
      id: "grpc",
      stream: r.stream_id,
      from: r.from,
      tenant: r.tenant,
      stream_prefix: r.stream_prefix,
      event_type_prefix: r.event_type_prefix,
      stream_regex: r.stream_regex,
      event_type_regex: r.event_type_regex,
    };
    void (async () => {
      try {
        // Authentication first: without a valid token the answer is UNAUTHENTICATED whatever
        // the request holds (session.subscribe validates it next).
        await this.session.authenticate(call.ctx.token);
        if (this.ended) return;
        await this.session.subscribe(request, this.sink());
      } catch (error) {
        this.end(toEssError(error));
      }
    })();
  }

  private sink(): SubscriptionSink {
    return {
      event: (record) => {
        const event = toPbEventRecord(record);
        const payload =
          byteLength(event.data) + byteLength(event.metadata) + byteLength(event.metadata_bytes);
        return this.write({ event }, payload + messageOverheadBytes);
      },
      caughtUp: () => void this.write({ caught_up: {} }, messageOverheadBytes),
      checkpoint: (position) => void this.write({ checkpoint: { position } }, messageOverheadBytes),
      whenWritable: () => (this.ended ? null : this.gate.whenOpen()),
      failed: (error) => this.end(error),
    };
  }

  private write(message: Parameters<SubscribeCall["write"]>[0], bytes: number): boolean {
    const { call, deps } = this;
    if (this.ended) return false;
    if (call.ended) {
      this.end(null);
      return false;
    }
    deps.stats.bufferedBytes += bytes;
    const open = this.window.add(bytes);
    call.write(message, () => {
      // Written to the socket, or dropped with the stream: no longer held for this call.
      if (this.ended) return;
      deps.stats.bufferedBytes -= bytes;
      this.window.release(bytes);
    });
    return open;
  }

  /** Closes the subscription and forgets the call's bytes; false when that was done already. */
  private release(): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.deps.stats.calls -= 1;
    this.deps.stats.bufferedBytes -= this.window.bytes;
    this.session.close();
    this.gate.dispose();
    return true;
  }

  private end(error: EssError | null): void {
    const { call } = this;
    const queuedBytes = this.window.bytes;
    if (!this.release() || call.ended) return;
    call.end(error);
    if (queuedBytes === 0) return;
    // The status leaves after the messages queued before it: a client that does not take them
    // within the stall timeout is cut off as a stalled one is.
    const timer = setTimeout(() => call.reset(), this.deps.stallMsMax);
    timer.unref();
    call.onClosed(() => clearTimeout(timer));
  }

  private stalled(): void {
    const { call, deps } = this;
    const bufferedBytes = this.window.bytes;
    if (!this.release()) return;
    deps.logger.info("gRPC subscriber stalled: its stream is reset", {
      peer: call.peer,
      request_id: call.ctx.request_id,
      stream_id: this.subscribeRequest.stream_id,
      buffered_bytes: bufferedBytes,
      stall_ms_max: deps.stallMsMax,
    });
    if (!call.reset() && !call.ended) {
      // A carrier that cannot reset the stream: the status, after the queued data.
      call.end(
        new EssError("UNAVAILABLE", `subscriber stalled: not reading for more than ${deps.stallMsMax} ms`),
      );
    }
  }
}

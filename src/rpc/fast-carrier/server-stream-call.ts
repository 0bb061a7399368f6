/**
 * A server-streaming call on the fast carrier (Streams.Subscribe): its request read as
 * ./one-request-call.ts reads it, then its messages written straight on the node:http2 stream,
 * each with a callback once node:http2 has written it to the socket (the subscription's buffer
 * bound counts by it: ../subscribe-handler.ts). Through node:http2's public API the call can be
 * reset (RST_STREAM CANCEL), which drops what is queued for it: a stalled subscriber is cut off at
 * once, where a status would wait behind the data the client does not read.
 *
 * The answer is grpc-js's: its response headers before the first message, the messages of a turn
 * in one socket write (the stream is corked for the rest of the tick), the status in trailers
 * after them, or a trailers-only answer before any.
 */
import * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { toCallFailure } from "../error-mapping.js";
import { grpcFrame } from "../grpc-frame.js";
import type { Failure, ServerStreamCall } from "../methods/method.js";
import type { CallContext } from "../../operations/contract.js";
import { TickCork } from "../../tick-cork.js";
import {
  endWithTrailers,
  failureTrailers,
  okTrailers,
  respondOnce,
  respondTrailersOnlyAndStop,
  type CallFailure,
} from "./grpc-answers.js";
import { OneRequestCall } from "./one-request-call.js";

export class FastServerStreamCall<Message> extends OneRequestCall implements ServerStreamCall<Message> {
  /** Set by the handler once the call is admitted (its token verified). */
  ctx: CallContext = { token: null };
  private endListeners: (() => void)[] | null = [];
  private closedListeners: (() => void)[] | null = [];
  private readonly cork: TickCork;

  constructor(
    stream: http2.ServerHttp2Stream,
    headers: http2.IncomingHttpHeaders,
    receiveBytesMax: number,
    readonly peer: string,
    private readonly encode: (message: Message) => Buffer,
    /** Serves the call once its request message has arrived. */
    private readonly serve: (call: FastServerStreamCall<Message>, message: Buffer) => void,
  ) {
    super(stream, headers, receiveBytesMax, "server streaming");
    this.cork = new TickCork(stream);
  }

  get ended(): boolean {
    return this.done;
  }

  write(message: Message, written: () => void): void {
    if (this.done) return;
    const frame = grpcFrame(this.encode(message));
    respondOnce(this.stream);
    this.cork.hold();
    this.stream.write(frame, written);
  }

  end(failure: Failure | null): void {
    if (failure === null) {
      if (this.done) return;
      this.finish();
      if (!this.stream.closed && !this.stream.destroyed) endWithTrailers(this.stream, okTrailers);
      return;
    }
    this.fail(toCallFailure(failure));
  }

  fail(status: CallFailure): void {
    if (this.done) return;
    this.finish();
    const { stream } = this;
    if (stream.closed || stream.destroyed) return;
    if (stream.headersSent) endWithTrailers(stream, failureTrailers(status));
    else respondTrailersOnlyAndStop(stream, status);
  }

  reset(): boolean {
    this.finish();
    if (!this.stream.closed && !this.stream.destroyed) this.stream.close(http2.constants.NGHTTP2_CANCEL);
    return true;
  }

  onEnd(listener: () => void): void {
    if (this.endListeners === null) listener();
    else this.endListeners.push(listener);
  }

  onClosed(listener: () => void): void {
    if (this.closedListeners === null) listener();
    else this.closedListeners.push(listener);
  }

  protected requestReceived(message: Buffer): void {
    try {
      this.serve(this, message);
    } catch {
      // A handler's bug fails its call, not the process (grpc-js answers UNKNOWN here too).
      this.fail({ code: grpcStatus.UNKNOWN, details: "the server failed to handle the call" });
    }
  }

  protected override streamClosed(): void {
    super.streamClosed();
    const listeners = this.closedListeners;
    this.closedListeners = null;
    for (const listener of listeners ?? []) listener();
  }

  protected override finish(): void {
    super.finish();
    const listeners = this.endListeners;
    this.endListeners = null;
    for (const listener of listeners ?? []) listener();
  }
}

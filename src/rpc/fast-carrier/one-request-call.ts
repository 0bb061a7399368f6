/**
 * A call whose client sends one request message (a unary call: ./unary-call.ts; a server stream:
 * ./server-stream-call.ts), read straight from its node:http2 stream as grpc-js reads it:
 *
 * - the request is one length-prefixed message of at most `receiveBytesMax` bytes, refused from
 *   its frame head (RESOURCE_EXHAUSTED) before it arrives whole; none, a cut one, a second one
 *   (UNIMPLEMENTED) or a compressed one (INTERNAL) are refused with grpc-js's statuses;
 * - `grpc-timeout` is honoured as in grpc-js: past it the call fails with DEADLINE_EXCEEDED and
 *   counts as cancelled; a stream closed by the client (RST_STREAM, connection gone) before the
 *   call is done marks it cancelled too.
 */
import type * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { GRPC_FRAME_HEAD_BYTES } from "../grpc-frame.js";
import {
  compressedMessageDetails,
  startCallDeadline,
  tooLargeDetails,
  type CallFailure,
} from "./grpc-answers.js";

export abstract class OneRequestCall {
  readonly authorization: string | undefined;
  /** Bytes received so far: null, one chunk, or chunks to join. */
  private received: Buffer | Buffer[] | null = null;
  private receivedBytes = 0;
  /** Answered, failed, or cancelled: the call takes nothing more. */
  protected done = false;
  /** The client reset the stream or went away, or the deadline passed, before the call was done. */
  private cancelledEarly = false;
  private deadlineTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly stream: http2.ServerHttp2Stream,
    protected readonly headers: http2.IncomingHttpHeaders,
    private readonly receiveBytesMax: number,
    /** What grpc-js calls the method in its refusals: "unary", "server streaming". */
    private readonly methodKind: string,
  ) {
    const authorization = headers.authorization;
    this.authorization = typeof authorization === "string" ? authorization : undefined;
  }

  get cancelled(): boolean {
    return this.cancelledEarly || this.stream.destroyed;
  }

  start(): void {
    const { stream } = this;
    // Errors are followed by 'close', which is what the call reacts to.
    stream.on("error", () => undefined);
    stream.once("close", () => this.streamClosed());
    if (!this.startDeadline()) return;
    stream.on("data", (chunk: Buffer) => this.receive(chunk));
    stream.once("end", () => this.receivedAll());
  }

  abstract fail(status: CallFailure): void;

  /** The request message (without its frame head) has arrived whole. */
  protected abstract requestReceived(message: Buffer): void;

  /** The call's stream closed: answered, reset by the client, or its connection gone. */
  protected streamClosed(): void {
    if (!this.done) this.cancelledEarly = true;
    this.finish();
  }

  /** The call takes nothing more; its deadline is no longer watched. */
  protected finish(): void {
    this.done = true;
    if (this.deadlineTimer !== null) {
      clearTimeout(this.deadlineTimer);
      this.deadlineTimer = null;
    }
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
    if (
      body === null ||
      body.length < GRPC_FRAME_HEAD_BYTES ||
      body.length < GRPC_FRAME_HEAD_BYTES + body.readUInt32BE(1)
    ) {
      this.fail({
        code: grpcStatus.UNIMPLEMENTED,
        details: `Received no request message for ${this.methodKind} method ${String(this.headers[":path"])}`,
      });
    } else if (body.length > GRPC_FRAME_HEAD_BYTES + body.readUInt32BE(1)) {
      this.fail({
        code: grpcStatus.UNIMPLEMENTED,
        details: `Received a second request message for ${this.methodKind} method ${String(this.headers[":path"])}`,
      });
    } else if (body[0] !== 0) {
      this.fail({ code: grpcStatus.INTERNAL, details: compressedMessageDetails });
    } else {
      this.requestReceived(body.subarray(GRPC_FRAME_HEAD_BYTES));
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
}

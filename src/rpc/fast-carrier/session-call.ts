/**
 * Streams.AppendSession and ReadSession on the fast carrier: a session's channel
 * (../pipelined-session.ts) straight on its node:http2 stream, without grpc-js's decoder,
 * intercepting call and second Readable per request and serializer and frame copy per answer
 * (docs/rpc.md, "Sessions on the fast carrier"):
 *
 * - requests are length-prefixed messages cut from the chunks as they come, each refused from
 *   its frame head when over `receiveBytesMax` or compressed (grpc-js's statuses), and decoded
 *   only when handed to the session, which takes none before it has authenticated the token; one
 *   that does not decode ends the session with INVALID_ARGUMENT after the requests before it;
 * - pause() holds both the stream (HTTP/2 flow control) and the messages already cut;
 * - answers are encoded after their frame head, the stream corked for the rest of the turn so the
 *   answers of one group commit leave in one socket write;
 * - the status goes in trailers after the answers, or trailers-only before any; what a client
 *   still sends is then read and dropped (a RST_STREAM could overtake the status);
 * - `grpc-timeout` is honoured (DEADLINE_EXCEEDED); a closed stream ends the session (gone).
 */
import type * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { isEssError, type EssError } from "../../errors.js";
import { TickCork } from "../../tick-cork.js";
import { toCallFailure } from "../error-mapping.js";
import {
  compressedMessageDetails,
  endWithTrailers,
  failureTrailers,
  okTrailers,
  respondOnce,
  respondTrailersOnly,
  startCallDeadline,
  tooLargeDetails,
  type CallFailure,
  type FastStreamHandler,
} from "./grpc-answers.js";
import { GRPC_FRAME_HEAD_BYTES } from "../grpc-frame.js";
import type { SessionChannel, SessionEvents } from "../pipelined-session.js";
import type { SessionAnswer } from "../session-codec.js";
import { MalformedRequest } from "../malformed-request.js";

/** A session method's messages: its requests decoded, its answers as whole gRPC frames. */
export interface FastSessionCodec<Request, Result> {
  decode(message: Buffer): Request;
  encodeFrame(answers: readonly SessionAnswer<Result>[]): Buffer;
}

/** A session's call on the fast carrier, handed to its method to open its session on. */
export interface FastSessionCall<Request, Result> extends SessionChannel<Request, Result> {
  readonly stream: http2.ServerHttp2Stream;
  readonly authorization: string | undefined;
}

/** The fast carrier's stream handler for one session method. */
export function sessionFastPath<Request, Result>(
  codec: FastSessionCodec<Request, Result>,
  receiveBytesMax: number,
  open: (call: FastSessionCall<Request, Result>) => void,
): FastStreamHandler {
  return (stream, headers) => open(new FastSessionStream(stream, headers, codec, receiveBytesMax));
}

class FastSessionStream<Request, Result> implements FastSessionCall<Request, Result> {
  readonly authorization: string | undefined;
  private events: SessionEvents<Request> | null = null;
  /** Received bytes not yet taken as whole messages. */
  private chunks: Buffer[] = [];
  private chunkBytes = 0;
  /** The length of the message whose head was read; -1 before its head is in. */
  private messageBytes = -1;
  /** Request messages read from the chunks and not yet decoded and handed on (the session paused). */
  private ready: Buffer[] = [];
  private paused = true;
  /** The client half-closed; heard once `ready` is empty. */
  private halfClosed = false;
  private endHeard = false;
  /** A request did not decode: what follows it is not read. */
  private stopped = false;
  /** The status was sent or the stream closed: nothing more is read, heard or written. */
  private over = false;
  private goneHeard = false;
  private readonly cork: TickCork;
  private deadlineTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly stream: http2.ServerHttp2Stream,
    private readonly headers: http2.IncomingHttpHeaders,
    private readonly codec: FastSessionCodec<Request, Result>,
    private readonly receiveBytesMax: number,
  ) {
    this.cork = new TickCork(stream);
    const authorization = headers.authorization;
    this.authorization = typeof authorization === "string" ? authorization : undefined;
    // Errors are followed by 'close', which is what the call reacts to.
    stream.on("error", () => undefined);
  }

  listen(events: SessionEvents<Request>): void {
    this.events = events;
    const { stream } = this;
    stream.once("close", () => this.closed());
    const deadline = startCallDeadline(this.headers, (status) => this.fail(status));
    if ("refused" in deadline) {
      this.fail(deadline.refused);
      return;
    }
    this.deadlineTimer = deadline.timer;
    stream.on("data", (chunk: Buffer) => this.receive(chunk));
    stream.once("end", () => {
      this.halfClosed = true;
      this.handOn();
    });
    stream.on("drain", () => {
      if (!this.over) events.drain();
    });
    stream.pause();
  }

  pause(): void {
    this.paused = true;
    this.stream.pause();
  }

  resume(): void {
    this.paused = false;
    this.handOn();
    if (!this.paused && !this.over) this.stream.resume();
  }

  send(answers: readonly SessionAnswer<Result>[], flushed: () => void): boolean {
    const { stream } = this;
    if (this.over || stream.destroyed) return true;
    let frame: Buffer;
    try {
      frame = this.codec.encodeFrame(answers);
    } catch (error) {
      // As grpc-js ends a call whose answer it cannot serialize.
      this.fail({
        code: grpcStatus.INTERNAL,
        details: `Error serializing response: ${error instanceof Error ? error.message : String(error)}`,
      });
      return true;
    }
    respondOnce(stream);
    this.cork.hold();
    return stream.write(frame, flushed);
  }

  end(status: EssError | null): void {
    if (status === null) this.finish(okTrailers);
    else this.fail(toCallFailure(status));
  }

  private fail(status: CallFailure): void {
    const { stream } = this;
    if (!this.over && !stream.destroyed && !stream.closed && !stream.headersSent) {
      this.over = true;
      this.stopReading();
      respondTrailersOnly(stream, status);
      return;
    }
    this.finish(failureTrailers(status));
  }

  /** Ends the call with `trailers` after the answers sent (headers first if there were none). */
  private finish(trailers: http2.OutgoingHttpHeaders): void {
    const { stream } = this;
    if (this.over) return;
    this.over = true;
    this.stopReading();
    if (stream.destroyed || stream.closed) return;
    endWithTrailers(stream, trailers);
  }

  /**
   * The status is sent (or the stream closed): nothing more is taken, what the client still
   * sends is read and dropped, and the session hears that its call is gone (on the next tick, as
   * grpc-js tells a handler its call ended), so a session whose call failed here stops running
   * requests without waiting for the client to close the stream.
   */
  private stopReading(): void {
    this.clearDeadline();
    this.chunks = [];
    this.chunkBytes = 0;
    this.ready = [];
    this.stream.resume();
    process.nextTick(this.hearGone);
  }

  private readonly hearGone = (): void => {
    if (this.goneHeard || this.events === null) return;
    this.goneHeard = true;
    this.events.gone();
  };

  private closed(): void {
    this.over = true;
    this.stopReading();
  }

  private receive(chunk: Buffer): void {
    if (this.over || this.stopped) return;
    this.chunks.push(chunk);
    this.chunkBytes += chunk.length;
    while (!this.over && !this.stopped) {
      if (this.messageBytes < 0) {
        if (this.chunkBytes < GRPC_FRAME_HEAD_BYTES) break;
        const head = this.peekHead();
        const length = head.readUInt32BE(1);
        // Refused from its head: a message too large never arrives whole. (The size first, as on
        // a unary call and in grpc-js's decoder.)
        if (length > this.receiveBytesMax) {
          return this.fail({
            code: grpcStatus.RESOURCE_EXHAUSTED,
            details: tooLargeDetails(length, this.receiveBytesMax),
          });
        }
        if (head[0] !== 0) return this.fail({ code: grpcStatus.INTERNAL, details: compressedMessageDetails });
        this.messageBytes = length;
      }
      if (this.chunkBytes < GRPC_FRAME_HEAD_BYTES + this.messageBytes) break;
      const message = this.take(GRPC_FRAME_HEAD_BYTES + this.messageBytes).subarray(GRPC_FRAME_HEAD_BYTES);
      this.messageBytes = -1;
      this.ready.push(message);
    }
    this.handOn();
  }

  /** Hands the requests read on while the session takes them, then the half-close after the last. */
  private handOn(): void {
    const events = this.events;
    if (events === null) return;
    let next = 0;
    while (!this.paused && !this.over && next < this.ready.length) {
      let request: Request;
      try {
        request = this.codec.decode(this.ready[next++]!);
      } catch (error) {
        // Bad bytes (not protobuf, text not UTF-8): the session hears it after the requests
        // before it and ends with INVALID_ARGUMENT, as on the grpc-js path; nothing after it is
        // read. Anything else is answered as grpc-js answers a request its deserializer refuses.
        if (isEssError(error) && error.code === "INVALID_ARGUMENT") {
          this.ready = [];
          this.chunks = [];
          this.chunkBytes = 0;
          this.stopped = true;
          events.request(new MalformedRequest(error));
          return;
        }
        this.fail({ code: grpcStatus.INTERNAL, details: "Error deserializing request" });
        return;
      }
      events.request(request);
    }
    if (next > 0) this.ready = this.ready.slice(next);
    if (this.halfClosed && !this.endHeard && !this.over && this.ready.length === 0) {
      this.endHeard = true;
      events.end();
    }
  }

  /** The first frame head's bytes (joining the first chunks when it spans them). */
  private peekHead(): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= GRPC_FRAME_HEAD_BYTES) return first;
    const joined = Buffer.concat(this.chunks, this.chunkBytes);
    this.chunks = [joined];
    return joined;
  }

  /** Takes `bytes` off the front of the received chunks (a view when one chunk holds them). */
  private take(bytes: number): Buffer {
    const first = this.chunks[0]!;
    let taken: Buffer;
    if (first.length >= bytes) {
      taken = first.subarray(0, bytes);
      if (first.length === bytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(bytes);
    } else {
      const joined = Buffer.concat(this.chunks, this.chunkBytes);
      taken = joined.subarray(0, bytes);
      this.chunks = joined.length > bytes ? [joined.subarray(bytes)] : [];
    }
    this.chunkBytes -= bytes;
    return taken;
  }

  private clearDeadline(): void {
    if (this.deadlineTimer !== null) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
  }
}

/**
 * The benchmark load generator's Streams.AppendSession and Streams.ReadSession calls, straight
 * over node:http2 (docs/rpc.md, "The benchmark's load generator"). No product path uses it: the
 * product client (src/client/) carries sessions through grpc-js, which costs a session append
 * about twice the client CPU of this path (its stream object, its interceptor and call layers for
 * each message), CPU the load generator would take from the server it measures:
 *
 * - each session is one HTTP/2 stream on a connection of its own, so a session whose answers
 *   wait cannot hold back other calls (docs/rpc.md, "For other clients");
 * - the request headers are those of a unary call without `grpc-timeout` (no deadline applies to
 *   a session); each request is one length-prefixed message, and the requests sent in one turn
 *   of the event loop leave in one write (the stream is corked until the turn's ticks are done);
 * - answers are read from the start and as they come (never left to buffer), cut at their length
 *   prefixes, and handed over one by one;
 * - the call's status is read as the unary transport reads it (./call-status.ts);
 * - the connection holds the process open only while requests wait for answers.
 */
import * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { grpcFrame } from "../../src/rpc/grpc-frame.js";
import { TickCork } from "../../src/tick-cork.js";
import { failure, statusOfClose, statusOfHeaders, type CallStatus } from "./call-status.js";
import { loadLimits } from "./load-limits.js";

/** An HTTP/2 connection as a session opens it: wide receive windows, no limit on header blocks or session memory. */
function connectHttp2(origin: string): http2.ClientHttp2Session {
  const session = http2.connect(origin, {
    // Read pages may be large: a wider window than HTTP/2's 64 KiB (./load-limits.ts).
    settings: { initialWindowSize: loadLimits.streamWindowBytes },
    maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
    // As grpc-js: Node refuses new streams past maxSessionMemory, and degrades badly when it does.
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
  });
  session.on("connect", () => {
    try {
      session.setLocalWindowSize(loadLimits.connectionWindowBytes);
    } catch {
      // Only a wider window; the default one works too.
    }
  });
  return session;
}

const { HTTP2_HEADER_STATUS, NGHTTP2_CANCEL, NGHTTP2_NO_ERROR } = http2.constants;

export interface SessionCallEvents {
  /** One answer message (length prefix removed). A throw ends the call with INTERNAL. */
  message(message: Buffer): void;
  /** Once: how the call ended (OK when the server ended it after the client's half-close). */
  end(status: CallStatus): void;
}

export class Http2SessionCall {
  private readonly session: http2.ClientHttp2Session;
  private readonly stream: http2.ClientHttp2Stream;
  private readonly cork: TickCork;
  private ended = false;
  /**
   * The bytes of an answer not complete yet (prefix included) are copied here as they come, and
   * the space is used again for the next one: a read answer of tens of KiB arrives in several
   * DATA frames, and this saves gathering the chunks and allocating a new Buffer per answer (not
   * measured apart: the client's garbage-collection cost turned out to come from elsewhere,
   * src/client/pending-requests.ts). So a message handed to `events.message` is valid only during that
   * call.
   */
  private partial: Buffer = Buffer.alloc(0);
  private partialBytes = 0;
  /** The whole message's bytes (prefix included) once the partial one's prefix is in; else 0. */
  private partialNeeded = 0;

  constructor(
    address: string,
    path: string,
    token: string | null,
    /**
     * The largest answer taken: a length prefix past this is a broken or hostile peer, not an
     * answer to buffer.
     */
    private readonly answerBytesMax: number,
    private readonly events: SessionCallEvents,
  ) {
    this.session = connectHttp2(`http://${address}`);
    // A failed connection fails its stream too ('error', then 'close'), which ends the call.
    this.session.on("error", () => undefined);
    this.session.unref();
    const headers: http2.OutgoingHttpHeaders = {
      ":method": "POST",
      ":path": path,
      ":scheme": "http",
      ":authority": address,
      "content-type": "application/grpc",
      te: "trailers",
    };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    this.stream = this.session.request(headers, { endStream: false });
    this.cork = new TickCork(this.stream);

    let status: CallStatus | null = null;
    let httpStatus: number | undefined;
    let internalError: NodeJS.ErrnoException | null = null;
    const end = (final: CallStatus): void => this.finish(final);
    this.stream.on("response", (received) => {
      httpStatus = Number(received[HTTP2_HEADER_STATUS]);
      // A trailers-only answer carries the status in its headers.
      status = statusOfHeaders(received);
    });
    this.stream.on("data", (chunk: Buffer) => {
      if (this.ended) return;
      let problem: CallStatus | null;
      try {
        problem = this.take(chunk);
      } catch {
        // The answer did not decode: grpc-js reports a response it cannot parse as INTERNAL.
        problem = failure(grpcStatus.INTERNAL, "Failed to parse server response");
      }
      if (problem !== null) {
        end(problem);
        this.stream.close(NGHTTP2_CANCEL);
      }
    });
    this.stream.on("trailers", (trailers: http2.IncomingHttpHeaders) => {
      status = statusOfHeaders(trailers);
    });
    this.stream.on("error", (error: NodeJS.ErrnoException) => {
      // Errors not made from a RST_STREAM (a socket error, the session's end) are kept for the status.
      if (error.code !== "ERR_HTTP2_STREAM_ERROR") internalError = error;
    });
    /** The call's status once the server's side has ended (or the stream closed without it). */
    const settle = (): CallStatus => {
      if (status === null) return statusOfClose(this.stream.rstCode, httpStatus, internalError);
      if (status.code === grpcStatus.OK && this.partialBytes > 0)
        return failure(grpcStatus.INTERNAL, "Truncated message");
      return status;
    };
    // The server ended its side (trailers, or a trailers-only answer): that is the call's end,
    // even while requests could still be sent (a session refused before the client half-closed).
    this.stream.on("end", () => {
      end(settle());
      if (!this.stream.closed) this.stream.close(NGHTTP2_NO_ERROR);
    });
    this.stream.on("close", () => {
      if (!this.session.closed && !this.session.destroyed) this.session.close();
      this.session.unref();
      end(settle());
    });
  }

  /**
   * Sends one request message; the requests of one turn leave in one socket write. `written`
   * runs once node:http2 has written it (src/client/sessions.ts joins the appends requested
   * meanwhile into the next message).
   */
  send(message: Buffer, written?: () => void): void {
    const frame = grpcFrame(message);
    this.cork.hold();
    this.stream.write(frame, written);
  }

  /** No more requests: the server answers those sent, then ends the call. */
  halfClose(): void {
    this.stream.end();
  }

  /** Ends the call from this side (the client is closed): UNAVAILABLE, as a shut-down grpc-js channel. */
  destroy(): void {
    this.finish(failure(grpcStatus.UNAVAILABLE, "Channel has been shut down"));
    this.session.destroy();
  }

  private finish(status: CallStatus): void {
    if (this.ended) return;
    this.ended = true;
    this.events.end(status);
  }

  /** Holds the process open (while appends wait for answers) or lets it exit. */
  hold(busy: boolean): void {
    if (this.ended) return;
    if (busy) this.session.ref();
    else this.session.unref();
  }

  /**
   * Cuts a chunk into whole answers and hands them over; keeps the rest for the next chunk.
   * Returns the status to end the call with when the bytes are not answers.
   */
  private take(chunk: Buffer): CallStatus | null {
    let at = 0;
    if (this.partialBytes > 0) {
      if (this.partialNeeded === 0) {
        at = this.keep(chunk, 0, Math.min(chunk.length, 5 - this.partialBytes));
        // Still short of the length prefix: wait for more.
        if (this.partialBytes < 5) return null;
        const length = messageLength(this.partial, 0, this.answerBytesMax);
        if (typeof length !== "number") return length;
        this.partialNeeded = 5 + length;
      }
      at = this.keep(chunk, at, Math.min(chunk.length, at + this.partialNeeded - this.partialBytes));
      // Short of the message the prefix announces: wait for more.
      if (this.partialBytes < this.partialNeeded) return null;
      const message = this.partial.subarray(5, this.partialNeeded);
      this.partialBytes = 0;
      this.partialNeeded = 0;
      // A rare huge answer does not keep its space for the life of the session.
      if (this.partial.length > PARTIAL_KEPT_BYTES_MAX) this.partial = Buffer.alloc(0);
      this.events.message(message);
      if (this.ended) return null;
    }
    while (chunk.length - at >= 5) {
      const length = messageLength(chunk, at, this.answerBytesMax);
      if (typeof length !== "number") return length;
      if (chunk.length - at - 5 < length) break;
      this.events.message(chunk.subarray(at + 5, at + 5 + length));
      if (this.ended) return null;
      at += 5 + length;
    }
    if (at < chunk.length) {
      this.keep(chunk, at, chunk.length);
      if (this.partialBytes >= 5) {
        const length = messageLength(this.partial, 0, this.answerBytesMax);
        if (typeof length !== "number") return length;
        this.partialNeeded = 5 + length;
      }
    }
    return null;
  }

  /** Appends chunk[start, end) to the partial answer, growing its space when needed; returns `end`. */
  private keep(chunk: Buffer, start: number, end: number): number {
    const bytes = this.partialBytes + end - start;
    if (bytes > this.partial.length) {
      const grown = Buffer.allocUnsafe(
        Math.max(bytes, this.partialNeeded, 2 * this.partial.length, 64 * 1024),
      );
      this.partial.copy(grown, 0, 0, this.partialBytes);
      this.partial = grown;
    }
    chunk.copy(this.partial, this.partialBytes, start, end);
    this.partialBytes = bytes;
    return end;
  }
}

/** The largest partial-answer space kept for the next answer (take() above). */
const PARTIAL_KEPT_BYTES_MAX = 1024 * 1024;

/** The length of the message whose prefix starts at `at`, or why it is not one to take. */
function messageLength(buf: Buffer, at: number, bytesMax: number): number | CallStatus {
  if (buf[at] !== 0) return failure(grpcStatus.INTERNAL, "Compressed message without negotiated compression");
  const length = buf.readUInt32BE(at + 1);
  if (length > bytesMax)
    return failure(grpcStatus.INTERNAL, "Received an answer larger than any answer of this call");
  return length;
}

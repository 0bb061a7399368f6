/**
 * A lean Streams.AppendSession call straight over node:http2, for src/rpc/client.ts's
 * openAppendSession on a plaintext `host:port` (docs/rpc.md, "Lean append sessions"). grpc-js
 * costs a session append about twice the client CPU of this path (its stream object, its
 * interceptor and call layers for each message), which at one append at a time is latency:
 *
 * - each session is one HTTP/2 stream on a connection of its own, so a session whose answers
 *   wait cannot hold back other calls (docs/rpc.md, "For other clients");
 * - the request headers are those of a unary call without `grpc-timeout` (no deadline applies to
 *   a session); each request is one length-prefixed message, and the requests sent in one turn
 *   of the event loop leave in one write (the stream is corked until the turn's ticks are done);
 * - answers are read from the start and as they come (never left to buffer), cut at their length
 *   prefixes, and handed over one by one;
 * - the call's status is read as the unary transport reads it (./unary-transport.ts): from the
 *   trailers, from a trailers-only answer's headers, or, without a gRPC status, from the HTTP
 *   status and RST_STREAM code as grpc-js maps them;
 * - the connection holds the process open only while appends wait for answers.
 */
import * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { connectHttp2, failure, statusOfClose, statusOfHeaders, type CallStatus } from "./unary-transport.js";

const { HTTP2_HEADER_STATUS, NGHTTP2_CANCEL, NGHTTP2_NO_ERROR } = http2.constants;

/**
 * The largest answer taken: an AppendSessionResponse is a result or an error of well under a
 * KiB; a length prefix past this is a broken or hostile peer, not an answer to buffer.
 */
const ANSWER_BYTES_MAX = 4 * 1024 * 1024;

export interface SessionCallEvents {
  /** One answer message (length prefix removed). A throw ends the call with INTERNAL. */
  message(message: Buffer): void;
  /** Once: how the call ended (OK when the server ended it after the client's half-close). */
  end(status: CallStatus): void;
}

export class LeanSessionCall {
  private readonly session: http2.ClientHttp2Session;
  private readonly stream: http2.ClientHttp2Stream;
  private corked = false;
  private ended = false;
  /** Bytes of an answer not complete yet: the chunks received since the last whole message. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** The whole message's bytes (prefix included) once the partial one's prefix is in; else 0. */
  private partialNeeded = 0;
  private readonly uncork = (): void => {
    this.corked = false;
    this.stream.uncork();
  };

  constructor(
    address: string,
    path: string,
    token: string | null,
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

  /** Sends one request message; the requests of one turn leave in one socket write. */
  send(message: Buffer): void {
    const frame = Buffer.allocUnsafe(5 + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    if (!this.corked) {
      this.corked = true;
      this.stream.cork();
      process.nextTick(this.uncork);
    }
    this.stream.write(frame);
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
    let buf = chunk;
    if (this.partialBytes > 0) {
      this.partial.push(chunk);
      this.partialBytes += chunk.length;
      if (this.partialNeeded === 0) {
        // Still short of the length prefix: wait for more.
        if (this.partialBytes < 5) return null;
        const head = Buffer.concat(this.partial, this.partialBytes);
        this.partial = [head];
        const length = messageLength(head, 0);
        if (typeof length !== "number") return length;
        this.partialNeeded = 5 + length;
      }
      // Short of the message the prefix announces: wait for more (concatenated once, when whole).
      if (this.partialBytes < this.partialNeeded) return null;
      buf = Buffer.concat(this.partial, this.partialBytes);
      this.partial = [];
      this.partialBytes = 0;
      this.partialNeeded = 0;
    }
    let at = 0;
    while (buf.length - at >= 5) {
      const length = messageLength(buf, at);
      if (typeof length !== "number") return length;
      if (buf.length - at - 5 < length) break;
      this.events.message(buf.subarray(at + 5, at + 5 + length));
      if (this.ended) return null;
      at += 5 + length;
    }
    if (at < buf.length) {
      const rest = buf.subarray(at);
      this.partial = [rest];
      this.partialBytes = rest.length;
      if (rest.length >= 5) this.partialNeeded = 5 + (messageLength(rest, 0) as number);
    }
    return null;
  }
}

/** The length of the message whose prefix starts at `at`, or why it is not one to take. */
function messageLength(buf: Buffer, at: number): number | CallStatus {
  if (buf[at] !== 0) return failure(grpcStatus.INTERNAL, "Compressed message without negotiated compression");
  const length = buf.readUInt32BE(at + 1);
  if (length > ANSWER_BYTES_MAX)
    return failure(grpcStatus.INTERNAL, "Received an answer larger than any append answer");
  return length;
}

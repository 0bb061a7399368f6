/**
 * The benchmark load generator's unary gRPC transport for the Streams calls it makes (Append,
 * Read, ReadAll), on its own HTTP/2 connection (./h2/client-connection.ts) instead of grpc-js or
 * node:http2. No product path uses it: the product client (src/client/) runs on grpc-js. It
 * exists so that the load generator, which shares the machine's cores with the server it
 * measures, takes as little CPU as it can. grpc-js spends most of a unary call's client CPU in its
 * own layers (interceptors, retry and load-balancing calls, a deadline timer and a Metadata
 * object per call, channelz), and node:http2 most of the rest in a Duplex stream object per call;
 * this does what a unary call needs and nothing else (docs/rpc.md, "The benchmark's load
 * generator"):
 *
 * - one HTTP/2 connection per client, opened on first use and again after it dies (connection
 *   lost, server gone, GOAWAY: new calls go to a new connection, calls in flight on the old one
 *   finish there);
 * - a call is one HEADERS frame (`:path`, `content-type: application/grpc`, `te: trailers`,
 *   `grpc-timeout` when there is a deadline, `authorization` when there is a token; the block is
 *   encoded once per path and token) and the length-prefixed message in DATA frames with
 *   END_STREAM;
 * - the answer is one length-prefixed message and the status in the trailers (or in the
 *   headers, for a trailers-only answer); a failed call gives the same status grpc-js gives
 *   (./call-status.ts), and the client turns it into the same EssError;
 * - the deadline is sent as `grpc-timeout` and also held locally: past it the stream is
 *   cancelled (RST_STREAM CANCEL, so the server sees the cancellation) and the call fails with
 *   DEADLINE_EXCEEDED, as in grpc-js;
 * - a stream the server refused without processing (REFUSED_STREAM, or past a GOAWAY's last
 *   stream id) is sent again once on a new connection, as grpc-js's transparent retry does;
 * - the connection holds the process open only while calls are in flight (as grpc-js's does).
 *
 * No TLS, compression or interceptors: a plaintext `host:port` only.
 */
import { status as grpcStatus } from "@grpc/grpc-js";
import { limits } from "../../src/limits.js";
import { grpcFrame } from "../../src/rpc/grpc-frame.js";
import { timerMsMax } from "../../src/expiry-timer.js";
import { failure, statusOfClose, statusOfHeaders, type CallStatus } from "./call-status.js";
import {
  H2_CANCEL,
  H2_NO_ERROR,
  H2_REFUSED_STREAM,
  H2ClientConnection,
  type H2Stream,
  type StreamAbort,
  type StreamHandler,
} from "./h2/client-connection.js";
import { encodeHeaderBlock, type HeaderFields } from "./h2/hpack.js";
import { loadLimits } from "./load-limits.js";

export class UnaryCallError extends Error {
  constructor(readonly status: CallStatus) {
    super(status.details);
  }
}

/** `host:port`, `[v6]:port`: the addresses this transport takes . */
const plainAddress = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

export function isPlainAddress(address: string): boolean {
  return plainAddress.test(address);
}

export interface UnaryTransportOptions {
  /** `host:port` (see isPlainAddress). */
  address: string;
  /** Milliseconds each call may take (sent as grpc-timeout and enforced here). */
  deadlineMs?: number;
}

/** A call's request headers: the fields, and their header block as sent on the wire. */
interface RequestHeaders {
  fields: [string, string][];
  block: Buffer;
}

export class UnaryTransport {
  private readonly host: string;
  private readonly port: number;
  private connection: H2ClientConnection | null = null;
  private closed = false;
  private headersToken: string | null | undefined = undefined;
  private readonly headersByPath = new Map<string, RequestHeaders>();
  /** `grpc-timeout` as grpc-js writes it for our deadline (milliseconds, at most 8 digits). */
  private readonly timeoutHeader: string | undefined;

  constructor(private readonly options: UnaryTransportOptions) {
    const colon = options.address.lastIndexOf(":");
    this.host = options.address.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
    this.port = Number(options.address.slice(colon + 1));
    if (options.deadlineMs !== undefined) this.timeoutHeader = formatGrpcTimeout(options.deadlineMs);
  }

  /**
   * One unary call: resolves with the decoded answer, or rejects with UnaryCallError carrying
   * the status (an exception thrown by `decode` rejects as is).
   */
  call<Req, Res>(
    path: string,
    encode: (request: Req) => Buffer,
    decode: (message: Buffer) => Res,
    request: Req,
    token: string | null,
  ): Promise<Res> {
    if (this.closed)
      return Promise.reject(
        new UnaryCallError(failure(grpcStatus.UNAVAILABLE, "Channel has been shut down")),
      );
    let frame: Buffer;
    try {
      frame = grpcFrame(encode(request));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const headers = this.headersFor(path, token);
    const deadline = this.options.deadlineMs === undefined ? undefined : Date.now() + this.options.deadlineMs;
    return new Promise<Buffer>((resolve, reject) => {
      this.start(new UnaryCall(this, headers, frame, deadline, resolve, reject, true));
    }).then(decode);
  }

  /**
   * The request headers of a call: the same header block for every call with the same path and
   * token, so a client sending call after call with one token encodes them once.
   */
  private headersFor(path: string, token: string | null): RequestHeaders {
    if (token !== this.headersToken) {
      this.headersByPath.clear();
      this.headersToken = token;
    }
    let headers = this.headersByPath.get(path);
    if (headers === undefined) {
      const fields: [string, string][] = [
        [":method", "POST"],
        [":scheme", "http"],
        [":path", path],
        [":authority", this.options.address],
        ["content-type", "application/grpc"],
        ["te", "trailers"],
      ];
      if (this.timeoutHeader !== undefined) fields.push(["grpc-timeout", this.timeoutHeader]);
      if (token !== null) fields.push(["authorization", `Bearer ${token}`]);
      headers = { fields, block: encodeHeaderBlock(fields) };
      this.headersByPath.set(path, headers);
    }
    return headers;
  }

  /** Ends the connection; calls in flight fail with UNAVAILABLE, later calls too. */
  close(): void {
    this.closed = true;
    const connection = this.connection;
    this.connection = null;
    connection?.destroy("Channel has been shut down");
  }

  /** Sends a call on the current connection, opening one when there is none that takes streams. */
  start(call: UnaryCall): void {
    if (this.closed) {
      call.fail(failure(grpcStatus.UNAVAILABLE, "Channel has been shut down"));
      return;
    }
    let connection = this.connection;
    if (connection === null || !connection.usable) {
      const opened: H2ClientConnection = new H2ClientConnection({
        host: this.host,
        port: this.port,
        streamWindowBytes: loadLimits.streamWindowBytes,
        connectionWindowBytes: loadLimits.connectionWindowBytes,
        headerListBytesMax: loadLimits.headerListBytesMax,
        onRetire: () => this.forget(opened),
      });
      this.connection = opened;
      connection = opened;
    }
    call.send(connection);
  }

  /** New calls open a new connection (this one keeps serving the calls already on it). */
  forget(connection: H2ClientConnection): void {
    if (this.connection === connection) this.connection = null;
  }

  /** New calls open a new connection; this one closes once its calls in flight have ended. */
  retire(connection: H2ClientConnection): void {
    this.forget(connection);
    connection.retire();
  }
}

/** One attempt of a unary call on one connection: the stream's handler and the call's deadline. */
class UnaryCall implements StreamHandler {
  private connection: H2ClientConnection | null = null;
  private stream: H2Stream | null = null;
  private httpStatus: number | undefined = undefined;
  private sawHeaders = false;
  private status: CallStatus | null = null;
  private chunks: Buffer[] | Buffer | null = null;
  /** Bytes of the answer received so far, and what its length prefix announced (-1: not yet in). */
  private receivedBytes = 0;
  private announcedBytes = -1;
  private timer: NodeJS.Timeout | undefined = undefined;
  private settled = false;

  constructor(
    private readonly transport: UnaryTransport,
    private readonly headers: RequestHeaders,
    private readonly frame: Buffer,
    private readonly deadline: number | undefined,
    private readonly resolve: (message: Buffer) => void,
    private readonly reject: (error: Error) => void,
    private readonly mayRetry: boolean,
  ) {}

  send(connection: H2ClientConnection): void {
    this.connection = connection;
    this.stream = connection.open(this.headers.block, this.frame, this);
    const deadline = this.deadline;
    // A Node timer past ~24.8 days fires after 1 ms: such a deadline is held by the server only.
    if (this.settled || deadline === undefined || deadline - Date.now() > timerMsMax) return;
    const answersBefore = connection.answers;
    this.timer = setTimeout(
      () => {
        // Fails at once, even if the stream is still waiting for a connection that never comes.
        this.fail(failure(grpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded"));
        if (this.stream !== null) connection.cancel(this.stream, H2_CANCEL);
        // Nothing answered on the connection for a whole deadline: it may be half-open (a peer
        // or a middlebox gone without a FIN or RST), which TCP would notice only after minutes.
        // New calls go to a new connection; calls still in flight on this one finish or time out.
        if (connection.answers === answersBefore) this.transport.retire(connection);
      },
      Math.max(0, deadline - Date.now()),
    );
  }

  onHeaders(fields: HeaderFields, endStream: boolean): void {
    if (!this.sawHeaders) {
      this.sawHeaders = true;
      this.httpStatus = Number(fields[":status"]);
    }
    // Response headers carry a status only in a trailers-only answer; trailers always do.
    this.status = statusOfHeaders(fields);
    if (endStream) this.end();
  }

  onData(chunk: Buffer, endStream: boolean): void {
    if (this.settled) return;
    const chunks = this.chunks;
    if (chunks === null) this.chunks = chunk;
    else if (Array.isArray(chunks)) chunks.push(chunk);
    else this.chunks = [chunks, chunk];
    this.receivedBytes += chunk.length;
    if (this.announcedBytes < 0 && this.receivedBytes >= 5) {
      this.announcedBytes = this.body().readUInt32BE(1);
      // An answer past what any answer of this service can be is refused before it is buffered,
      // as grpc-js refuses a message past its receive limit (the same status and text).
      const max = limits.rpcClientAnswerBytesMax;
      if (this.announcedBytes > max)
        return this.refuse(
          failure(
            grpcStatus.RESOURCE_EXHAUSTED,
            `Received message larger than max (${this.announcedBytes} vs ${max})`,
          ),
        );
    }
    // More than the one message announced: what end() would say, without buffering the rest.
    if (this.announcedBytes >= 0 && this.receivedBytes > 5 + this.announcedBytes)
      return this.refuse(failure(grpcStatus.UNIMPLEMENTED, "Too many responses received"));
    if (endStream) this.end();
  }

  /** Fails the call while its answer is still coming, and stops the stream. */
  private refuse(status: CallStatus): void {
    this.fail(status);
    this.chunks = null;
    if (this.connection !== null && this.stream !== null) this.connection.cancel(this.stream, H2_CANCEL);
  }

  /** The answer's bytes received so far, in one Buffer. */
  private body(): Buffer {
    const chunks = this.chunks;
    if (chunks === null) return Buffer.alloc(0);
    if (!Array.isArray(chunks)) return chunks;
    const whole = Buffer.concat(chunks);
    this.chunks = whole;
    return whole;
  }

  onAbort(reason: StreamAbort): void {
    if (this.settled) return;
    const refused =
      reason.kind === "refused" || (reason.kind === "reset" && reason.code === H2_REFUSED_STREAM);
    if (refused && this.mayRetry && !this.sawHeaders) {
      // Refused before the server saw it: once more, on a new connection.
      this.settle();
      if (this.connection !== null) this.transport.forget(this.connection);
      this.transport.start(
        new UnaryCall(
          this.transport,
          withTimeLeft(this.headers, this.deadline),
          this.frame,
          this.deadline,
          this.resolve,
          this.reject,
          false,
        ),
      );
      return;
    }
    if (reason.kind === "reset") this.fail(statusOfClose(reason.code, this.httpStatus, null));
    else if (this.httpStatus !== undefined && this.httpStatus !== 200)
      this.fail(statusOfClose(H2_NO_ERROR, this.httpStatus, null));
    else this.fail(failure(grpcStatus.UNAVAILABLE, reason.message));
  }

  fail(status: CallStatus): void {
    if (this.settled) return;
    this.settle();
    this.reject(new UnaryCallError(status));
  }

  private settle(): void {
    this.settled = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  /** The server ended the stream: the answer, or the status it failed with. */
  private end(): void {
    if (this.settled) return;
    const final = this.status;
    if (final === null) return this.fail(statusOfClose(H2_NO_ERROR, this.httpStatus, null));
    if (final.code !== grpcStatus.OK) return this.fail(final);
    // The length prefix is not in yet: no message at all.
    if (this.announcedBytes < 0) return this.fail(failure(grpcStatus.UNIMPLEMENTED, "No message received"));
    const body = this.body();
    if (body[0] !== 0)
      return this.fail(failure(grpcStatus.INTERNAL, "Compressed message without negotiated compression"));
    // (More than the message announced was refused as it arrived, in onData.)
    if (this.receivedBytes < 5 + this.announcedBytes)
      return this.fail(failure(grpcStatus.INTERNAL, "Truncated message"));
    this.settle();
    this.resolve(body.subarray(5));
  }
}

/** The headers of a call sent again: its grpc-timeout is the time left, not the whole deadline. */
function withTimeLeft(headers: RequestHeaders, deadline: number | undefined): RequestHeaders {
  if (deadline === undefined) return headers;
  const timeout = formatGrpcTimeout(deadline - Date.now());
  const fields = headers.fields.map(([name, value]): [string, string] =>
    name === "grpc-timeout" ? [name, timeout] : [name, value],
  );
  return { fields, block: encodeHeaderBlock(fields) };
}

/** A clock unit of `grpc-timeout`, in milliseconds. */
const timeoutUnitMs = { m: 1, S: 1000, M: 60_000, H: 3_600_000 } as const;

/**
 * `ms` as grpc-js writes `grpc-timeout`: in the finest unit whose amount fits in 8 digits (a 9th
 * digit would be read as another number by a server). The server reads it with
 * src/rpc/grpc-timeout.ts.
 */
export function formatGrpcTimeout(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  for (const unit of ["m", "S", "M", "H"] as const) {
    const amount = Math.ceil(whole / timeoutUnitMs[unit]);
    if (amount < 1e8) return `${amount}${unit}`;
  }
  return "99999999H";
}

/**
 * A lean unary gRPC client transport straight over node:http2, for the hot Streams calls
 * (Append, Read, ReadAll) of src/rpc/client.ts. grpc-js spends most of a unary call's client CPU
 * in its own layers (interceptors, retry and load-balancing calls, a deadline timer and a
 * Metadata object per call, channelz); this does what a unary call needs and nothing else
 * (docs/rpc.md, "Lean unary transport"):
 *
 * - one HTTP/2 session per client, opened on first use and again after it dies (connection
 *   lost, server gone, GOAWAY: new calls go to a new session, calls in flight on the old one
 *   finish there);
 * - a call is one HEADERS frame (`:path`, `content-type: application/grpc`, `te: trailers`,
 *   `grpc-timeout` when there is a deadline, `authorization` when there is a token) and one
 *   DATA frame holding the length-prefixed message, with END_STREAM;
 * - the answer is one length-prefixed message and the status in the trailers (or in the
 *   headers, for a trailers-only answer); a failed call gives the same status grpc-js gives
 *   (`grpc-status`, `grpc-message` decoded as grpc-js decodes it, the `error-code` and first
 *   `error-details-bin` trailers), and the client turns it into the same EssError;
 * - the deadline is sent as `grpc-timeout` and also held locally: past it the stream is
 *   cancelled (RST_STREAM CANCEL, so the server sees the cancellation) and the call fails with
 *   DEADLINE_EXCEEDED, as in grpc-js;
 * - a stream the server refused without processing (REFUSED_STREAM, or past a GOAWAY's last
 *   stream id) is sent again once on a new session, as grpc-js's transparent retry does;
 * - the session holds the process open only while calls are in flight (as grpc-js's does).
 *
 * No TLS, compression or interceptors: src/rpc/client.ts uses it only for a plaintext
 * `host:port` address and the default credentials, and grpc-js for everything else.
 */
import * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { limits } from "../limits.js";
import { grpcFrame } from "./grpc-frame.js";
import { timerMsMax } from "../expiry-timer.js";
import { formatGrpcTimeout } from "./grpc-timeout.js";

/** A call's gRPC status, as grpc-js's StatusObject and ServiceError carry it. */
export interface CallStatus {
  code: grpcStatus;
  details: string;
  /** The `error-code` trailer, when the server sent one. */
  errorCode: string | undefined;
  /** The first value of the `error-details-bin` trailer, base64-decoded. */
  errorDetails: Buffer | undefined;
}

export class UnaryCallError extends Error {
  constructor(readonly status: CallStatus) {
    super(status.details);
  }
}

const {
  HTTP2_HEADER_METHOD,
  HTTP2_HEADER_PATH,
  HTTP2_HEADER_SCHEME,
  HTTP2_HEADER_AUTHORITY,
  HTTP2_HEADER_CONTENT_TYPE,
  HTTP2_HEADER_TE,
  HTTP2_HEADER_STATUS,
  NGHTTP2_CANCEL,
  NGHTTP2_NO_ERROR,
  NGHTTP2_REFUSED_STREAM,
  NGHTTP2_ENHANCE_YOUR_CALM,
  NGHTTP2_INADEQUATE_SECURITY,
} = http2.constants;

const requestOptions: http2.ClientSessionRequestOptions = { endStream: false };

/** `host:port`, `[v6]:port`: the addresses this transport takes (anything else stays on grpc-js). */
const plainAddress = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

export function isPlainAddress(address: string): boolean {
  return plainAddress.test(address);
}

/**
 * An HTTP/2 connection to a gRPC server as the lean transports open it (this one and
 * ./session-transport.ts): wide receive windows, no limit on header blocks or session memory.
 */
export function connectHttp2(origin: string): http2.ClientHttp2Session {
  const session = http2.connect(origin, {
    // Read pages may be large: a wider window than HTTP/2's 64 KiB (limits.ts).
    settings: { initialWindowSize: limits.rpcClientStreamWindowBytes },
    maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
    // As grpc-js: Node refuses new streams past maxSessionMemory, and degrades badly when it does.
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
  });
  session.on("connect", () => {
    try {
      session.setLocalWindowSize(limits.rpcClientConnectionWindowBytes);
    } catch {
      // Only a wider window; the default one works too.
    }
  });
  return session;
}

/** grpc-js's mapping of an HTTP status without a gRPC status (subchannel-call.ts). */
function statusOfHttpStatus(httpStatus: number): grpcStatus {
  switch (httpStatus) {
    case 400:
      return grpcStatus.INTERNAL;
    case 401:
      return grpcStatus.UNAUTHENTICATED;
    case 403:
      return grpcStatus.PERMISSION_DENIED;
    case 404:
      return grpcStatus.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return grpcStatus.UNAVAILABLE;
    default:
      return grpcStatus.UNKNOWN;
  }
}

export function failure(code: grpcStatus, details: string): CallStatus {
  return { code, details, errorCode: undefined, errorDetails: undefined };
}

function headerText(value: string | string[] | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value[0];
  return String(value);
}

/** The status in headers or trailers; null when they carry none (`grpc-status` absent). */
export function statusOfHeaders(headers: http2.IncomingHttpHeaders): CallStatus | null {
  const code = headerText(headers["grpc-status"]);
  if (code === undefined) return null;
  let details = "";
  const message = headerText(headers["grpc-message"]);
  if (message !== undefined) {
    try {
      details = decodeURI(message);
    } catch {
      details = message;
    }
  }
  // -bin values are base64; several values of one key arrive joined by ", " (grpc-js reads each).
  const detailsBin = headerText(headers["error-details-bin"]);
  return {
    code: Number(code) as grpcStatus,
    details,
    errorCode: headerText(headers["error-code"]),
    errorDetails:
      detailsBin === undefined ? undefined : Buffer.from(detailsBin.split(",")[0]?.trim() ?? "", "base64"),
  };
}

interface Connection {
  session: http2.ClientHttp2Session;
  /** Set once the session is closing, dead or has received GOAWAY: new calls open a new one. */
  usable: boolean;
  inFlight: number;
  /** Answers (response headers) received on the session so far. */
  answers: number;
}

export interface UnaryTransportOptions {
  /** `host:port` (see isPlainAddress). */
  address: string;
  /** Milliseconds each call may take (sent as grpc-timeout and enforced here). */
  deadlineMs?: number;
}

export class UnaryTransport {
  private readonly origin: string;
  private readonly authority: string;
  private connection: Connection | null = null;
  private closed = false;
  private headersToken: string | null | undefined = undefined;
  private readonly headersByPath = new Map<string, http2.OutgoingHttpHeaders>();
  /** `grpc-timeout` as grpc-js writes it for our deadline (milliseconds, at most 8 digits). */
  private readonly timeoutHeader: string | undefined;

  constructor(private readonly options: UnaryTransportOptions) {
    this.authority = options.address;
    this.origin = `http://${options.address}`;
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
      this.start(headers, frame, deadline, resolve, reject, true);
    }).then(decode);
  }

  /**
   * The request headers of a call: the same object for every call with the same path and token
   * (node:http2 copies what it is given), so a client sending call after call with one token
   * builds them once.
   */
  private headersFor(path: string, token: string | null): http2.OutgoingHttpHeaders {
    if (token !== this.headersToken) {
      this.headersByPath.clear();
      this.headersToken = token;
    }
    let headers = this.headersByPath.get(path);
    if (headers === undefined) {
      headers = {
        [HTTP2_HEADER_METHOD]: "POST",
        [HTTP2_HEADER_PATH]: path,
        [HTTP2_HEADER_SCHEME]: "http",
        [HTTP2_HEADER_AUTHORITY]: this.authority,
        [HTTP2_HEADER_CONTENT_TYPE]: "application/grpc",
        [HTTP2_HEADER_TE]: "trailers",
      };
      if (this.timeoutHeader !== undefined) headers["grpc-timeout"] = this.timeoutHeader;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      this.headersByPath.set(path, headers);
    }
    return headers;
  }

  /** Ends the session; calls in flight fail with UNAVAILABLE, later calls too. */
  close(): void {
    this.closed = true;
    const connection = this.connection;
    this.connection = null;
    if (connection !== null) {
      connection.usable = false;
      connection.session.destroy();
    }
  }

  private connect(): Connection {
    const current = this.connection;
    if (current !== null && current.usable) return current;
    const session = connectHttp2(this.origin);
    const connection: Connection = { session, usable: true, inFlight: 0, answers: 0 };
    const retire = (): void => this.forget(connection);
    session.on("goaway", retire);
    session.on("close", retire);
    // Each stream of a failed session fails on its own (close with no status): UNAVAILABLE.
    session.on("error", retire);
    session.unref();
    this.connection = connection;
    return connection;
  }

  /** New calls open a new session (this one keeps serving the calls already on it). */
  private forget(connection: Connection): void {
    connection.usable = false;
    if (this.connection === connection) this.connection = null;
  }

  /** New calls open a new session; this one closes once its calls in flight have ended. */
  private retire(connection: Connection): void {
    this.forget(connection);
    if (!connection.session.closed && !connection.session.destroyed) connection.session.close();
  }

  private start(
    headers: http2.OutgoingHttpHeaders,
    frame: Buffer,
    deadline: number | undefined,
    resolve: (message: Buffer) => void,
    reject: (error: Error) => void,
    mayRetry: boolean,
  ): void {
    if (this.closed) {
      reject(new UnaryCallError(failure(grpcStatus.UNAVAILABLE, "Channel has been shut down")));
      return;
    }
    const connection = this.connect();
    let stream: http2.ClientHttp2Stream;
    try {
      stream = connection.session.request(headers, requestOptions);
    } catch (error) {
      // The session closed or was destroyed under us (the request was never sent).
      this.forget(connection);
      if (mayRetry) this.start(withTimeLeft(headers, deadline), frame, deadline, resolve, reject, false);
      else
        reject(
          new UnaryCallError(
            failure(grpcStatus.UNAVAILABLE, error instanceof Error ? error.message : "connection failed"),
          ),
        );
      return;
    }
    if (connection.inFlight++ === 0) connection.session.ref();
    let responseHeaders: http2.IncomingHttpHeaders | null = null;
    let status: CallStatus | null = null;
    let chunks: Buffer[] | Buffer | null = null;
    let internalError: NodeJS.ErrnoException | null = null;
    let timer: NodeJS.Timeout | undefined;
    let deadlinePassed = false;
    // A Node timer past ~24.8 days fires after 1 ms: such a deadline is held by the server only.
    if (deadline !== undefined && deadline - Date.now() <= timerMsMax) {
      const answersBefore = connection.answers;
      timer = setTimeout(
        () => {
          // Fails at once, even if the stream is still waiting for a connection that never comes.
          deadlinePassed = true;
          reject(new UnaryCallError(failure(grpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded")));
          stream.close(NGHTTP2_CANCEL);
          // Nothing answered on the session for a whole deadline: it may be half-open (a peer or
          // a middlebox gone without a FIN or RST), which TCP would notice only after minutes.
          // New calls go to a new session; calls still in flight on this one finish or time out.
          if (connection.answers === answersBefore) this.retire(connection);
        },
        Math.max(0, deadline - Date.now()),
      );
    }
    stream.on("response", (received) => {
      connection.answers++;
      responseHeaders = received;
      // A trailers-only answer carries the status in its headers.
      status = statusOfHeaders(received);
    });
    stream.on("data", (chunk: Buffer) => {
      if (chunks === null) chunks = chunk;
      else if (Array.isArray(chunks)) chunks.push(chunk);
      else chunks = [chunks, chunk];
    });
    stream.on("trailers", (trailers: http2.IncomingHttpHeaders) => {
      status = statusOfHeaders(trailers);
    });
    stream.on("error", (error: NodeJS.ErrnoException) => {
      // Errors not made from a RST_STREAM (a socket error, the session's end) are kept for the status.
      if (error.code !== "ERR_HTTP2_STREAM_ERROR") internalError = error;
    });
    stream.on("close", () => {
      if (timer !== undefined) clearTimeout(timer);
      if (--connection.inFlight === 0) connection.session.unref();
      if (deadlinePassed) return;
      const httpStatus = responseHeaders === null ? undefined : Number(responseHeaders[HTTP2_HEADER_STATUS]);
      if (status === null) {
        // Refused before the server saw it: once more, on a new session.
        if (
          mayRetry &&
          responseHeaders === null &&
          (stream.rstCode === NGHTTP2_REFUSED_STREAM || internalError?.code === "ERR_HTTP2_GOAWAY_SESSION")
        ) {
          this.forget(connection);
          this.start(withTimeLeft(headers, deadline), frame, deadline, resolve, reject, false);
          return;
        }
        reject(new UnaryCallError(statusOfClose(stream.rstCode, httpStatus, internalError)));
        return;
      }
      const final = status;
      if (final.code !== grpcStatus.OK) {
        reject(new UnaryCallError(final));
        return;
      }
      const body = chunks === null ? null : Array.isArray(chunks) ? Buffer.concat(chunks) : chunks;
      if (body === null || body.length < 5) {
        reject(new UnaryCallError(failure(grpcStatus.UNIMPLEMENTED, "No message received")));
        return;
      }
      const length = body.readUInt32BE(1);
      if (body[0] !== 0) {
        reject(
          new UnaryCallError(
            failure(grpcStatus.INTERNAL, "Compressed message without negotiated compression"),
          ),
        );
      } else if (body.length !== 5 + length) {
        reject(
          new UnaryCallError(
            failure(
              body.length < 5 + length ? grpcStatus.INTERNAL : grpcStatus.UNIMPLEMENTED,
              body.length < 5 + length ? "Truncated message" : "Too many responses received",
            ),
          ),
        );
      } else {
        resolve(body.subarray(5));
      }
    });
    stream.end(frame);
  }
}

/** The headers of a call sent again: its grpc-timeout is the time left, not the whole deadline. */
function withTimeLeft(
  headers: http2.OutgoingHttpHeaders,
  deadline: number | undefined,
): http2.OutgoingHttpHeaders {
  if (deadline === undefined) return headers;
  return { ...headers, "grpc-timeout": formatGrpcTimeout(deadline - Date.now()) };
}

/** A stream that closed without a gRPC status: what grpc-js reports for it. */
export function statusOfClose(
  rstCode: number,
  httpStatus: number | undefined,
  internalError: NodeJS.ErrnoException | null,
): CallStatus {
  if (httpStatus !== undefined && httpStatus !== 200)
    return failure(statusOfHttpStatus(httpStatus), `Received HTTP status code ${httpStatus}`);
  switch (rstCode) {
    case NGHTTP2_NO_ERROR:
    case NGHTTP2_REFUSED_STREAM:
    case NGHTTP2_CANCEL:
      return failure(
        grpcStatus.UNAVAILABLE,
        internalError?.message ?? `Stream closed with code ${rstCode} without a gRPC status`,
      );
    case NGHTTP2_ENHANCE_YOUR_CALM:
      return failure(grpcStatus.RESOURCE_EXHAUSTED, "Bandwidth exhausted or memory limit exceeded");
    case NGHTTP2_INADEQUATE_SECURITY:
      return failure(grpcStatus.PERMISSION_DENIED, "Protocol not secure enough");
    default:
      if (internalError !== null && internalError.code !== undefined)
        return failure(grpcStatus.UNAVAILABLE, internalError.message);
      return failure(grpcStatus.INTERNAL, `Received RST_STREAM with code ${rstCode}`);
  }
}

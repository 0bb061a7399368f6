/**
 * The hop: every stream the fast carrier does not serve goes to grpc-js, which holds no port of
 * its own. For each client connection, on its first such stream, the hop opens one HTTP/2
 * connection to grpc-js through its public connection injector over an in-memory duplex pair
 * (./duplex-pair.ts), so nothing outside this process reaches grpc-js. Each stream is relayed
 * both ways: the request's headers (pseudo-headers but :method, :path, :authority and :scheme
 * left out; `x-ess-forwarded-peer` set to the client connection's `address:port`, replacing any
 * the client sent: ../grpc-js-carrier.ts reads it), data and half-close with backpressure, the
 * answer's headers and trailers (or trailers-only), and a reset either way. The client
 * connection's close closes its connection to grpc-js, whose receive window is all its streams'
 * windows together, so a client that does not read one answer holds back only that stream.
 */
import * as http2 from "node:http2";
import type { Duplex } from "node:stream";
import { limits } from "../../limits.js";
import { duplexPair } from "./duplex-pair.js";

const {
  HTTP2_HEADER_METHOD,
  HTTP2_HEADER_PATH,
  HTTP2_HEADER_AUTHORITY,
  HTTP2_HEADER_SCHEME,
  HTTP2_HEADER_STATUS,
  NGHTTP2_CANCEL,
  NGHTTP2_NO_ERROR,
  NGHTTP2_REFUSED_STREAM,
  NGHTTP2_FLAG_END_STREAM,
} = http2.constants;

/** HTTP/2's initial stream window (RFC 9113 section 6.9.2), which the inner connection keeps. */
const streamWindowBytes = 65_535;

const relayedPseudoHeaders = new Set([
  HTTP2_HEADER_METHOD,
  HTTP2_HEADER_PATH,
  HTTP2_HEADER_AUTHORITY,
  HTTP2_HEADER_SCHEME,
]);

export class GrpcJsHop {
  private readonly inner = new WeakMap<http2.Http2Session, http2.ClientHttp2Session>();

  /**
   * `forwardedPeerHeader`: the header that names the client's connection to grpc-js;
   * `injectConnection`: grpc-js's connection injector (its public `createConnectionInjector`).
   */
  constructor(
    private readonly forwardedPeerHeader: string,
    private readonly injectConnection: (connection: Duplex) => void,
  ) {}

  /** Relays `outer` (from the client connection named `peer`) to grpc-js and back. */
  forward(outer: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, peer: string): void {
    outer.on("error", noop);
    const session = outer.session === undefined ? null : this.innerSessionOf(outer.session);
    let inner: http2.ClientHttp2Stream;
    try {
      if (session === null) throw new Error("no client connection");
      inner = session.request(this.requestHeaders(headers, peer));
    } catch {
      // The connection to grpc-js is closing (the server stops): the client may send it again.
      if (!outer.closed) outer.close(NGHTTP2_REFUSED_STREAM);
      return;
    }
    relay(outer, inner);
  }

  private requestHeaders(headers: http2.IncomingHttpHeaders, peer: string): http2.OutgoingHttpHeaders {
    const relayed: http2.OutgoingHttpHeaders = {};
    for (const name of Object.keys(headers)) {
      if (name.startsWith(":") ? !relayedPseudoHeaders.has(name) : name === this.forwardedPeerHeader)
        continue;
      relayed[name] = headers[name];
    }
    relayed[this.forwardedPeerHeader] = peer;
    return relayed;
  }

  /** The connection to grpc-js for a client connection, opened on its first relayed stream. */
  private innerSessionOf(outerSession: http2.Http2Session): http2.ClientHttp2Session {
    const existing = this.inner.get(outerSession);
    if (existing !== undefined && !existing.closed && !existing.destroyed) return existing;
    const [clientEnd, serverEnd] = duplexPair();
    this.injectConnection(serverEnd);
    // No per-connection memory bound, as on the client connection it stands for (./fast-carrier.ts).
    const session = http2.connect("http://localhost", {
      createConnection: () => clientEnd,
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
    });
    session.on("error", noop);
    session.setLocalWindowSize(limits.rpcConnectionStreamsMax * streamWindowBytes);
    outerSession.once("close", () => session.close());
    this.inner.set(outerSession, session);
    return session;
  }
}

/** Relays one stream both ways until both are closed. */
function relay(outer: http2.ServerHttp2Stream, inner: http2.ClientHttp2Stream): void {
  inner.on("error", noop);
  let trailers: http2.OutgoingHttpHeaders = {};
  let responded = false;
  inner.on("response", (headers, flags) => {
    if (outer.closed || outer.destroyed) return;
    responded = true;
    const answer = withoutPseudoHeaders(headers);
    answer[HTTP2_HEADER_STATUS] = headers[HTTP2_HEADER_STATUS];
    if ((flags & NGHTTP2_FLAG_END_STREAM) !== 0) {
      // A trailers-only answer: its status is in these headers.
      outer.respond(answer, { endStream: true });
      return;
    }
    outer.respond(answer, { waitForTrailers: true });
    outer.once("wantTrailers", () => {
      if (!outer.closed && !outer.destroyed) outer.sendTrailers(trailers);
    });
    inner.pipe(outer);
  });
  inner.on("trailers", (headers: http2.IncomingHttpHeaders) => (trailers = withoutPseudoHeaders(headers)));
  outer.pipe(inner);
  outer.once("close", () => {
    if (!inner.closed && !inner.destroyed) inner.close(NGHTTP2_CANCEL);
  });
  inner.once("close", () => {
    // What the client still sends is read and dropped, as grpc-js drops it after a status.
    outer.unpipe(inner);
    outer.resume();
    const code = inner.rstCode ?? NGHTTP2_NO_ERROR;
    if (outer.closed || outer.destroyed) return;
    if (code !== NGHTTP2_NO_ERROR || !responded)
      outer.close(code === NGHTTP2_NO_ERROR ? NGHTTP2_CANCEL : code);
  });
}

function withoutPseudoHeaders(headers: http2.IncomingHttpHeaders): http2.OutgoingHttpHeaders {
  const kept: http2.OutgoingHttpHeaders = {};
  for (const name of Object.keys(headers)) if (!name.startsWith(":")) kept[name] = headers[name];
  return kept;
}

function noop(): void {}

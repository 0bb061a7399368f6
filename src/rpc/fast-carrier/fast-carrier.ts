/**
 * The fast carrier: the methods where grpc-js's per-call layers were measured to cost most of a
 * call's server CPU, served straight on their node:http2 streams (docs/rpc.md, "Carriers"): the
 * unary Append, Read and ReadAll (./unary-call.ts) and the AppendSession and ReadSession streams
 * (./session-call.ts); and Streams.Subscribe (./server-stream-call.ts), so that a subscriber that
 * stops reading can be cut off by node:http2's public API.
 *
 * It owns the HTTP/2 server on the RPC port. It takes a stream only for a method it serves, with
 * a gRPC content type and no message compression (`grpc-encoding` absent or `identity`); every
 * other stream goes to grpc-js through the hop (./hop.ts).
 */
import { lookup } from "node:dns/promises";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { ListenAddress } from "../../config/config.js";
import type { ServerTls } from "../../tls/server-tls.js";
import { timerMsMax } from "../../expiry-timer.js";
import { limits } from "../../limits.js";
import { parseGrpcTimeout } from "../grpc-timeout.js";
import type { RpcMethod } from "../methods/method.js";
import { appendPath, readAllPath, readPath } from "../methods/streams.js";
import type { FastConnections } from "./connections.js";
import { assignRequestId, type FastStreamHandler } from "./grpc-answers.js";
import { GrpcJsHop } from "./hop.js";
import {
  serverStreamMethodHandler,
  sessionMethodHandler,
  unaryMethodHandler,
  type MethodHandlerDeps,
} from "./method-handlers.js";
import { unaryFastPath, type FastUnaryMethod } from "./unary-call.js";

const { HTTP2_HEADER_PATH, HTTP2_HEADER_CONTENT_TYPE } = http2.constants;

const fastMethods: ReadonlySet<string> = new Set([
  appendPath,
  readPath,
  readAllPath,
  "/ess.v1.Streams/AppendSession",
  "/ess.v1.Streams/ReadSession",
  // Not for its cost: so that a stalled subscriber's stream can be reset (./server-stream-call.ts).
  "/ess.v1.Streams/Subscribe",
]);

/**
 * The unary methods whose calls waiting on a connection run in halves, one turn apart, from this
 * many on (./burst-queue.ts): appends only. Other unary calls (reads) run whole: halving them was
 * measured to gain nothing on the closed-loop bench (BENCHMARKS.md, "Session of 2026-11-27,
 * 12:16–15:16 UTC").
 */
const burstSplitMins: ReadonlyMap<string, number> = new Map([[appendPath, limits.unaryAppendBurstSplitMin]]);

/** The stream handlers of the fast carrier's methods of `table`, by path. */
export function fastStreamHandlers(
  table: ReadonlyMap<string, RpcMethod>,
  deps: MethodHandlerDeps,
): Map<string, FastStreamHandler> {
  const unary = new Map<string, FastUnaryMethod>();
  const handlers = new Map<string, FastStreamHandler>();
  for (const path of fastMethods) {
    const method = table.get(path);
    if (method === undefined) throw new Error(`the fast carrier's ${path} is not in the method table`);
    if (method.kind === "unary") {
      const burstSplitMin = burstSplitMins.get(path) ?? Number.POSITIVE_INFINITY;
      unary.set(path, { handler: unaryMethodHandler(method, deps), burstSplitMin });
    } else if (method.kind === "session") handlers.set(path, sessionMethodHandler(method, deps));
    else handlers.set(path, serverStreamMethodHandler(method, deps));
  }
  for (const [path, handler] of unaryFastPath(unary, deps.receiveBytesMax)) handlers.set(path, handler);
  return handlers;
}

/**
 * Serves the streams of `server`: those for `handlers`' paths here, every other one by `passOn`
 * (with a timeout grpc-js would mistake for an expired one taken out: dropUnholdableTimeout).
 */
export function dispatchStreams(
  server: CarrierServer,
  handlers: ReadonlyMap<string, FastStreamHandler>,
  passOn: FastStreamHandler,
): void {
  server.on("stream", (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => {
    const path = headers[HTTP2_HEADER_PATH];
    const handler = typeof path === "string" ? handlers.get(path) : undefined;
    if (handler !== undefined && isPlainGrpc(headers)) {
      assignRequestId(stream, headers);
      handler(stream, headers);
      return;
    }
    dropUnholdableTimeout(headers);
    passOn(stream, headers);
  });
}

export interface FastCarrierOptions {
  address: ListenAddress;
  handlers: ReadonlyMap<string, FastStreamHandler>;
  connections: FastConnections;
  /** The header that names a client's connection to grpc-js (../grpc-js-carrier.ts). */
  forwardedPeerHeader: string;
  /** grpc-js's connection injector: where the hop's connections go (./hop.ts). */
  injectConnection: (connection: Duplex) => void;
  /**
   * The TLS material: the port then serves TLS only (ALPN h2), each server following the
   * material's reloads (../../tls/server-tls.ts). The hop stays in-process plaintext.
   */
  tls?: ServerTls | null;
}

/** The port's HTTP/2 server: plaintext, or TLS. */
type CarrierServer = http2.Http2Server | http2.Http2SecureServer;

export interface FastCarrier {
  /** The bound port (the real one when port 0 was asked). */
  readonly port: number;
  /** Stops accepting connections and closes each one once its streams are done. */
  close(): Promise<void>;
  /** Cuts every connection at once. */
  destroy(): void;
}

/**
 * Listens on `address` (every address its host names, as grpc-js binds them) and serves every
 * stream: the fast carrier's methods here, every other stream through the hop to grpc-js. The
 * HTTP/2 settings are those grpc-js gives its own servers: SETTINGS_MAX_CONCURRENT_STREAMS at
 * limits.rpcConnectionStreamsMax, node:http2's per-connection memory bound off (docs/rpc.md,
 * "Per-connection bounds"), no idle timeout. With the options this server gives grpc-js, grpc-js
 * sends no keepalive pings and sets no connection age or idle limit; neither does this.
 */
export async function startFastCarrier(options: FastCarrierOptions): Promise<FastCarrier> {
  const hop = new GrpcJsHop(options.forwardedPeerHeader, options.injectConnection);
  const sessions = new Set<http2.Http2Session>();
  const passOn: FastStreamHandler = (stream, headers) =>
    hop.forward(stream, headers, options.connections.of(stream).peer);
  const servers: CarrierServer[] = [];
  const tls = options.tls ?? null;
  const makeServer = (): CarrierServer => {
    const serverOptions: http2.ServerOptions = {
      maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
      settings: { maxConcurrentStreams: limits.rpcConnectionStreamsMax },
    };
    const server: CarrierServer =
      tls === null ? http2.createServer(serverOptions) : createTlsServer(tls, serverOptions);
    server.setTimeout(0);
    server.on("session", (session: http2.ServerHttp2Session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
    dispatchStreams(server, options.handlers, passOn);
    servers.push(server);
    return server;
  };
  const port = await listenOnEvery(options.address, makeServer);
  return {
    port,
    async close() {
      await Promise.all([
        ...servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
        ...[...sessions].map((session) => new Promise<void>((resolve) => session.close(resolve))),
      ]);
    },
    destroy() {
      for (const server of servers) server.close();
      for (const session of sessions) session.destroy();
    },
  };
}

/** A TLS server (ALPN h2) with the material's pair, taking each pair it reloads. */
function createTlsServer(tls: ServerTls, options: http2.ServerOptions): http2.Http2SecureServer {
  const server = http2.createSecureServer({ ...options, ...tls.contextOptions(), ALPNProtocols: ["h2"] });
  tls.follow(server);
  // A TLS socket's errors (a peer that resets) are the server's to handle (nodejs/node#35824).
  server.on("secureConnection", (socket: Duplex) => socket.on("error", () => undefined));
  return server;
}

/**
 * Listens on every address `address.host` resolves to, on one port (the first one bound when
 * port 0 is asked), with a server each from `makeServer`; fails only when none could listen.
 */
async function listenOnEvery(address: ListenAddress, makeServer: () => CarrierServer): Promise<number> {
  const resolved = await lookup(address.host, { all: true });
  let port = address.port;
  let firstError: unknown = null;
  let bound = 0;
  for (const { address: host } of resolved) {
    const server = makeServer();
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      port = (server.address() as AddressInfo).port;
      bound++;
    } catch (error) {
      firstError ??= error;
      server.close();
    }
  }
  if (bound === 0) throw firstError;
  return port;
}

/**
 * grpc-js truncates a call's timeout to 32 bits, so a deadline past a Node timer's ~24.8 days
 * (a stock client's 41-day deadline on a subscription, sent as `3542400S`) fails the call at once
 * with DEADLINE_EXCEEDED. Such a timeout is taken out before grpc-js sees the call: no deadline,
 * as on the fast carrier.
 */
export function dropUnholdableTimeout(headers: http2.IncomingHttpHeaders): void {
  const timeout = headers["grpc-timeout"];
  if (typeof timeout === "string" && (parseGrpcTimeout(timeout) ?? 0) > timerMsMax)
    delete headers["grpc-timeout"];
}

/** A gRPC request whose messages are not compressed (grpc-js handles the others). */
function isPlainGrpc(headers: http2.IncomingHttpHeaders): boolean {
  const contentType = headers[HTTP2_HEADER_CONTENT_TYPE];
  const encoding = headers["grpc-encoding"];
  return (
    typeof contentType === "string" &&
    contentType.startsWith("application/grpc") &&
    (encoding === undefined || encoding === "identity")
  );
}

/**
 * The WebSocket interface's listener (docs/contract.md "WebSocket protocol"): its own HTTP server on
 * SERVICE_WS_ADDRESS, upgrading only `/v1/subscribe`. The upgrade logic is the
 * SubscribeEndpoint, which the REST listener shares when both are enabled (./rest-upgrade.ts).
 *
 * Invariants:
 * - a token in the upgrade's Authorization header is verified before the upgrade; a bad one is
 *   refused with HTTP 401 and the contract's error body, so no socket opens for it;
 * - every other request gets the contract's error body (404 for another path, 426 for a plain
 *   HTTP request to /v1/subscribe, 431 for headers too large, 400 for malformed HTTP);
 * - close() stops accepting, closes every connection with 1001 and resolves once all are gone
 *   (bounded by the close timeout).
 */
import { acceptRequestId, newRequestId, requestIdHeader } from "../contract/request-id.js";
import { STATUS_CODES, createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Duplex } from "node:stream";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type ServerOptions } from "ws";
import {
  EssError,
  invalidArgument,
  payloadTooLarge,
  toEssError,
  upgradeRequired,
  type ErrorBody,
} from "../errors.js";
import { limits } from "../limits.js";
import { logger } from "../logger.js";
import type { ListenAddress } from "../config/config.js";
import { bearerTokenOf } from "../contract/rules.js";
import type { SubscriptionService } from "../operations/subscribe.js";
import { Connection } from "./connection.js";
import { closeCodes } from "./close-codes.js";
import type { ServerTls } from "../tls/server-tls.js";

export const subscribePath = "/v1/subscribe";

/** The rules of /v1/subscribe, whichever listener takes its upgrades. */
export interface SubscribeEndpointOptions {
  subscriptions: SubscriptionService;
  /** Bytes queued to one client before its subscriptions pause. Default limits.subscriberBufferBytesMax. */
  bufferBytesMax?: number;
  /** Milliseconds past the bound before a client is disconnected. Default limits.subscriberStallMsMax. */
  stallMsMax?: number;
  /** Milliseconds between pings. Default limits.wsPingIntervalMs. */
  pingIntervalMs?: number;
  /** Milliseconds a connection has to authenticate. Default limits.wsAuthTimeoutMs. */
  authTimeoutMs?: number;
  /** Milliseconds the closing handshake may take before the socket is destroyed. Default 5000. */
  closeTimeoutMs?: number;
}

export interface WebSocketServerOptions extends SubscribeEndpointOptions {
  address: ListenAddress;
  /** The TLS material: the listener then serves WSS only, following its reloads. Default: plain. */
  tls?: ServerTls | null;
}

export interface RunningWebSocketServer {
  /** Where it listens (the real port when 0 was asked). */
  address: ListenAddress;
  readonly connectionCount: number;
  close(): Promise<void>;
}

/**
 * /v1/subscribe's upgrades and the connections they open, for one HTTP server: the WebSocket
 * listener's own, or the REST listener's (./rest-upgrade.ts).
 */
export interface SubscribeEndpoint {
  /** An upgrade request of the server: /v1/subscribe is upgraded, any other path refused (404). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  readonly connectionCount: number;
  /**
   * Refuses upgrades from now on (503), closes every connection with 1001 and resolves once all
   * are gone (bounded by the close timeout).
   */
  close(): Promise<void>;
}

export function createSubscribeEndpoint(options: SubscribeEndpointOptions): SubscribeEndpoint {
  const connectionOptions = {
    bufferBytesMax: options.bufferBytesMax ?? limits.subscriberBufferBytesMax,
    stallMsMax: options.stallMsMax ?? limits.subscriberStallMsMax,
    authTimeoutMs: options.authTimeoutMs ?? limits.wsAuthTimeoutMs,
  };
  const connections = new Set<Connection>();
  let closing = false;
  // ws 8.18 added closeTimeout; @types/ws does not list it yet, so it is passed as a variable.
  const serverOptions: ServerOptions & { closeTimeout: number } = {
    noServer: true,
    maxPayload: limits.wsMessageBytesMax,
    perMessageDeflate: false,
    clientTracking: true,
    closeTimeout: options.closeTimeoutMs ?? 5000,
    // Text frames that are not UTF-8 are answered with an INVALID_ARGUMENT error message, as every
    // interface refuses such text (./connection.ts), instead of ws closing the connection (1007).
    skipUTF8Validation: true,
  };
  const wss = new WebSocketServer(serverOptions);
  // The upgrade's answer carries the request id too (../contract/request-id.ts).
  const requestIds = new WeakMap<IncomingMessage, string>();
  wss.on("headers", (headers: string[], request: IncomingMessage) => {
    const id = requestIds.get(request);
    if (id !== undefined) headers.push(`X-Request-Id: ${id}`);
  });

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const requestId = acceptRequestId(request.headers[requestIdHeader]);
    if (pathOf(request) !== subscribePath) {
      refuse(
        socket,
        404,
        new EssError("NOT_FOUND", `no route ${pathOf(request)}; subscribe at ${subscribePath}`),
        requestId,
      );
      return;
    }
    if (closing) {
      refuse(socket, 503, new EssError("UNAVAILABLE", "the service is shutting down"), requestId);
      return;
    }
    let connection: Connection | null = null;
    const session = options.subscriptions.openSession({
      onExpired: () => connection?.expired(),
      carrier: "ws",
    });
    const header = request.headers.authorization;
    if (header !== undefined) {
      try {
        // The one bearer rule of every interface (../contract/rules.ts).
        await session.authenticate(bearerTokenOf(header));
      } catch (error) {
        session.close();
        const essError = toEssError(error);
        const status = { UNAUTHENTICATED: 401, UNAVAILABLE: 503 }[essError.code as string] ?? 500;
        refuse(socket, status, essError, requestId);
        return;
      }
    }
    if (socket.destroyed || closing) {
      session.close();
      socket.destroy();
      return;
    }
    requestIds.set(request, requestId);
    wss.handleUpgrade(request, socket, head, (ws) => {
      connection = new Connection(ws, socket, session, { ...connectionOptions, requestId });
      const added = connection;
      connections.add(added);
      ws.on("close", () => connections.delete(added));
    });
  }

  const pingTimer = setInterval(() => {
    for (const connection of connections) connection.heartbeat();
  }, options.pingIntervalMs ?? limits.wsPingIntervalMs);
  pingTimer.unref();

  return {
    handleUpgrade(request, socket, head) {
      socket.on("error", (error) => logger.debug("websocket upgrade socket error", { error: error.message }));
      void upgrade(request, socket, head);
    },
    get connectionCount() {
      return connections.size;
    },
    async close() {
      closing = true;
      clearInterval(pingTimer);
      for (const connection of connections)
        connection.closeWith(closeCodes.goingAway, "the service is shutting down");
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      // Connections whose close handshake does not finish are destroyed by the close timeout.
      while (connections.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}

export async function startWebSocketServer(options: WebSocketServerOptions): Promise<RunningWebSocketServer> {
  const endpoint = createSubscribeEndpoint(options);
  const answer = (request: IncomingMessage, response: ServerResponse): void =>
    answerPlainRequest(request, response);
  const tls = options.tls ?? null;
  const http = tls === null ? createServer(answer) : followingHttpsServer(tls, answer);

  // Requests Node's HTTP parser refuses (headers past its limit, malformed HTTP) never reach the
  // handlers above; Node's own answer has no body, so they are answered here in the same shape.
  http.on("clientError", (error: Error & { code?: string }, socket: Duplex) =>
    refuseBadRequest(error, socket),
  );

  http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) =>
    endpoint.handleUpgrade(request, socket, head),
  );

  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(options.address.port, options.address.host, () => {
        http.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await endpoint.close();
    throw error;
  }
  const bound = http.address() as AddressInfo;

  return {
    address: { host: options.address.host, port: bound.port },
    get connectionCount() {
      return endpoint.connectionCount;
    },
    async close() {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      await endpoint.close();
      http.closeAllConnections();
      await closed;
    },
  };
}

/** An HTTPS server with the TLS material's pair, taking each pair it reloads. */
function followingHttpsServer(
  tls: ServerTls,
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): ReturnType<typeof createHttpsServer> {
  const server = createHttpsServer(tls.contextOptions(), answer);
  tls.follow(server);
  return server;
}

function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? "/", "http://localhost").pathname;
}

function answerPlainRequest(request: IncomingMessage, response: ServerResponse): void {
  const plain = pathOf(request) === subscribePath;
  const error = plain
    ? upgradeRequired(subscribePath)
    : new EssError("NOT_FOUND", `no route ${pathOf(request)}; subscribe at ${subscribePath}`);
  const body = JSON.stringify(error.toBody());
  response.writeHead(plain ? 426 : 404, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    ...(plain ? { Upgrade: "websocket" } : {}),
  });
  response.end(body);
}

/**
 * A request the HTTP parser refused: 431 for headers over Node's limit, 408 for one that did
 * not arrive in time, 400 for anything else, each with the contract's error body. Nothing is
 * written on a connection that already had an answer (as Node's own handler does).
 */
function refuseBadRequest(
  error: Error & { code?: string },
  socket: Duplex & { bytesWritten?: number },
): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  if (!socket.writable || (socket.bytesWritten ?? 0) > 0) {
    socket.destroy();
    return;
  }
  if (error.code === "HPE_HEADER_OVERFLOW") {
    refuse(socket, 431, payloadTooLarge("the request headers are too large"));
  } else if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    refuse(socket, 408, invalidArgument("the request did not arrive in time", { reason: error.code }));
  } else {
    refuse(
      socket,
      400,
      invalidArgument("the request is not valid HTTP", { reason: error.code ?? "bad request" }),
    );
  }
}

/** Answers an upgrade request with an HTTP error and the contract's error body, then hangs up. */
function refuse(socket: Duplex, status: number, error: EssError, requestId = newRequestId()): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(error.toBody() satisfies ErrorBody);
  const reason = STATUS_CODES[status] ?? "Error";
  const headers = [
    `HTTP/1.1 ${status} ${reason}`,
    "Connection: close",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    ...(status === 401 ? ["WWW-Authenticate: Bearer"] : []),
  ];
  socket.end(headers.join("\r\n") + "\r\n\r\n" + body);
}

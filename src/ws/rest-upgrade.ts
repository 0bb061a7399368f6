/**
 * The WebSocket upgrade on the REST listener (docs/contract.md "WebSocket protocol"): when the REST gateway and
 * the WebSocket interface are both enabled, the REST listener also takes the upgrade at
 * `/v1/subscribe`, so a page served by the gateway (the console) subscribes on its own origin.
 * Protocol, authentication and bounds are the WebSocket listener's own: the same
 * SubscribeEndpoint (./server.ts).
 *
 * Once a Node HTTP server has an 'upgrade' listener, every request with `Connection: upgrade`
 * goes to it instead of to the routes. So:
 * - a WebSocket upgrade to any other path is refused with the contract's error body (404);
 * - an upgrade to another protocol (curl --http2 asks for h2c on plain HTTP) is served as the
 *   HTTP/1.1 request it also is, as it was before the listener existed: its head is written
 *   again without the upgrade headers and the socket handed back to the server as a new
 *   connection, which parses it (body and pipelined requests included) like any other.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { createSubscribeEndpoint, type SubscribeEndpoint, type SubscribeEndpointOptions } from "./server.js";

/** Headers that only mean something to the upgrade itself. */
const upgradeOnlyHeaders = new Set(["upgrade", "http2-settings"]);

function isWebSocketUpgrade(request: IncomingMessage): boolean {
  const upgrade = request.headers.upgrade;
  return (
    typeof upgrade === "string" &&
    upgrade.split(",").some((protocol) => protocol.trim().toLowerCase() === "websocket")
  );
}

/** The request's head as sent, less what asks for the upgrade. Header values hold no CR or LF (the parser refused those). */
function headWithoutUpgrade(request: IncomingMessage): Buffer {
  const lines = [`${request.method ?? "GET"} ${request.url ?? "/"} HTTP/${request.httpVersion}`];
  const raw = request.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const lower = name.toLowerCase();
    if (upgradeOnlyHeaders.has(lower)) continue;
    if (lower === "connection") {
      const kept = value
        .split(",")
        .map((token) => token.trim())
        .filter((token) => token !== "" && !upgradeOnlyHeaders.has(token.toLowerCase()));
      if (kept.length > 0) lines.push(`${name}: ${kept.join(", ")}`);
      continue;
    }
    lines.push(`${name}: ${value}`);
  }
  // latin1: the bytes as the parser read them (Node decodes header bytes as latin1).
  return Buffer.from(lines.join("\r\n") + "\r\n\r\n", "latin1");
}

/** Makes `server` (the REST listener's) take /v1/subscribe upgrades; close the endpoint before the server. */
export function acceptSubscribeUpgrades(
  server: Server,
  options: SubscribeEndpointOptions,
): SubscribeEndpoint {
  const endpoint = createSubscribeEndpoint(options);
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (isWebSocketUpgrade(request)) {
      endpoint.handleUpgrade(request, socket, head);
      return;
    }
    socket.unshift(Buffer.concat([headWithoutUpgrade(request), head]));
    server.emit("connection", socket);
  });
  return endpoint;
}

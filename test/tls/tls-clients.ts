// Real TLS clients of the service's listeners, for the TLS tests: a bare TLS handshake that
// reports the certificate a new connection gets, node's https for REST, the `ws` client for WSS,
// and their plaintext counterparts, which must fail cleanly against a TLS listener.
import { get as httpGet } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect } from "node:tls";
import WebSocket from "ws";

/** The SHA-256 fingerprint of the certificate a new TLS connection to `port` gets. */
export function peerFingerprint(port: number, ca: Buffer, alpn: "h2" | "http/1.1"): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca, ALPNProtocols: [alpn] }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.destroy();
      resolve(fingerprint);
    });
    socket.once("error", reject);
  });
}

export interface HttpAnswer {
  status: number;
  body: string;
}

/** One HTTPS request to 127.0.0.1:`port`, trusting `ca`. */
export function httpsCall(
  port: number,
  ca: Buffer,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const request = httpsRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        ca,
        agent: false,
        headers: {
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.once("error", reject);
    request.end(body);
  });
}

/** A plaintext GET to a port: resolves with its status, rejects with the connection's error. */
export function plainHttpGet(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet({ host: "127.0.0.1", port, path, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once("error", reject);
  });
}

/** A WebSocket client of /v1/subscribe that records what it receives. */
export class WsSubscriber {
  readonly messages: { type: string; id?: string; event?: { revision: number } }[] = [];
  closed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => this.messages.push(JSON.parse(data.toString()) as never));
    ws.on("close", () => (this.closed = true));
    ws.on("error", () => undefined);
  }

  /** Opens `url` (wss:// with `ca`, or ws://), authenticated by the upgrade's header. */
  static open(url: string, token: string, ca?: Buffer): Promise<WsSubscriber> {
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${token}` },
      perMessageDeflate: false,
      ...(ca === undefined ? {} : { ca }),
    });
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new WsSubscriber(ws)));
      ws.once("error", reject);
    });
  }

  subscribe(id: string, stream: string): void {
    this.ws.send(JSON.stringify({ type: "subscribe", id, stream, from: 0 }));
  }

  revisions(id: string): number[] {
    return this.messages.filter((m) => m.type === "event" && m.id === id).map((m) => m.event!.revision);
  }

  async until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}: ${JSON.stringify(this.messages)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  close(): void {
    this.ws.close();
  }
}

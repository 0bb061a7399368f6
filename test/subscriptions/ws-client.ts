// A test client for the WebSocket interface: a real `ws` client over a real TCP socket, which
// records every message and close, and can stop reading its socket to play a stalled client.
import { connect, type Socket } from "node:net";
import WebSocket from "ws";

export interface ServerMessage {
  type: string;
  id?: string;
  event?: {
    stream_id: string;
    revision: number;
    position: number;
    event_id: string;
    event_type: string;
    data: unknown;
    metadata: unknown;
    created_at: string;
  };
  error?: { code: string; message: string; details?: Record<string, unknown> };
  /** A checkpoint's position. */
  position?: number;
}

export class TestClient {
  readonly messages: ServerMessage[] = [];
  readonly raw: string[] = [];
  closed: { code: number; reason: string } | null = null;
  socket: Socket | null = null;
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => {
      const text = data.toString();
      this.raw.push(text);
      this.messages.push(JSON.parse(text) as ServerMessage);
      this.notify();
    });
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.notify();
    });
    ws.on("error", () => undefined);
  }

  static async open(port: number, token?: string, path = "/v1/subscribe"): Promise<TestClient> {
    let socket: Socket | null = null;
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, {
      headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      perMessageDeflate: false,
      // Keeps the client's TCP socket so a test can stop reading it (a stalled client).
      createConnection: ((options: { port?: number | string }) => {
        socket = connect({ host: "127.0.0.1", port: Number(options.port) });
        return socket;
      }) as typeof connect,
    });
    const client = new TestClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("unexpected-response", (_request, response) =>
        reject(new Error(`upgrade refused: ${response.statusCode ?? 0}`)),
      );
      ws.once("error", reject);
    });
    client.socket = socket;
    return client;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  subscribe(id: string, stream: string, from: number | "end" = 0, extra: Record<string, unknown> = {}): void {
    this.send({ type: "subscribe", id, stream, from, ...extra });
  }

  eventsOf(id: string): NonNullable<ServerMessage["event"]>[] {
    return this.messages.filter((m) => m.type === "event" && m.id === id).map((m) => m.event!);
  }

  of(type: string, id?: string): ServerMessage[] {
    return this.messages.filter((m) => m.type === type && (id === undefined || m.id === id));
  }

  until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      this.waiters.push({
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  untilEvents(id: string, count: number, timeoutMs?: number): Promise<void> {
    return this.until(() => this.eventsOf(id).length >= count, `${count} events on ${id}`, timeoutMs);
  }

  untilMessage(type: string, id?: string, timeoutMs?: number): Promise<void> {
    return this.until(() => this.of(type, id).length > 0, `a ${type} message`, timeoutMs);
  }

  untilClosed(timeoutMs?: number): Promise<{ code: number; reason: string }> {
    return this.until(() => this.closed !== null, "close", timeoutMs).then(() => this.closed!);
  }

  close(): void {
    this.ws.terminate();
  }

  private notify(): void {
    this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
  }
}

/**
 * One live subscription over the WebSocket interface (docs/websocket.md): a stream's events, or
 * the tenant's global order (`$all`), history first, then live.
 *
 * Invariants:
 * - the token goes only in the first message (`{"type":"auth"}`), never in the URL;
 * - events reach `onEvent` in order, each once: the subscription keeps a cursor (the revision,
 *   or position for `$all`, after the last event delivered), subscribes again from it after a
 *   reconnect, and drops anything below it;
 * - a connection that drops (service restart, network, stall) is opened again after a delay that
 *   grows (`retryDelaysMs`) and starts over once events flow again; one that is refused for its
 *   token (close 4401, an UNAUTHENTICATED error) asks the session for a new token (the re-login
 *   dialog) and reconnects at once with it, or stops if the operator gives up;
 * - a new token of the session reaches an open connection as an `auth` message, which moves the
 *   connection's expiry (same user); the server refuses another user's token on a connection,
 *   so then the connection is opened anew with it;
 * - a refusal of the subscription itself (PERMISSION_DENIED, DATA_CORRUPTED...) stops it with
 *   that error: retrying would get the same answer.
 *
 * No DOM type here: the socket and the timers are passed in, so the unit tests drive both.
 */
import type { EventRecord } from "./contract.js";

export interface SocketHandlers {
  open(): void;
  message(text: string): void;
  close(code: number, reason: string): void;
}

export interface SocketHandle {
  send(text: string): void;
  close(code?: number, reason?: string): void;
}

/** Opens a WebSocket to `url` and reports to `handlers`; the browser's adapter is in ../socket.ts. */
export type OpenSocket = (url: string, handlers: SocketHandlers) => SocketHandle;

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface LiveTarget {
  /** A stream id, or "$all" for the tenant's global order. */
  stream: string;
  /** An admin's other tenant; null: the caller's own. */
  tenant: string | null;
  /** The first revision (position for $all) to deliver, or "end" for new events only. */
  from: number | "end";
}

export interface ErrorInfo {
  code: string;
  message: string;
}

export type LiveState =
  | { kind: "connecting" }
  | { kind: "catching-up" }
  | { kind: "live" }
  /** `everOpened`: whether any connection of this subscription opened (else the interface may be off). */
  | { kind: "retrying"; delayMs: number; closeCode: number; everOpened: boolean }
  | { kind: "stopped"; error: ErrorInfo | null };

export interface LiveOptions {
  /** ws:// or wss:// URL of /v1/subscribe. */
  url: string;
  openSocket: OpenSocket;
  timers: Timers;
  target: LiveTarget;
  token(): string | null;
  /**
   * `refusedToken` was refused or expired (null: there was none): a newer token (the session
   * already has one, or the operator logged in again), or null when the operator gave up.
   */
  reauthenticate(refusedToken: string | null): Promise<string | null>;
  onEvent(event: EventRecord): void;
  onState(state: LiveState): void;
  /** Delays before reconnecting, by attempt; the last one repeats. */
  retryDelaysMs?: readonly number[];
}

export const retryDelaysMsDefault = [500, 1000, 2000, 5000, 10000, 30000] as const;

/** Closes the client cannot recover from by retrying: its own messages were refused. */
const protocolCloseCodes = new Set([1003, 1007, 1008, 1009]);
const unauthenticatedClose = 4401;
const subscriptionId = "console";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorInfoOf(value: unknown): ErrorInfo {
  if (isRecord(value) && typeof value.code === "string" && typeof value.message === "string") {
    return { code: value.code, message: value.message };
  }
  return { code: "INTERNAL", message: "the service sent an error without a code" };
}

export class LiveSubscription {
  private socket: SocketHandle | null = null;
  /** Incremented per connection: handlers of a replaced socket do nothing. */
  private generation = 0;
  private cursor: number | "end";
  private attempt = 0;
  private retryTimer: unknown = null;
  private sentToken: string | null = null;
  private tokenRefused = false;
  private everOpened = false;
  private stopped = false;
  private readonly retryDelaysMs: readonly number[];

  constructor(private readonly options: LiveOptions) {
    this.cursor = options.target.from;
    this.retryDelaysMs = options.retryDelaysMs ?? retryDelaysMsDefault;
  }

  start(): void {
    this.connect();
  }

  stop(error: ErrorInfo | null = null): void {
    if (this.stopped) return;
    this.stopped = true;
    this.clearRetry();
    this.generation += 1;
    this.socket?.close(1000, "done");
    this.socket = null;
    this.options.onState({ kind: "stopped", error });
  }

  /** The session's token changed (a re-login): the open connection takes it on. */
  refreshToken(token: string): void {
    if (this.stopped || this.socket === null || token === this.sentToken) return;
    this.sentToken = token;
    this.socket.send(JSON.stringify({ type: "auth", token }));
  }

  private connect(): void {
    if (this.stopped) return;
    const token = this.options.token();
    if (token === null) {
      this.reauthenticate(null);
      return;
    }
    this.generation += 1;
    const generation = this.generation;
    const current = () => generation === this.generation && !this.stopped;
    this.tokenRefused = false;
    this.options.onState({ kind: "connecting" });
    const socket = this.options.openSocket(this.options.url, {
      open: () => {
        if (!current()) return;
        this.everOpened = true;
        this.sentToken = token;
        socket.send(JSON.stringify({ type: "auth", token }));
        const { stream, tenant } = this.options.target;
        socket.send(
          JSON.stringify({
            type: "subscribe",
            id: subscriptionId,
            stream,
            from: this.cursor,
            ...(tenant === null ? {} : { tenant }),
          }),
        );
        this.options.onState({ kind: "catching-up" });
      },
      message: (text) => {
        if (current()) this.handleMessage(text);
      },
      close: (code) => {
        if (current()) this.handleClose(code);
      },
    });
    this.socket = socket;
  }

  private handleMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(message)) return;
    const forUs = message.id === subscriptionId;
    switch (message.type) {
      case "event": {
        if (!forUs || !isRecord(message.event)) return;
        const event = message.event as unknown as EventRecord;
        const key = this.options.target.stream === "$all" ? event.position : event.revision;
        if (typeof key !== "number" || (typeof this.cursor === "number" && key < this.cursor)) return;
        this.cursor = key + 1;
        this.attempt = 0;
        this.options.onEvent(event);
        return;
      }
      case "caught_up":
        if (!forUs) return;
        this.attempt = 0;
        this.options.onState({ kind: "live" });
        return;
      case "error": {
        const error = errorInfoOf(message.error);
        if (error.code === "UNAUTHENTICATED") {
          // The close (4401) follows; then the session is asked for a token.
          this.tokenRefused = true;
          return;
        }
        if (forUs) {
          this.stop(error);
          return;
        }
        if (error.code === "INVALID_ARGUMENT" && this.sentToken !== null) {
          // Another user's token on this connection: open a new one for that user.
          this.reconnectNow();
        }
        return;
      }
      default:
        return;
    }
  }

  private handleClose(code: number): void {
    this.socket = null;
    if (code === unauthenticatedClose || this.tokenRefused) {
      this.reauthenticate(this.sentToken);
      return;
    }
    if (protocolCloseCodes.has(code)) {
      this.stop({ code: "CONSOLE_ERROR", message: `the service closed the connection (${code})` });
      return;
    }
    const delayMs = this.retryDelaysMs[Math.min(this.attempt, this.retryDelaysMs.length - 1)] ?? 1000;
    this.attempt += 1;
    this.options.onState({ kind: "retrying", delayMs, closeCode: code, everOpened: this.everOpened });
    this.retryTimer = this.options.timers.setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delayMs);
  }

  private reauthenticate(refusedToken: string | null): void {
    this.options.onState({ kind: "connecting" });
    this.options.reauthenticate(refusedToken).then(
      (token) => {
        if (this.stopped) return;
        if (token === null) {
          this.stop({ code: "UNAUTHENTICATED", message: "log in again to resume the live tail" });
          return;
        }
        this.connect();
      },
      () => this.stop({ code: "UNAUTHENTICATED", message: "log in again to resume the live tail" }),
    );
  }

  private reconnectNow(): void {
    this.generation += 1;
    this.socket?.close(1000, "new user");
    this.socket = null;
    this.connect();
  }

  private clearRetry(): void {
    if (this.retryTimer !== null) this.options.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }
}

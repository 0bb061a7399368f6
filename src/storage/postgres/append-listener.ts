/**
 * Hears every node's appends: one dedicated connection LISTENs on `ess_append`, where every
 * append transaction sends a small pg_notify payload (tenant, stream, revisions, positions).
 * PostgreSQL delivers notifications in commit order, and the engine commits in position order,
 * so notices arrive in position order.
 *
 * When the connection drops, notices sent meanwhile are lost; the listener reconnects (with
 * backoff), LISTENs again and then calls `onReconnected`, which reads from the events table
 * what was appended since the last notice it saw and wakes subscribers with that. A heartbeat
 * query finds a connection that died silently.
 */
import pg from "pg";
import type { Logger } from "../../logger.js";
import type { AppendNotice } from "../engine.js";

import { createHash } from "node:crypto";

/**
 * The notification channel of the engine working in `schema`: `ess_append` in the default
 * schema, `ess_append_<hash>` in any other, so services in different schemas of one database
 * do not hear each other (channels are database-wide).
 */
export function appendChannelFor(schema: string): string {
  if (schema === "public") return "ess_append";
  return `ess_append_${createHash("sha256").update(schema).digest("hex").slice(0, 16)}`;
}

/** Milliseconds between heartbeat queries on the listening connection. */
const heartbeatIntervalMs = 5_000;
/** Milliseconds of reconnect backoff, doubling from the first to the last. */
const reconnectDelayMsMin = 50;
const reconnectDelayMsMax = 2_000;

/** Payload: [tenant_id, stream_id, first_revision, last_revision, first_position, last_position]. */
export function parseNoticePayload(payload: string): AppendNotice | null {
  try {
    const value: unknown = JSON.parse(payload);
    if (!Array.isArray(value) || value.length !== 6) return null;
    const [tenant_id, stream_id, fr, lr, fp, lp] = value as unknown[];
    if (typeof tenant_id !== "string" || typeof stream_id !== "string") return null;
    const numbers = [fr, lr, fp, lp].map(Number);
    if (!numbers.every((n) => Number.isSafeInteger(n))) return null;
    return {
      tenant_id,
      stream_id,
      first_revision: numbers[0] ?? 0,
      last_revision: numbers[1] ?? 0,
      first_position: numbers[2] ?? 0,
      last_position: numbers[3] ?? 0,
    };
  } catch {
    return null;
  }
}

export interface AppendListenerOptions {
  connection: pg.ClientConfig;
  /** From appendChannelFor: only [a-z0-9_]. */
  channel: string;
  logger: Logger;
  onNotice: (notice: AppendNotice) => void;
  /** Called after every (re)connection once LISTEN is active, before live notices flow again. */
  onConnected: (client: pg.Client) => Promise<void>;
}

export class PostgresAppendListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private delayMs = reconnectDelayMsMin;
  /** Live notices held while onConnected catches up, so they are told after it. */
  private held: AppendNotice[] | null = null;
  private connecting: Promise<void> | null = null;
  /** Times the listening connection was (re)established; for tests and status. */
  connections = 0;

  constructor(private readonly options: AppendListenerOptions) {}

  /** Connects and LISTENs; rejects when the first connection cannot be made. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** The backend pid of the listening connection (tests terminate it to simulate a drop). */
  get backendPid(): number | null {
    const pid = (this.client as unknown as { processID?: number } | null)?.processID;
    return typeof pid === "number" ? pid : null;
  }

  private connect(): Promise<void> {
    if (this.connecting) return this.connecting;
    this.connecting = this.connectOnce().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connectOnce(): Promise<void> {
    const client = new pg.Client({ ...this.options.connection, keepAlive: true });
    let dropped = false;
    const onDrop = (error?: Error): void => {
      if (dropped) return;
      dropped = true;
      if (this.client === client) this.client = null;
      this.stopHeartbeat();
      client.removeAllListeners("notification");
      client.end().catch(() => undefined);
      if (!this.stopped) {
        this.options.logger.warn("postgres listening connection dropped; reconnecting", {
          error: error?.message,
        });
        this.scheduleReconnect();
      }
    };
    client.on("error", (error) => onDrop(error));
    client.on("end", () => onDrop());
    client.on("notification", (message) => {
      if (message.channel !== this.options.channel || message.payload === undefined) return;
      const notice = parseNoticePayload(message.payload);
      if (!notice) return;
      if (this.held) this.held.push(notice);
      else this.options.onNotice(notice);
    });
    await client.connect();
    try {
      this.held = [];
      await client.query(`LISTEN ${this.options.channel}`);
      await this.options.onConnected(client);
      const held = this.held;
      this.held = null;
      for (const notice of held) this.options.onNotice(notice);
    } catch (error) {
      this.held = null;
      onDrop(error as Error);
      throw error;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.connections += 1;
    this.delayMs = reconnectDelayMsMin;
    this.startHeartbeat(client);
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, reconnectDelayMsMax);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect().catch((error: Error) => {
        this.options.logger.warn("postgres listening connection failed", { error: error.message });
        this.scheduleReconnect();
      });
    }, delay);
    this.reconnectTimer.unref();
  }

  private startHeartbeat(client: pg.Client): void {
    this.stopHeartbeat();
    this.heartbeatTimer = setInterval(() => {
      client.query("SELECT 1").catch((error: Error) => client.emit("error", error));
    }, heartbeatIntervalMs);
    this.heartbeatTimer.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.stopHeartbeat();
    if (this.connecting) await this.connecting.catch(() => undefined);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners("end");
      client.removeAllListeners("error");
      client.on("error", () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}

/**
 * One WebSocket client: translates its frames to the subscription operations and their
 * results back to frames. The rules (auth, tenancy, validation, exact delivery) live in
 * ../operations/subscribe.ts; this file only speaks the protocol and measures the send buffer.
 *
 * Invariants:
 * - client messages are handled one at a time, in arrival order (an `auth` followed at once by
 *   a `subscribe` works); at most `messagesPendingMax` wait, beyond that the socket is paused;
 * - bytes queued to the socket are counted from send to its write callback; past the bound the
 *   connection's gate closes and every subscription on it stops sending until the client has
 *   read half of it. A gate closed longer than the stall timeout closes the connection (4008);
 * - a peer that misses a pong between two pings is dropped, except while its gate is closed:
 *   then the stall rule decides (a client that stopped reading cannot answer pings either);
 * - once the connection is closing, nothing else is queued to it.
 */
import type { Duplex } from "node:stream";
import type { WebSocket, RawData } from "ws";
import { EssError, toEssError } from "../errors.js";
import { isUtf8Bytes } from "../contract/rules.js";
import { logger } from "../logger.js";
import { TickCork } from "../tick-cork.js";
import type { EventRecord } from "../contract/bodies.js";
import { ByteWindow, FlowGate } from "../operations/subscription/flow-gate.js";
import { validateSubscriptionId, type SubscriptionSession } from "../operations/subscribe.js";
import type { SubscriptionSink } from "../operations/subscription/subscription.js";
import { closeCodeForError, closeCodes } from "./close-codes.js";
import {
  caughtUpMessage,
  checkpointMessage,
  errorMessage,
  eventMessage,
  parseClientMessage,
  unsubscribedMessage,
  type ClientMessage,
} from "./messages.js";

export interface ConnectionOptions {
  /** Bytes queued to one client before its subscriptions pause. */
  bufferBytesMax: number;
  /** Milliseconds a client may stay past the bound before it is disconnected (close 4008). */
  stallMsMax: number;
  /** Milliseconds an unauthenticated connection may stay open (close 4401). */
  authTimeoutMs: number;
  /** The upgrade's request id (../contract/request-id.ts), for the connection's log lines. */
  requestId?: string;
}

const notUtf8Message = new EssError("INVALID_ARGUMENT", "the message is not valid UTF-8");
const unauthenticatedFirst = new EssError(
  "UNAUTHENTICATED",
  "authenticate first (Authorization header or an auth message)",
);

/** Client messages waiting to be handled before the socket is paused. */
const messagesPendingMax = 16;

export class Connection {
  private readonly gate: FlowGate;
  private readonly window: ByteWindow;
  private closing = false;
  private alive = true;
  private pending = 0;
  private queue: Promise<void> = Promise.resolve();
  private authTimer: NodeJS.Timeout | null = null;

  private readonly cork: TickCork;
  private readonly requestId: string | undefined;

  constructor(
    private readonly ws: WebSocket,
    /** The upgraded TCP socket, corked while a burst of frames is queued (one write for many). */
    private readonly socket: Duplex,
    private readonly session: SubscriptionSession,
    options: ConnectionOptions,
  ) {
    this.requestId = options.requestId;
    this.cork = new TickCork(socket);
    this.gate = new FlowGate({
      stallMsMax: options.stallMsMax,
      onStall: () =>
        this.closeWith(
          closeCodes.stalled,
          `stalled: send buffer full for more than ${options.stallMsMax} ms`,
        ),
    });
    this.window = new ByteWindow(this.gate, options.bufferBytesMax);
    if (!session.isAuthenticated) {
      this.authTimer = setTimeout(
        () => this.closeWith(closeCodes.unauthenticated, "authentication timed out"),
        options.authTimeoutMs,
      );
      this.authTimer.unref();
    }
    ws.on("message", (data, isBinary) => this.receive(data, isBinary));
    ws.on("pong", () => (this.alive = true));
    ws.on("close", () => this.release());
    ws.on("error", (error) => logger.debug("websocket error", { error: error.message }));
  }

  /** The token expired: its subscriptions have ended with an error each; now end the connection. */
  expired(): void {
    this.closeWith(closeCodes.unauthenticated, "token expired");
  }

  /** Called by the server's ping timer. */
  heartbeat(): void {
    if (this.closing) return;
    if (!this.gate.isOpen()) return;
    if (!this.alive) {
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
  }

  /** Starts the closing handshake and stops every subscription at once. */
  closeWith(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.release();
    this.ws.close(code, reason);
  }

  get bufferedBytes(): number {
    return this.window.bytes;
  }

  private release(): void {
    if (this.authTimer !== null) clearTimeout(this.authTimer);
    this.authTimer = null;
    this.session.close();
    this.gate.dispose();
  }

  private send(text: string): boolean {
    if (this.closing) return false;
    if (this.ws.readyState !== this.ws.OPEN) {
      // The peer is closing: stop the subscriptions now rather than at the 'close' event.
      this.release();
      return false;
    }
    const data = Buffer.from(text);
    const bytes = data.length;
    const open = this.window.add(bytes);
    // Frames queued in one turn of the event loop (a page of events) leave in one write.
    this.cork.hold();
    this.ws.send(data, { binary: false }, () => this.window.release(bytes));
    return open;
  }

  private sinkFor(id: string): SubscriptionSink {
    return {
      event: (record: EventRecord) => this.send(eventMessage(id, record)),
      caughtUp: () => void this.send(caughtUpMessage(id)),
      checkpoint: (position: number) => void this.send(checkpointMessage(id, position)),
      whenWritable: () => (this.closing ? null : this.gate.whenOpen()),
      failed: (error: EssError) => void this.send(errorMessage(id, error)),
    };
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (this.closing) return;
    // A binary frame is answered in turn, like any other message (answers keep the order of asks),
    // and so is a text frame that is not UTF-8 (the server skips ws's own check, ./server.ts).
    let text: string | null | EssError = null;
    if (!isBinary) {
      const bytes = Array.isArray(data)
        ? Buffer.concat(data)
        : data instanceof ArrayBuffer
          ? Buffer.from(data)
          : data;
      text = isUtf8Bytes(bytes) ? bytes.toString("utf8") : notUtf8Message;
    }
    this.pending += 1;
    if (this.pending > messagesPendingMax) this.ws.pause();
    this.queue = this.queue
      .then(() => this.handle(text))
      .catch((error: unknown) => {
        // handle() answers every expected failure itself; this is a bug.
        logger.error("websocket message handling failed", {
          error: String(error),
          request_id: this.requestId,
        });
        this.closeWith(closeCodes.internal, "internal error");
      })
      .finally(() => {
        this.pending -= 1;
        if (this.pending <= messagesPendingMax / 2 && this.ws.isPaused && !this.closing) this.ws.resume();
      });
  }

  private async handle(text: string | null | EssError): Promise<void> {
    if (this.closing) return;
    // Before authentication only an auth message is taken: anything else (another message, a
    // binary frame, bytes that are not UTF-8 or JSON) is UNAUTHENTICATED, whatever it holds.
    if (!this.session.isAuthenticated) {
      const parsed = typeof text === "string" ? parseClientMessage(text) : null;
      if (parsed?.ok === true && parsed.message.type === "auth") {
        await this.dispatch(parsed.message);
        return;
      }
      // The answer names the message's id when it had one, so a client can match it.
      const id = parsed?.ok === true ? (parsed.message as { id?: unknown }).id : parsed?.id;
      this.send(errorMessage(typeof id === "string" ? id : null, unauthenticatedFirst));
      return;
    }
    if (text === null) {
      this.send(
        errorMessage(null, new EssError("INVALID_ARGUMENT", "messages are JSON text frames, not binary")),
      );
      return;
    }
    if (text instanceof EssError) {
      this.send(errorMessage(null, text));
      return;
    }
    const parsed = parseClientMessage(text);
    if (!parsed.ok) {
      this.send(errorMessage(parsed.id, parsed.error));
      return;
    }
    await this.dispatch(parsed.message);
  }

  private async dispatch(message: ClientMessage): Promise<void> {
    switch (message.type) {
      case "auth":
        return this.authenticate(message.token);
      case "subscribe": {
        const id = typeof message.id === "string" ? message.id : null;
        try {
          await this.session.subscribe(message, this.sinkFor(id ?? ""));
        } catch (error) {
          this.send(errorMessage(id, toEssError(error)));
        }
        return;
      }
      case "unsubscribe": {
        const id = typeof message.id === "string" ? message.id : null;
        try {
          const valid = validateSubscriptionId(message.id);
          if (!this.session.unsubscribe(valid)) {
            throw new EssError("INVALID_ARGUMENT", `no subscription '${valid}' on this connection`, {
              field: "id",
            });
          }
          this.send(unsubscribedMessage(valid));
        } catch (error) {
          this.send(errorMessage(id, toEssError(error)));
        }
        return;
      }
    }
  }

  private async authenticate(token: unknown): Promise<void> {
    try {
      if (typeof token !== "string" || token === "") {
        throw new EssError("UNAUTHENTICATED", "an auth message carries the bearer token in token");
      }
      await this.session.authenticate(token);
      if (this.authTimer !== null) clearTimeout(this.authTimer);
      this.authTimer = null;
    } catch (error) {
      const essError = toEssError(error);
      this.send(errorMessage(null, essError));
      // A failed refresh keeps the session that was valid; a failed first auth ends the connection.
      if (!this.session.isAuthenticated)
        this.closeWith(closeCodeForError[essError.code], "authentication failed");
    }
  }
}

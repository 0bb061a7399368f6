/**
 * gRPC `Streams.AppendSession` and `Streams.ReadSession`: many appends, or many reads, pipelined
 * over one HTTP/2 stream. Each request is run by the unary call's operation with the call's
 * token, so every rule, limit and error is the unary call's; its answer carries its
 * correlation_id and the result or the error (docs/rpc.md, "Pipelined appends", "Pipelined
 * reads"). The requests of a message of several (AppendSession's `appends`) start together, in
 * order, so that a group commit takes them as one; once a client has sent one, the answers of a
 * tick share a message ("Several appends in one message").
 *
 * Invariants:
 * - every request read is answered exactly once, in completion order, unless the client cancels;
 *   a failed request is answered and the session goes on;
 * - at most `inFlightMax` requests run at once: at the bound (or while the client does not read
 *   answers) no more is read and HTTP/2 flow control holds the client back; the requests of a
 *   message past the bound wait (held);
 * - while unwritten answers weigh `unwrittenBytesMax` or more (`answerBytes`, and `runningBytes`
 *   per request running), requests already read wait (parked): a client that stops reading
 *   cannot make the server build answers it will not take;
 * - the session ends once, after the requests in flight are answered: OK after the client's
 *   half-close, UNAUTHENTICATED (token missing, bad or expired), UNAVAILABLE (the server stops),
 *   INVALID_ARGUMENT (a malformed request). Requests not yet read are never run.
 */
import { EssError, toEssError } from "../errors.js";
import { ExpiryTimer } from "../expiry-timer.js";
import { limits } from "../limits.js";
import type { CallContext } from "../operations/contract.js";
import { toPbSessionError } from "./error-mapping.js";
import type { SessionAnswer } from "./session-codec.js";
import { MalformedRequest } from "./malformed-request.js";

/**
 * What a session runs per request: `Request` is the decoded request message, `Payload` its
 * `append` or `read` field.
 */
export interface SessionOptions<Request, Payload, Result = unknown> {
  /** The payload field's name, for the status of a request without one. */
  payloadField: string;
  /** The request's payload; null or undefined when it was not sent. */
  payloadOf(request: Request): Payload | null | undefined;
  /**
   * The further requests a message carries after its own (AppendSession's `appends`); none by
   * default. Without its own payload, a message with further requests is those alone.
   */
  furtherOf?(request: Request): readonly SessionEntry<Payload>[];
  /**
   * Runs one request's operation with the session's context. A throw is answered like a
   * rejection (INVALID_JSON found while translating the bytes, say).
   */
  run(ctx: CallContext, payload: Payload): Promise<Result>;
  /**
   * Checks the session's token once at the start and tells when it expires; the session ends
   * with UNAUTHENTICATED then. Without it, a bad token fails the first request, which ends the
   * session the same way.
   */
  authenticate?: (ctx: CallContext) => Promise<{ expires_at_ms: number }>;
  /** Requests run at once per session. Default limits.sessionInFlightMax. */
  inFlightMax?: number;
  /** About the bytes of a result's answer (read pages); without it answers weigh nothing. */
  answerBytes?: (result: Result) => number;
  /**
   * Bytes a request counts for while it runs, before its answer can be weighed (a read: a whole
   * page, its size being known only once it has run). Without it a session on an engine that
   * answers asynchronously (PostgreSQL) could start inFlightMax reads before any answer counted.
   */
  runningBytes?: number;
  /** Bytes of unwritten answers past which requests wait. Default limits.sessionUnwrittenBytesMax. */
  unwrittenBytesMax?: number;
  now?: () => number;
}

/** One of the further requests of a message (SessionOptions.furtherOf). */
export interface SessionEntry<Payload> {
  correlation_id: number;
  payload: Payload | null | undefined;
}

/** What a session hears from its call. */
export interface SessionEvents<Request> {
  /**
   * A request arrived (only while the channel is resumed), or one that is not valid protobuf
   * (./malformed-request.ts), which ends the session.
   */
  request(request: Request | MalformedRequest): void;
  /** The client half-closed, after its last request. */
  end(): void;
  /** The stream takes answers again after send() said it was full. */
  drain(): void;
  /** The call is gone (cancelled, reset, failed): nothing more can be written. */
  gone(): void;
}

/**
 * What a session needs of its call, whichever carrier carries it (./grpc-js-carrier.ts,
 * ./fast-carrier/session-call.ts).
 */
export interface SessionChannel<Request, Result = unknown> {
  /** Starts hearing the call's events; no request comes before the first resume(). */
  listen(events: SessionEvents<Request>): void;
  pause(): void;
  resume(): void;
  /**
   * Hands one answer message to HTTP/2: one answer, or several (only once the client has sent a
   * message of several requests); `flushed` runs once it is written to the socket. False when
   * the stream's buffer is full: drain() follows.
   */
  send(answers: readonly SessionAnswer<Result>[], flushed: () => void): boolean;
  /** Ends the call with OK (null) or the error's status; nothing when the call is already gone. */
  end(status: EssError | null): void;
}

export class PipelinedSession<Request extends { correlation_id: number }, Payload, Result = unknown> {
  private readonly inFlightMax: number;
  /** Requests running (read, not yet answered). */
  private inFlight = 0;
  /** Answers handed to HTTP/2 and not yet written to the socket (a client that does not read). */
  private unflushed = 0;
  /** Their weight by options.answerBytes. */
  private unflushedBytes = 0;
  /** options.runningBytes for each request running. */
  private runningBytes = 0;
  private readonly unwrittenBytesMax: number;
  /** Requests of a message that came past inFlightMax, started as running ones are answered. */
  private held: SessionEntry<Payload>[] = [];
  /** Requests read and due to run, waiting while the unwritten answers weigh too much. */
  private parked: (() => void)[] = [];
  private readonly flushed = (): void => {
    this.unflushed--;
    this.unpark();
    if (this.ending === null) this.updateReading();
  };
  /** The client does not take answers fast enough ('drain' reopens). */
  private writeBlocked = false;
  private reading = false;
  /** Set once the session is to end: no more requests are read; null status means OK. */
  private ending: { status: EssError | null } | null = null;
  private ended = false;
  private readonly expiry: ExpiryTimer;
  /** The client has sent a message of several requests: answers of one tick share a message. */
  private severalPerMessage = false;
  /** Answers waiting for the end of the tick (severalPerMessage), with their weight. */
  private outbox: SessionAnswer<Result>[] = [];
  private outboxBytes = 0;
  private outboxScheduled = false;
  private readonly sendOutboxLater = (): void => {
    this.outboxScheduled = false;
    this.sendOutbox();
  };

  constructor(
    private readonly channel: SessionChannel<Request, Result>,
    private readonly ctx: CallContext,
    private readonly options: SessionOptions<Request, Payload, Result>,
    private readonly onEnded: () => void,
  ) {
    this.inFlightMax = options.inFlightMax ?? limits.sessionInFlightMax;
    this.unwrittenBytesMax = options.unwrittenBytesMax ?? limits.sessionUnwrittenBytesMax;
    this.expiry = new ExpiryTimer(options.now);
  }

  start(): void {
    this.channel.listen({
      request: (request) => this.receive(request),
      // The client half-closed: answer what is in flight, then end with OK.
      end: () => this.finish(null),
      drain: () => {
        this.writeBlocked = false;
        this.unpark();
        this.updateReading();
      },
      gone: () => this.abandon(),
    });
    const authenticate = this.options.authenticate;
    if (authenticate === undefined) {
      this.updateReading();
      return;
    }
    authenticate(this.ctx).then(
      (caller) => {
        if (this.ending !== null) return;
        this.expiry.arm(caller.expires_at_ms, () =>
          this.finish(
            new EssError("UNAUTHENTICATED", "the token expired; authenticate again and open a new session"),
          ),
        );
        this.updateReading();
      },
      (error: unknown) => this.finish(toEssError(error)),
    );
  }

  /** The server stops: answer the requests in flight, then end with UNAVAILABLE. */
  shutdown(): void {
    this.finish(new EssError("UNAVAILABLE", "the service is shutting down"));
  }

  private receive(request: Request | MalformedRequest): void {
    if (this.ending !== null) return;
    if (request instanceof MalformedRequest) {
      // Its correlation id cannot be trusted: the session ends, after the requests before it.
      this.finish(request.error);
      return;
    }
    const id = request.correlation_id;
    const payload = this.options.payloadOf(request);
    const further = this.options.furtherOf?.(request);
    if (further !== undefined && further.length > 0) {
      this.receiveSeveral(payload == null ? further : [{ correlation_id: id, payload }, ...further]);
      return;
    }
    const malformed = this.malformedEntry(id, payload);
    if (malformed !== null) return this.finish(malformed);
    this.startRequest(id, payload!);
  }

  /**
   * A message of several requests: checked whole first (one malformed entry ends the session and
   * none of the message runs), then started together, in order.
   */
  private receiveSeveral(entries: readonly SessionEntry<Payload>[]): void {
    const max = limits.sessionAppendsPerMessageMax;
    if (entries.length > max) {
      this.finish(
        new EssError(
          "INVALID_ARGUMENT",
          `a session request message carries at most ${max} requests; this one carries ${entries.length}`,
          { max, count: entries.length },
        ),
      );
      return;
    }
    for (const entry of entries) {
      const malformed = this.malformedEntry(entry.correlation_id, entry.payload);
      if (malformed !== null) return this.finish(malformed);
    }
    this.severalPerMessage = true;
    for (const entry of entries) {
      if (this.inFlight < this.inFlightMax) this.startRequest(entry.correlation_id, entry.payload!);
      else this.held.push(entry);
    }
  }

  /** Starts held requests while fewer than inFlightMax run. */
  private startHeld(): void {
    while (this.held.length > 0 && this.inFlight < this.inFlightMax && !this.ended) {
      const entry = this.held.shift()!;
      this.startRequest(entry.correlation_id, entry.payload!);
    }
  }

  /** Why a request cannot be run (it ends the session), or null. */
  private malformedEntry(id: number, payload: Payload | null | undefined): EssError | null {
    if (payload === null || payload === undefined)
      return new EssError(
        "INVALID_ARGUMENT",
        `session request ${id} carries no ${this.options.payloadField}`,
      );
    if (!Number.isSafeInteger(id))
      return new EssError("INVALID_ARGUMENT", "correlation_id must be below 2^53");
    return null;
  }

  private startRequest(id: number, payload: Payload): void {
    this.inFlight++;
    if (this.inFlight + this.unflushed >= this.inFlightMax) this.updateReading();
    this.run(id, payload);
  }

  private run(id: number, payload: Payload): void {
    // The call was abandoned while this request was parked: nothing can be answered.
    if (this.ended) {
      this.inFlight--;
      return;
    }
    if (this.answersBacklogged()) {
      this.parked.push(() => this.run(id, payload));
      return;
    }
    const reserved = this.options.runningBytes ?? 0;
    this.runningBytes += reserved;
    const failed = (error: unknown): void => {
      this.runningBytes -= reserved;
      const essError = toEssError(error);
      this.answer({ correlation_id: id, error: toPbSessionError(essError) }, essError);
    };
    let pending: Promise<Result>;
    try {
      pending = this.options.run(this.ctx, payload);
    } catch (error) {
      // A synchronous throw (INVALID_JSON from the bytes) is answered like a rejection.
      failed(error);
      return;
    }
    pending.then(
      // The session's codec (./session-codec.ts) encodes the operation's result as it is.
      (result) => {
        this.runningBytes -= reserved;
        this.answer({ correlation_id: id, result }, null, this.options.answerBytes?.(result) ?? 0);
      },
      failed,
    );
  }

  private answer(response: SessionAnswer<Result>, error: EssError | null, bytes = 0): void {
    this.inFlight--;
    if (this.ended) return;
    if (this.held.length > 0) this.startHeld();
    this.unflushed++;
    this.unflushedBytes += bytes;
    if (this.severalPerMessage) {
      this.outbox.push(response);
      this.outboxBytes += bytes;
      if (!this.outboxScheduled) {
        this.outboxScheduled = true;
        // After the promise jobs of this tick: the answers of one group commit complete together.
        process.nextTick(this.sendOutboxLater);
      }
    } else {
      this.write([response], bytes);
    }
    this.unpark();
    // The token is the session's: once it no longer authenticates, no later request would.
    if (error?.code === "UNAUTHENTICATED") this.finish(error);
    if (this.ending !== null) this.endIfIdle();
    else this.updateReading();
  }

  /** Hands one answer message to the channel; its answers count as unflushed until it is written. */
  private write(answers: readonly SessionAnswer<Result>[], bytes: number): void {
    let flushed = this.flushed;
    if (answers.length > 1 || bytes > 0) {
      const count = answers.length;
      flushed = () => {
        this.unflushedBytes -= bytes;
        this.unflushed -= count - 1;
        this.flushed();
      };
    }
    if (!this.channel.send(answers, flushed)) this.writeBlocked = true;
  }

  /** Sends the answers gathered in this tick, in messages of at most sessionAppendsPerMessageMax. */
  private sendOutbox(): void {
    if (this.outbox.length === 0) return;
    const answers = this.outbox;
    const bytes = this.outboxBytes;
    this.outbox = [];
    this.outboxBytes = 0;
    if (this.ended) return;
    const max = limits.sessionAppendsPerMessageMax;
    if (answers.length <= max) this.write(answers, bytes);
    else
      for (let at = 0; at < answers.length; at += max)
        // The weight goes with the first message: it is written first.
        this.write(answers.slice(at, at + max), at === 0 ? bytes : 0);
    this.unpark();
    if (this.ending === null) this.updateReading();
  }

  /** The client is not taking answers: what is unwritten weighs too much, or the stream is full. */
  private answersBacklogged(): boolean {
    return this.writeBlocked || this.unflushedBytes + this.runningBytes >= this.unwrittenBytesMax;
  }

  /**
   * Lets the next parked request run. One at a time: each answer or flush lets the next one go
   * while there is room.
   */
  private unpark(): void {
    if (this.parked.length === 0 || this.answersBacklogged()) return;
    this.parked.shift()!();
  }

  private updateReading(): void {
    const read =
      this.ending === null &&
      !this.ended &&
      !this.writeBlocked &&
      this.held.length === 0 &&
      this.inFlight + this.unflushed < this.inFlightMax;
    if (read === this.reading) return;
    this.reading = read;
    if (read) this.channel.resume();
    else this.channel.pause();
  }

  private finish(status: EssError | null): void {
    if (this.ending !== null || this.ended) return;
    this.ending = { status };
    this.updateReading();
    this.endIfIdle();
  }

  /**
   * Ends once no request runs. Answers handed to HTTP/2 but not yet flushed go out before the
   * status (the HTTP/2 stream ends after its queued data).
   */
  private endIfIdle(): void {
    if (this.ended || this.ending === null || this.inFlight > 0 || this.held.length > 0) return;
    // Answers gathered in this tick go before the status.
    this.sendOutbox();
    this.ended = true;
    this.expiry.clear();
    this.onEnded();
    this.channel.end(this.ending.status);
  }

  /** The call is gone (cancelled, closed): nothing more can be written. */
  private abandon(): void {
    if (this.ended) return;
    this.ended = true;
    this.held = [];
    this.ending ??= { status: null };
    this.expiry.clear();
    this.onEnded();
  }
}

/**
 * One subscription: history first, then `caught_up`, then live events, each event exactly once
 * and in order, for one stream (by revision) or a tenant's `$all` (by position).
 *
 * How it stays exact: the subscription keeps one cursor, the revision (or position) right after
 * the last event it delivered, and only ever learns about events by reading storage from that
 * cursor. Append notices never carry events; they only wake the subscription, which then reads
 * again from its cursor. So an append that races the catch-up is either in the page being read
 * (and the cursor moves past it) or found by the next read; nothing is skipped or sent twice.
 *
 * Invariants:
 * - every delivered event has revision (position) >= the cursor, and the cursor then moves to
 *   just past it: delivery is strictly increasing, so never a duplicate;
 * - `caught_up` is sent once, after the first read that reached the end of what was stored;
 * - a wake-up that arrives while a read is in flight is remembered, so the loop reads again
 *   before it sleeps (no lost wake-up);
 * - nothing is sent after close(); the loop sends only while the sink is writable, and a full
 *   sink stops it mid-page (the rest is read again from storage later: bounded memory);
 * - reads go through the engine, so retention and soft delete hold: no removed event is sent.
 */
import type { EventRecord } from "../../contract/bodies.js";
import { isFiltering, type EventFilter } from "../../contract/event-filter.js";
import { limits } from "../../limits.js";
import { assert, toEssError, type EssError } from "../../errors.js";
import { logger } from "../../logger.js";

export type SubscriptionTarget =
  | { kind: "stream"; tenant_id: string; stream_id: string }
  | { kind: "all"; tenant_id: string; filter?: EventFilter | null };

/** One page read from storage at a cursor. */
export interface SubscriptionPage {
  events: EventRecord[];
  /** Where the next read starts (revision or position), or null when the engine did not say. */
  next: number | null;
  /** True when nothing more was stored at the time of the read. */
  is_end: boolean;
  /**
   * $all: where the next read starts without looking at any event again (ReadAllPage's
   * resume_position); null or absent: `next` is the rule.
   */
  resume?: number | null;
}

export type PageReader = (
  target: SubscriptionTarget,
  cursor: number,
  limit: number,
) => Promise<SubscriptionPage>;

/** Where a subscription's messages go: the transport's side of it. */
export interface SubscriptionSink {
  /** Sends one event. Returns false once the client's buffer is past its bound. */
  event(record: EventRecord): boolean;
  caughtUp(): void;
  /**
   * A filtered $all subscription's progress: every event before `position` was sent or did not
   * match, so subscribing again from `position` loses nothing (checkpointDue says when).
   */
  checkpoint(position: number): void;
  /** null when the client can take more; else resolves once it can (or the connection ended). */
  whenWritable(): Promise<void> | null;
  /** The server ended the subscription (a storage failure, an expired token). Never after close(). */
  failed(error: EssError): void;
}

export function cursorOf(target: SubscriptionTarget, record: EventRecord): number {
  return target.kind === "stream" ? record.revision : record.position;
}

export class Subscription {
  private cursor: number;
  /** The cursor after the last event or checkpoint sent (filtered $all: checkpointDue). */
  private reported: number;
  private readonly checkpoints: boolean;
  private closed = false;
  private caughtUpSent = false;
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private readonly closedSignal: Promise<void>;
  private signalClosed: () => void = () => undefined;
  private onClose: (() => void) | null = null;

  constructor(
    readonly target: SubscriptionTarget,
    from: number,
    private readonly readPage: PageReader,
    private readonly sink: SubscriptionSink,
    private readonly pageEvents: number,
  ) {
    assert(Number.isSafeInteger(from) && from >= 0, "a subscription starts at a whole cursor");
    this.cursor = from;
    this.reported = from;
    this.checkpoints = target.kind === "all" && isFiltering(target.filter);
    this.closedSignal = new Promise((resolve) => (this.signalClosed = resolve));
  }

  /** The revision (or position) the next delivered event will have at least. */
  get nextCursor(): number {
    return this.cursor;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Starts the delivery loop; `onClose` runs once when the subscription ends for any reason. */
  start(onClose: () => void): void {
    this.onClose = onClose;
    void this.run();
  }

  /** Something was appended that may concern this subscription: read again. Cheap and idempotent. */
  wake(): void {
    this.woken = true;
    const wakeUp = this.wakeUp;
    this.wakeUp = null;
    wakeUp?.();
  }

  /** Ends the subscription quietly (unsubscribe, disconnect). Nothing is sent after this. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.signalClosed();
    this.wake();
    const onClose = this.onClose;
    this.onClose = null;
    onClose?.();
  }

  /** Ends the subscription and tells the client why. */
  fail(error: EssError): void {
    if (this.closed) return;
    this.close();
    this.sink.failed(error);
  }

  private async run(): Promise<void> {
    try {
      while (!this.closed) {
        const writable = this.sink.whenWritable();
        if (writable !== null) {
          await Promise.race([writable, this.closedSignal]);
          continue; // look again: the gate may have closed again meanwhile
        }
        const sent = await this.sendPage();
        if (sent === "closed") return;
        if (sent !== "end") {
          // Paused: wait for the sink at the top of the loop. Yield first, so a sink that refuses
          // without ever closing its gate cannot make this loop spin on storage. More to read:
          // pages may come from a cache without real I/O; let other clients and timers run
          // between pages so one long catch-up does not hold the event loop.
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        if (!this.caughtUpSent) {
          this.caughtUpSent = true;
          this.sink.caughtUp();
        }
        if (!this.woken && !this.closed) {
          await new Promise<void>((resolve) => (this.wakeUp = resolve));
        }
      }
    } catch (error) {
      const essError = toEssError(error);
      if (essError.code === "INTERNAL") {
        logger.error("subscription failed", { error: String(error), target: this.target });
      }
      this.fail(essError);
    }
  }

  /**
   * Reads one page at the cursor and sends it while the sink takes it. A call of its own, so
   * that the page (up to limits.readPageBytesMax) is garbage once it returns: a paused
   * subscription holds no events while it waits, only what its sink has queued.
   */
  private async sendPage(): Promise<"closed" | "paused" | "more" | "end"> {
    this.woken = false;
    const from = this.cursor;
    const page = await this.readPage(this.target, from, this.pageEvents);
    if (this.closed) return "closed";
    assert(this.cursor === from, "only the loop moves the cursor");
    for (const record of page.events) {
      const at = cursorOf(this.target, record);
      assert(at >= this.cursor, "storage returned an event before the subscription's cursor");
      this.cursor = at + 1;
      this.reported = this.cursor;
      if (!this.sink.event(record)) return "paused";
    }
    // A page may end on events this tenant cannot see, that retention removed or that the filter
    // passed over: jump past them.
    const next = page.resume ?? page.next;
    if (next !== null && next > this.cursor) this.cursor = next;
    if (this.checkpoints && this.checkpointDue(page)) {
      this.reported = this.cursor;
      this.sink.checkpoint(this.cursor);
    }
    return page.is_end ? "end" : "more";
  }

  /**
   * A filtered $all subscription sends a checkpoint after a page that moved its cursor past the
   * last event it sent (or the last checkpoint), when: the page stopped at its skip bound
   * (catch-up through a long run of unmatched events: one checkpoint per
   * limits.subscriptionCheckpointSkipped of them), or this read completes the catch-up (so a
   * client knows where history ended), or the cursor moved at least
   * limits.subscriptionCheckpointSkipped positions since the last event or checkpoint sent (live:
   * unmatched appends are reported in batches, not one by one).
   */
  private checkpointDue(page: SubscriptionPage): boolean {
    if (this.cursor <= this.reported) return false;
    return (
      !page.is_end ||
      !this.caughtUpSent ||
      this.cursor - this.reported >= limits.subscriptionCheckpointSkipped
    );
  }
}

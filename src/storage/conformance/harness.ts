/**
 * What the conformance suite needs from an engine, and the small helpers its cases share.
 *
 * The suite knows engines only through `EngineHarness`: a fresh empty store per `create`, the
 * same store again after `reopen` (which is how durability and recovery are proved), and
 * `destroy` to remove every store at the end. Nothing here knows a file, a table or a segment.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { EssError, type ErrorCode } from "../../errors.js";
import type { EventRecord, ExpectedRevision, StreamSummary } from "../../contract/bodies.js";
import type { EngineOptions, EventToAppend, StorageEngine } from "../engine.js";

export interface HarnessOptions extends EngineOptions {
  /**
   * The case stores events and appends as large as the contract allows (src/limits.ts). A
   * harness that shrinks its engine's sizes for the other cases (tiny segments, so that
   * scavenge has sealed segments to work on) opens this store with its full sizes instead.
   */
  fullLimits?: boolean;
}

export interface EngineHarness {
  /** Opens a fresh, empty store (its own directory, schema or database). */
  create(options?: HarnessOptions): Promise<StorageEngine>;
  /**
   * Opens again the store `closed` was opened on, with the options it was created with. The
   * suite has already closed `closed` (and awaited that) before calling this.
   */
  reopen(closed: StorageEngine): Promise<StorageEngine>;
  /** Closes whatever is still open and removes every store this harness created. */
  destroy(): Promise<void>;
}

/**
 * The bookkeeping every engine's harness needs: opens engines with `openEngine`, remembers the
 * options each was opened with so `reopen` can open the same store again, and closes whatever
 * is still open at the end (a case may fail before closing its store).
 */
export class OpenedEngines<Options> {
  readonly #options = new Map<StorageEngine, Options>();
  readonly #open = new Set<StorageEngine>();

  constructor(private readonly openEngine: (options: Options) => Promise<StorageEngine>) {}

  async openWith(options: Options): Promise<StorageEngine> {
    const engine = await this.openEngine(options);
    this.#options.set(engine, options);
    this.#open.add(engine);
    const close = engine.close.bind(engine);
    engine.close = async () => {
      this.#open.delete(engine);
      await close();
    };
    return engine;
  }

  reopen(closed: StorageEngine): Promise<StorageEngine> {
    const options = this.#options.get(closed);
    if (!options) throw new Error("reopen of an engine this harness did not open");
    return this.openWith(options);
  }

  async closeAll(): Promise<void> {
    for (const engine of [...this.#open]) await engine.close();
  }
}

export interface SuiteOptions {
  /**
   * Cases an engine does not pass yet, by exact test name, with the reason. They are reported
   * as skipped, so the gap stays visible in every run instead of hiding in a fork of the suite.
   */
  pending?: Record<string, string>;
  /** Seeds of the random walks checked against the reference model, one case each. Default [1, 2]. */
  modelSeeds?: number[];
}

/** One store a case works on; `reopen` swaps the engine, `close` is safe to call twice. */
export class OpenStore {
  #closed = false;

  constructor(
    private readonly harness: EngineHarness,
    public engine: StorageEngine,
  ) {}

  /** Closes the engine (unless a case already did) and opens the same store again. */
  async reopen(): Promise<StorageEngine> {
    if (!this.#closed) await this.engine.close();
    this.#closed = true;
    this.engine = await this.harness.reopen(this.engine);
    this.#closed = false;
    return this.engine;
  }

  /** For cases that close the engine themselves (close() semantics). */
  markClosed(): void {
    this.#closed = true;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.engine.close();
  }
}

/** A clock the case moves by hand, for created_at and max_age retention. */
export class ManualClock {
  constructor(public ms: number = Date.UTC(2026, 0, 1, 0, 0, 0, 0)) {}
  readonly now = (): number => this.ms;
  advanceSeconds(seconds: number): void {
    this.ms += seconds * 1000;
  }
  iso(): string {
    return new Date(this.ms).toISOString();
  }
}

let eventCounter = 0;

/** An event as the suite appends it: a direct caller's text, which an engine checks in full. */
export interface TextEvent extends EventToAppend {
  data: string;
  metadata: string;
}

/** A valid event with a fresh id; any field can be overridden. */
export function newEvent(fields: Partial<TextEvent> = {}): TextEvent {
  eventCounter += 1;
  return {
    event_id: randomUUID(),
    event_type: "test-happened",
    data: JSON.stringify({ n: eventCounter }),
    metadata: "{}",
    ...fields,
  };
}

export function newEvents(
  count: number,
  make: (index: number) => Partial<TextEvent> = () => ({}),
): TextEvent[] {
  return Array.from({ length: count }, (_, index) => newEvent(make(index)));
}

/** Awaits `promise` and checks it rejected with an EssError of `code`; returns that error. */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: ErrorCode | ErrorCode[],
): Promise<EssError> {
  const codes = Array.isArray(code) ? code : [code];
  let outcome: { ok: true } | { ok: false; error: unknown };
  try {
    await promise;
    outcome = { ok: true };
  } catch (error) {
    outcome = { ok: false, error };
  }
  if (outcome.ok) assert.fail(`expected an EssError ${codes.join(" or ")}, but the call succeeded`);
  const error = outcome.error;
  if (!(error instanceof EssError)) {
    assert.fail(`expected an EssError ${codes.join(" or ")}, got ${String(error)}`);
  }
  assert.ok(
    codes.includes(error.code),
    `expected ${codes.join(" or ")}, got ${error.code}: ${error.message}`,
  );
  return error;
}

/** Every readable event of a stream, forward, following next_revision page by page. */
export async function readStreamFully(
  engine: StorageEngine,
  tenantId: string,
  streamId: string,
  pageSize = 1000,
): Promise<EventRecord[]> {
  const events: EventRecord[] = [];
  let from: number | null = null;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 100_000, "readStream paging does not end");
    const page = await engine.readStream({
      tenant_id: tenantId,
      stream_id: streamId,
      direction: "forward",
      from_revision: from,
      limit: pageSize,
    });
    events.push(...page.events);
    if (page.is_end) {
      assert.equal(page.next_revision, null, "next_revision is null at the end");
      return events;
    }
    assert.notEqual(page.next_revision, null, "next_revision is given when the stream has more");
    from = page.next_revision;
  }
}

/** Every readable event of a tenant in global order, following next_position page by page. */
export async function readTenantFully(
  engine: StorageEngine,
  tenantId: string,
  pageSize = 1000,
): Promise<EventRecord[]> {
  const events: EventRecord[] = [];
  let from = 0;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 100_000, "readAll paging does not end");
    const page = await engine.readAll({ tenant_id: tenantId, from_position: from, limit: pageSize });
    events.push(...page.events);
    if (page.is_end) {
      assert.equal(page.next_position, null, "next_position is null at the end");
      return events;
    }
    assert.notEqual(page.next_position, null, "next_position is given when there is more");
    assert.ok(page.next_position! > from, "next_position moves forward");
    from = page.next_position!;
  }
}

/** Every stream listStreams gives for these filters, following next_cursor page by page. */
export async function listStreamsFully(
  engine: StorageEngine,
  tenantId: string | null,
  prefix: string | null,
  pageSize: number,
): Promise<StreamSummary[]> {
  const streams: StreamSummary[] = [];
  let cursor: string | null = null;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 100_000, "listStreams paging does not end");
    const page = await engine.listStreams({ tenant_id: tenantId, prefix, limit: pageSize, cursor });
    assert.ok(page.streams.length <= pageSize, "a page holds at most limit streams");
    streams.push(...page.streams);
    if (page.next_cursor === null) return streams;
    cursor = page.next_cursor;
  }
}

export async function appendEvents(
  engine: StorageEngine,
  tenantId: string,
  streamId: string,
  events: EventToAppend[],
  expected: ExpectedRevision = "any",
) {
  return engine.append({ tenant_id: tenantId, stream_id: streamId, events, expected_revision: expected });
}

/** RFC 3339 with milliseconds, in UTC, as Date.prototype.toISOString writes it. */
export const isoMillisUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function assertIsoMillisUtc(value: string, what: string): void {
  assert.match(value, isoMillisUtc, `${what} is RFC 3339 with milliseconds in UTC`);
  assert.equal(new Date(value).toISOString(), value, `${what} is a real instant`);
}

export function assertStrictlyIncreasing(values: number[], what: string): void {
  for (let i = 1; i < values.length; i++) {
    assert.ok(values[i]! > values[i - 1]!, `${what} strictly increase (${values[i - 1]} then ${values[i]})`);
  }
}

/** The fields of an event as appended, to compare with what a read gives back. */
export function appended(
  event: EventRecord,
): Pick<EventRecord, "event_id" | "event_type" | "data" | "metadata"> {
  return {
    event_id: event.event_id,
    event_type: event.event_type,
    data: event.data,
    metadata: event.metadata,
  };
}

/** Waits until `condition` holds, for engines whose notices travel through the database. */
export async function eventually(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Gives asynchronous deliveries a moment, before checking that something did NOT happen. */
export function settle(ms = 100): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A random walk of operations (appends with every expected-revision form, repeats, retention,
 * soft delete, revival, clock moves, reopens) checked after every step against a small
 * reference model of the contract. It finds what the hand-written cases miss: combinations.
 *
 * The walk is seeded; a failure names the seed and the step, and the operation log leads to it.
 * Scavenge is left out: which hidden events a scavenge removes is the engine's choice.
 */
import assert from "node:assert/strict";
import { EssError } from "../../errors.js";
import type { AppendResult, ExpectedRevision, Retention } from "../../contract/bodies.js";
import type { EventToAppend, StorageEngine } from "../engine.js";
import type { CaseContext } from "./suite.js";
import { newEvents, readTenantFully, type ManualClock, type OpenStore } from "./harness.js";

interface ModelEvent {
  event: EventToAppend;
  revision: number;
  /**
   * Known for a batch's last event (the append result); the others are learnt the first time a
   * read shows them (retention may hide part of a fresh batch), and never change after that.
   */
  position: number | null;
  createdAtMs: number;
}

interface ModelBatch {
  events: EventToAppend[];
  expected: ExpectedRevision;
  result: AppendResult;
}

interface ModelStream {
  tenant: string;
  stream: string;
  events: ModelEvent[];
  batches: ModelBatch[];
  deleted: boolean;
  /** Revisions below this were hidden by the last soft delete. */
  deletedBefore: number;
  retention: Retention;
  createdAtMs: number;
  updatedAtMs: number;
}

const noRetention: Retention = { max_age_seconds: null, max_count: null, truncate_before: null };

function firstReadable(s: ModelStream, nowMs: number): number {
  const count = s.events.length;
  let first = s.deletedBefore;
  const r = s.retention;
  if (r.truncate_before !== null) first = Math.max(first, r.truncate_before);
  if (r.max_count !== null) first = Math.max(first, count - r.max_count);
  if (r.max_age_seconds !== null) {
    const cutoff = nowMs - r.max_age_seconds * 1000;
    while (first < count && s.events[first]!.createdAtMs < cutoff) first++;
  }
  return Math.min(first, count);
}

function readable(s: ModelStream, nowMs: number): ModelEvent[] {
  return s.events.slice(firstReadable(s, nowMs));
}

function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

class Walk {
  readonly streams = new Map<string, ModelStream>();
  readonly log: string[] = [];
  appendsTotal = new Map<string, number>();
  lastPosition = 0;

  constructor(
    readonly store: OpenStore,
    readonly clock: ManualClock,
    readonly random: () => number,
  ) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  get engine(): StorageEngine {
    return this.store.engine;
  }

  streamFor(tenant: string, stream: string): ModelStream | undefined {
    return this.streams.get(`${tenant}/${stream}`);
  }

  async append(tenant: string, stream: string): Promise<void> {
    const s = this.streamFor(tenant, stream);
    const exists = s !== undefined;
    const last = exists ? s.events.length - 1 : null;
    const live = exists && !s.deleted;
    const form = this.pick(["any", "no_stream", "stream_exists", "exact", "exact", "wrong"] as const);
    let expected: ExpectedRevision;
    if (form === "exact") expected = last ?? 0;
    else if (form === "wrong") expected = (last ?? -1) + 1 + Math.floor(this.random() * 3);
    else expected = form;
    const ok =
      expected === "any" ||
      (expected === "no_stream" && !live) ||
      (expected === "stream_exists" && live) ||
      (typeof expected === "number" && exists && expected === last);
    const events = newEvents(1 + Math.floor(this.random() * 4), (i) => ({
      data: JSON.stringify({
        step: this.log.length,
        i,
        text: "\u00e9".repeat(Math.floor(this.random() * 50)),
      }),
    }));
    this.log.push(
      `append ${tenant}/${stream} x${events.length} expected=${String(expected)} -> ${ok ? "ok" : "refused"}`,
    );
    const call = this.engine.append({
      tenant_id: tenant,
      stream_id: stream,
      events,
      expected_revision: expected,
    });
    if (!ok) {
      const error = await call.then(
        () => assert.fail("the model expected WRONG_EXPECTED_REVISION, the append succeeded"),
        (e: unknown) => e,
      );
      assert.ok(error instanceof EssError && error.code === "WRONG_EXPECTED_REVISION", String(error));
      assert.deepEqual(error.details, { stream_id: stream, expected, actual: last });
      return;
    }
    const result = await call;
    const model: ModelStream = s ?? {
      tenant,
      stream,
      events: [],
      batches: [],
      deleted: false,
      deletedBefore: 0,
      retention: { ...noRetention },
      createdAtMs: this.clock.ms,
      updatedAtMs: this.clock.ms,
    };
    this.streams.set(`${tenant}/${stream}`, model);
    const first = model.events.length;
    assert.deepEqual(
      { ...result, position: 0 },
      {
        stream_id: stream,
        first_revision: first,
        last_revision: first + events.length - 1,
        position: 0,
        count: events.length,
      },
    );
    assert.ok(result.position > this.lastPosition, "positions grow");
    this.lastPosition = result.position;
    events.forEach((event, i) => {
      model.events.push({
        event,
        revision: first + i,
        position: i === events.length - 1 ? result.position : null,
        createdAtMs: this.clock.ms,
      });
    });
    model.batches.push({ events, expected, result });
    model.deleted = false;
    model.updatedAtMs = this.clock.ms;
    this.appendsTotal.set(tenant, (this.appendsTotal.get(tenant) ?? 0) + 1);
  }

  /** Sends a readable batch again, with its original expected revision: the original result. */
  async repeat(): Promise<void> {
    const candidates = [...this.streams.values()].flatMap((s) =>
      s.deleted
        ? []
        : s.batches
            .filter((b) => b.result.first_revision >= firstReadable(s, this.clock.ms))
            .map((b) => ({ s, b })),
    );
    if (candidates.length === 0) return;
    const { s, b } = this.pick(candidates);
    this.log.push(`repeat ${s.tenant}/${s.stream} batch at ${b.result.first_revision}`);
    const result = await this.engine.append({
      tenant_id: s.tenant,
      stream_id: s.stream,
      events: b.events,
      expected_revision: b.expected,
    });
    assert.deepEqual(result, b.result, "a repeated batch returns its original result");
  }

  async setRetention(s: ModelStream): Promise<void> {
    const retention: Retention = {
      max_age_seconds: this.random() < 0.3 ? 1 + Math.floor(this.random() * 20) : null,
      max_count: this.random() < 0.4 ? 1 + Math.floor(this.random() * 6) : null,
      truncate_before: this.random() < 0.3 ? Math.floor(this.random() * (s.events.length + 3)) : null,
    };
    this.log.push(
      `retention ${s.tenant}/${s.stream} ${JSON.stringify(retention)}${s.deleted ? " (deleted)" : ""}`,
    );
    const call = this.engine.setRetention(s.tenant, s.stream, retention);
    if (s.deleted) {
      const error = await call.then(
        () => assert.fail("setRetention on a deleted stream succeeded"),
        (e: unknown) => e,
      );
      assert.ok(error instanceof EssError && error.code === "STREAM_NOT_FOUND", String(error));
      return;
    }
    await call;
    s.retention = retention;
  }

  async deleteStream(s: ModelStream): Promise<void> {
    this.log.push(`delete ${s.tenant}/${s.stream}`);
    const info = await this.engine.deleteStream(s.tenant, s.stream);
    if (!s.deleted) {
      s.deleted = true;
      s.deletedBefore = s.events.length;
    }
    assert.equal(info.deleted, true);
    assert.equal(info.event_count, 0);
  }

  async checkStream(s: ModelStream): Promise<void> {
    const known = s.events.flatMap((e) => (e.position === null ? [] : [e.position]));
    for (let i = 1; i < known.length; i++)
      assert.ok(known[i]! > known[i - 1]!, "positions grow along a stream");
    const info = await this.engine.getStreamInfo(s.tenant, s.stream);
    assert.ok(info, `${s.tenant}/${s.stream} exists`);
    const visible = s.deleted ? [] : readable(s, this.clock.ms);
    assert.deepEqual(
      {
        event_count: info.event_count,
        first_revision: info.first_revision,
        last_revision: info.last_revision,
        deleted: info.deleted,
        retention: info.retention,
        created_at: info.created_at,
      },
      {
        event_count: visible.length,
        first_revision: visible[0]?.revision ?? null,
        last_revision: s.events.length - 1,
        deleted: s.deleted,
        retention: s.retention,
        created_at: new Date(s.createdAtMs).toISOString(),
      },
      `info of ${s.tenant}/${s.stream}`,
    );
    if (s.deleted) {
      const error = await this.engine
        .readStream({
          tenant_id: s.tenant,
          stream_id: s.stream,
          direction: "forward",
          from_revision: null,
          limit: 10,
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      assert.ok(
        error instanceof EssError && error.code === "STREAM_NOT_FOUND",
        "a deleted stream is not found",
      );
      return;
    }
    const limit = 1 + Math.floor(this.random() * 4);
    for (const direction of ["forward", "backward"] as const) {
      const got = [];
      let from: number | null = null;
      for (let pages = 0; pages < 1000; pages++) {
        const page = await this.engine.readStream({
          tenant_id: s.tenant,
          stream_id: s.stream,
          direction,
          from_revision: from,
          limit,
        });
        got.push(...page.events);
        if (page.is_end) break;
        from = page.next_revision;
      }
      for (const e of got) {
        const m = s.events[e.revision];
        if (m && m.position === null) m.position = e.position;
      }
      const want = direction === "forward" ? visible : [...visible].reverse();
      assert.deepEqual(
        got.map((e) => [e.revision, e.position, e.event_id, e.data, e.created_at]),
        want.map((e) => [
          e.revision,
          e.position,
          e.event.event_id,
          e.event.data,
          new Date(e.createdAtMs).toISOString(),
        ]),
        `${direction} read of ${s.tenant}/${s.stream} in pages of ${limit}`,
      );
    }
  }

  async checkTenants(tenants: readonly string[]): Promise<void> {
    let stored = 0;
    for (const tenant of tenants) {
      const streams = [...this.streams.values()].filter((s) => s.tenant === tenant);
      const want = streams
        .flatMap((s) => (s.deleted ? [] : readable(s, this.clock.ms)))
        .sort((a, b) => a.position! - b.position!);
      const got = await readTenantFully(this.engine, tenant, 7);
      assert.deepEqual(
        got.map((e) => e.position),
        want.map((e) => e.position),
        `readAll of ${tenant}`,
      );
      const usage = await this.engine.getTenantUsage(tenant);
      const events = streams.reduce((n, s) => n + s.events.length, 0);
      stored += events;
      if (streams.length === 0) {
        assert.equal(usage, null);
        continue;
      }
      assert.ok(usage);
      assert.equal(usage.events, events, `stored events of ${tenant}`);
      assert.equal(usage.streams, streams.filter((s) => !s.deleted).length, `live streams of ${tenant}`);
      assert.equal(usage.appends_total, this.appendsTotal.get(tenant) ?? 0, `appends of ${tenant}`);
    }
    const status = await this.engine.status();
    assert.equal(status.events_total, stored, "status events_total counts stored events");
    // streams_total has its own case ("status streams_total counts the streams that are not deleted").
    if (this.streams.size > 0) assert.equal(status.last_position, this.lastPosition, "status last_position");
  }
}

const tenants = ["acme", "globex"] as const;
const streamIds = ["a", "b", "c"] as const;

async function walk(store: OpenStore, clock: ManualClock, seed: number, steps: number): Promise<void> {
  const w = new Walk(store, clock, seeded(seed));
  let step = 0;
  try {
    for (; step < steps; step++) {
      const roll = w.random();
      const existing = [...w.streams.values()];
      const fullCheck = roll >= 0.9;
      let touched: [string, string] | null = null;
      if (roll < 0.5 || existing.length === 0) {
        touched = [w.pick(tenants), w.pick(streamIds)];
        await w.append(...touched);
      } else if (roll < 0.6) {
        await w.repeat();
      } else if (roll < 0.7) {
        const s = w.pick(existing);
        touched = [s.tenant, s.stream];
        await w.setRetention(s);
      } else if (roll < 0.77) {
        const s = w.pick(existing);
        touched = [s.tenant, s.stream];
        await w.deleteStream(s);
      } else if (roll < 0.87) {
        const ms = (1 + Math.floor(w.random() * 8)) * 1000 + 7;
        w.log.push(`clock +${ms} ms`);
        clock.ms += ms;
      } else if (roll < 0.9) {
        w.log.push("reopen");
        await store.reopen();
      }
      // Each step checks the stream it touched and one other; every tenth or so checks all.
      const toCheck = fullCheck
        ? [...w.streams.values()]
        : [...w.streams.values()].length > 0
          ? [w.pick([...w.streams.values()])]
          : [];
      const own = touched ? w.streamFor(...touched) : undefined;
      if (own && !toCheck.includes(own)) toCheck.push(own);
      for (const s of toCheck) await w.checkStream(s);
      if (fullCheck) await w.checkTenants(tenants);
    }
    await w.checkTenants(tenants);
    w.log.push("final reopen");
    await store.reopen();
    for (const s of w.streams.values()) await w.checkStream(s);
    await w.checkTenants(tenants);
  } catch (error) {
    const recent = w.log.slice(-15).join("\n  ");
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`seed ${seed}, step ${step}: ${message}\n  last operations:\n  ${recent}`, {
      cause: error,
    });
  }
}

export function modelCases({ test }: CaseContext, seeds: readonly number[]): void {
  for (const seed of seeds) {
    test(`a random walk of appends, repeats, retention, deletes and reopens matches the model (seed ${seed})`, async (store, clock) => {
      await walk(store, clock, seed, 120);
    });
  }
}

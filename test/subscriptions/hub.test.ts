// The subscription core (catch-up then live, exactly once, in order) on the engine interface,
// with an in-memory engine whose reads the test can hold, to force appends to race a catch-up.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { EventRecord } from "../../src/contract/bodies.js";
import type { StorageEngine } from "../../src/storage/engine.js";
import type { EssError } from "../../src/errors.js";
import { SubscriptionHub } from "../../src/operations/subscription/hub.js";
import type { SubscriptionSink } from "../../src/operations/subscription/subscription.js";
import { MemoryEngine } from "./memory-engine.js";
import { eventually } from "../helpers/eventually.js";

class CollectingSink implements SubscriptionSink {
  events: EventRecord[] = [];
  caughtUpAt = -1;
  error: EssError | null = null;
  /** When set, event() answers false after this many events (the client's buffer is "full"). */
  pauseEvery = 0;
  private resume: (() => void) | null = null;
  private paused: Promise<void> | null = null;
  private waiters: { count: number; resolve: () => void }[] = [];

  event(record: EventRecord): boolean {
    this.events.push(record);
    this.notify();
    if (this.pauseEvery > 0 && this.events.length % this.pauseEvery === 0) {
      this.paused = new Promise((resolve) => (this.resume = resolve));
      return false;
    }
    return true;
  }
  caughtUp(): void {
    this.caughtUpAt = this.events.length;
    this.notify();
  }
  /** Checkpoints, each with the number of events delivered before it. */
  checkpoints: { position: number; after: number }[] = [];
  checkpoint(position: number): void {
    this.checkpoints.push({ position, after: this.events.length });
  }
  whenWritable(): Promise<void> | null {
    return this.paused;
  }
  failed(error: EssError): void {
    this.error = error;
  }
  /** Lets a paused sink go on (the client read its buffer). */
  drain(): void {
    this.paused = null;
    this.resume?.();
  }
  waitFor(count: number): Promise<void> {
    if (this.events.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
  private notify(): void {
    this.waiters = this.waiters.filter((w) => (this.events.length >= w.count ? (w.resolve(), false) : true));
  }
}

async function append(engine: StorageEngine, tenant: string, stream: string, count: number): Promise<void> {
  const events = Array.from({ length: count }, (_, i) => ({
    event_id: randomUUID(),
    event_type: "Tested",
    data: `{"i":${i}}`,
    metadata: "{}",
  }));
  await engine.append({ tenant_id: tenant, stream_id: stream, events, expected_revision: "any" });
}

function revisions(events: EventRecord[]): number[] {
  return events.map((e) => e.revision);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

test("a stream subscription sends history, then caught_up, then live events in order", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine, { pageEvents: 3 });
  await append(engine, "t", "orders-1", 7);
  const sink = new CollectingSink();
  await hub.open({ kind: "stream", tenant_id: "t", stream_id: "orders-1" }, 0, sink);
  await eventually(() => sink.caughtUpAt >= 0, "caught_up");
  assert.equal(sink.caughtUpAt, 7);
  await append(engine, "t", "orders-1", 2);
  await append(engine, "t", "other", 2);
  await sink.waitFor(9);
  assert.deepEqual(revisions(sink.events), range(0, 9));
  hub.close();
});

test("a subscription from a revision starts there, and from end sends only new events", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine);
  await append(engine, "t", "s", 5);
  const fromThree = new CollectingSink();
  const fromEnd = new CollectingSink();
  await hub.open({ kind: "stream", tenant_id: "t", stream_id: "s" }, 3, fromThree);
  await hub.open({ kind: "stream", tenant_id: "t", stream_id: "s" }, "end", fromEnd);
  await eventually(() => fromEnd.caughtUpAt === 0 && fromThree.caughtUpAt === 2, "caught_up");
  await append(engine, "t", "s", 1);
  await fromEnd.waitFor(1);
  await fromThree.waitFor(3);
  assert.deepEqual(revisions(fromThree.events), [3, 4, 5]);
  assert.deepEqual(revisions(fromEnd.events), [5]);
  hub.close();
});

test("appends that land while a catch-up page is being read are delivered once, in order", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine, { pageEvents: 4 });
  await append(engine, "t", "s", 10);
  let release: () => void = () => undefined;
  engine.readGate = new Promise((resolve) => (release = resolve));
  const sink = new CollectingSink();
  await hub.open({ kind: "stream", tenant_id: "t", stream_id: "s" }, 0, sink);
  // The first page read is held; appends (and their notices) happen meanwhile.
  await append(engine, "t", "s", 3);
  engine.readGate = null;
  release();
  await append(engine, "t", "s", 3);
  await sink.waitFor(16);
  await eventually(() => sink.caughtUpAt >= 0, "caught_up");
  assert.deepEqual(revisions(sink.events), range(0, 16));
  hub.close();
});

test("many appends racing many catch-ups give every subscriber every event exactly once, in order", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine, { pageEvents: 5 });
  const sinks: CollectingSink[] = [];
  const writer = (async () => {
    for (let i = 0; i < 60; i++) await append(engine, "t", "s", 1 + (i % 4));
  })();
  for (let i = 0; i < 20; i++) {
    const sink = new CollectingSink();
    sinks.push(sink);
    await hub.open({ kind: "stream", tenant_id: "t", stream_id: "s" }, 0, sink);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await writer;
  const total = Array.from({ length: 60 }, (_, i) => 1 + (i % 4)).reduce((a, b) => a + b, 0);
  for (const sink of sinks) {
    await sink.waitFor(total);
    assert.deepEqual(revisions(sink.events), range(0, total));
  }
  hub.close();
});

test("a paused subscriber stops receiving and resumes from storage without gap or duplicate", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine, { pageEvents: 10 });
  await append(engine, "t", "s", 25);
  const sink = new CollectingSink();
  sink.pauseEvery = 4;
  await hub.open({ kind: "stream", tenant_id: "t", stream_id: "s" }, 0, sink);
  await sink.waitFor(4);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(sink.events.length, 4, "nothing is sent while the client is paused");
  const delivered = (): number => sink.events.length;
  while (delivered() < 30) {
    sink.drain();
    if (delivered() === 25) await append(engine, "t", "s", 5);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  assert.deepEqual(revisions(sink.events), range(0, 30));
  hub.close();
});

test("$all delivers the tenant's events across streams in position order, and no other tenant's", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine, { pageEvents: 2 });
  await append(engine, "acme", "a", 2);
  await append(engine, "globex", "a", 2);
  await append(engine, "acme", "b", 1);
  const sink = new CollectingSink();
  await hub.open({ kind: "all", tenant_id: "acme" }, 0, sink);
  await append(engine, "globex", "b", 3);
  await append(engine, "acme", "c", 2);
  await sink.waitFor(5);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(
    sink.events.map((e) => `${e.stream_id}@${e.revision}`),
    ["a@0", "a@1", "b@0", "c@0", "c@1"],
  );
  const positions = sink.events.map((e) => e.position);
  assert.deepEqual(
    positions,
    [...positions].sort((x, y) => x - y),
  );
  hub.close();
});

test("events removed by retention are never delivered, during catch-up or after", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine, { pageEvents: 2 });
  await append(engine, "t", "s", 6);
  await engine.setRetention("t", "s", { max_age_seconds: null, max_count: null, truncate_before: 4 });
  const sink = new CollectingSink();
  await hub.open({ kind: "stream", tenant_id: "t", stream_id: "s" }, 0, sink);
  await sink.waitFor(2);
  await append(engine, "t", "s", 1);
  await sink.waitFor(3);
  assert.deepEqual(revisions(sink.events), [4, 5, 6]);
  hub.close();
});

test("a subscription to a stream that does not exist yet waits for its first event", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine);
  const sink = new CollectingSink();
  await hub.open({ kind: "stream", tenant_id: "t", stream_id: "later" }, 0, sink);
  await eventually(() => sink.caughtUpAt === 0, "caught_up");
  await append(engine, "t", "later", 2);
  await sink.waitFor(2);
  assert.deepEqual(revisions(sink.events), [0, 1]);
  hub.close();
});

test("a thousand subscribers woken by one append share one storage read", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine);
  const sinks = Array.from({ length: 1000 }, () => new CollectingSink());
  for (const sink of sinks) await hub.open({ kind: "stream", tenant_id: "t", stream_id: "s" }, 0, sink);
  await eventually(() => sinks.every((s) => s.caughtUpAt === 0), "caught_up");
  const before = engine.reads;
  await append(engine, "t", "s", 3);
  await Promise.all(sinks.map((s) => s.waitFor(3)));
  assert.ok(engine.reads - before <= 4, `storage was read ${engine.reads - before} times`);
  for (const sink of sinks) assert.deepEqual(revisions(sink.events), [0, 1, 2]);
  hub.close();
});

test("closing the hub ends every subscription with UNAVAILABLE", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine);
  const sink = new CollectingSink();
  await hub.open({ kind: "all", tenant_id: "t" }, 0, sink);
  hub.close();
  assert.equal(sink.error?.code, "UNAVAILABLE");
  assert.equal(hub.size, 0);
});

test("a sink that refuses events without ever pausing cannot make a subscription hold the event loop", async () => {
  const engine = new MemoryEngine();
  const hub = new SubscriptionHub(engine);
  await append(engine, "t", "s", 10);
  let offered = 0;
  const subscription = await hub.open({ kind: "stream", tenant_id: "t", stream_id: "s" }, 0, {
    event: () => (offered++, false),
    caughtUp: () => undefined,
    checkpoint: () => undefined,
    whenWritable: () => null,
    failed: () => undefined,
  });
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(Date.now() - started < 2000, "timers still run");
  assert.ok(offered > 0);
  subscription.close();
  hub.close();
});

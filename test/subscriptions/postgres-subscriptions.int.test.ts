// Subscriptions on the postgres engine: two service processes' engines share one database, and
// a subscriber on one node gets, exactly once and in order, what is appended on either node.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { EventRecord } from "../../src/contract/bodies.js";
import type { StorageEngine } from "../../src/storage/engine.js";
import type { EssError } from "../../src/errors.js";
import { openPostgresEngine } from "../../src/storage/postgres/postgres-engine.js";
import { SubscriptionHub } from "../../src/operations/subscription/hub.js";
import type { SubscriptionSink } from "../../src/operations/subscription/subscription.js";
import { createTestDatabase } from "../storage/postgres-test-database.js";
import { eventually } from "../helpers/eventually.js";

class Collector implements SubscriptionSink {
  events: EventRecord[] = [];
  caughtUp_ = false;
  error: EssError | null = null;
  event(record: EventRecord): boolean {
    this.events.push(record);
    return true;
  }
  caughtUp(): void {
    this.caughtUp_ = true;
  }
  checkpoints: number[] = [];
  checkpoint(position: number): void {
    this.checkpoints.push(position);
  }
  whenWritable(): null {
    return null;
  }
  failed(error: EssError): void {
    this.error = error;
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

test("a subscriber on one node gets every event appended on either node, once and in order", async () => {
  const database = await createTestDatabase();
  const nodeA = await openPostgresEngine({ url: database.url });
  const nodeB = await openPostgresEngine({ url: database.url });
  const hub = new SubscriptionHub(nodeA, { pageEvents: 7 });
  try {
    await append(nodeB, "acme", "orders", 10);
    const stream = new Collector();
    const all = new Collector();
    const others = new Collector();
    await hub.open({ kind: "stream", tenant_id: "acme", stream_id: "orders" }, 0, stream);
    await hub.open({ kind: "all", tenant_id: "acme" }, 0, all);
    // A filtered $all: only the other-* streams (and a checkpoint before caught_up).
    const filter = {
      stream_prefix: ["other-"],
      event_type_prefix: [],
      stream_regex: "-[01]$",
      event_type_regex: null,
    };
    await hub.open({ kind: "all", tenant_id: "acme", filter }, 0, others);
    // Its history (the ten orders events, none matching) is read before anything else is
    // appended: then it ends on passed-over events, which is when a checkpoint comes before
    // caught_up. (Appends racing the history read could make it end on a match instead.)
    await eventually(() => others.caughtUp_, "the filtered subscription's caught_up");
    const writers = [nodeA, nodeB].map(async (engine, n) => {
      for (let i = 0; i < 20; i++) {
        await append(engine, "acme", "orders", 2);
        await append(engine, "globex", "orders", 1);
        await append(engine, "acme", `other-${n}`, 1);
      }
    });
    await Promise.all(writers);
    await eventually(() => stream.events.length >= 90, "90 stream events");
    await eventually(() => all.events.length >= 130, "130 $all events");
    assert.deepEqual(
      stream.events.map((e) => e.revision),
      Array.from({ length: 90 }, (_, i) => i),
    );
    const positions = all.events.map((e) => e.position);
    assert.equal(new Set(positions).size, positions.length, "no duplicate");
    assert.deepEqual(
      positions,
      [...positions].sort((x, y) => x - y),
      "in position order",
    );
    assert.equal(all.events.length, 130);
    assert.equal(stream.error, null);
    await eventually(() => others.events.length >= 40, "40 filtered $all events");
    assert.deepEqual(
      others.events.map((e) => e.position),
      all.events.filter((e) => e.stream_id.startsWith("other-")).map((e) => e.position),
    );
    assert.ok(others.checkpoints.length >= 1, "a checkpoint before caught_up");
    assert.ok(others.checkpoints.every((p, i) => i === 0 || p > others.checkpoints[i - 1]!));
  } finally {
    hub.close();
    await nodeA.close();
    await nodeB.close();
    await database.drop();
  }
});

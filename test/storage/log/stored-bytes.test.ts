// Reads with stored_bytes (what the operations ask for): the events are StoredEventRecords that
// read exactly like the plain records, and whose bytes never change after the read, whatever the
// engine does next (appends into the same cached block, cache eviction, a scavenge rewriting the
// segment they came from).
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import type { EventRecord } from "../../../src/contract/bodies.js";
import type { EventToAppend } from "../../../src/storage/engine.js";
import { StoredEventRecord } from "../../../src/contract/stored-event-record.js";
import { captureLogger, events, makeTempDir, plainEventRecord, removeDir } from "./helpers.js";

function mixedEvents(count: number): EventToAppend[] {
  return Array.from({ length: count }, (_, i) => ({
    event_id: randomUUID(),
    event_type: i % 3 === 0 ? "Bestellung📦" : i % 3 === 1 ? "OrderPlaced" : "OrderPlacef",
    data: JSON.stringify({ n: i, name: "Zoë", city: "Kraków", pad: "é".repeat(i * 7) }),
    metadata: i % 2 === 0 ? "{}" : JSON.stringify({ by: "東京", i }),
  }));
}

async function readBoth(
  engine: LogEngine,
  input: {
    stream_id: string;
    direction: "forward" | "backward";
    from_revision: number | null;
    limit: number;
  },
): Promise<[EventRecord[], EventRecord[]]> {
  const plainPage = await engine.readStream({ tenant_id: "t", ...input });
  const storedPage = await engine.readStream({ tenant_id: "t", ...input, stored_bytes: true });
  assert.deepEqual({ ...storedPage, events: [] }, { ...plainPage, events: [] });
  return [plainPage.events, storedPage.events];
}

test("a read with stored_bytes gives the plain read's events, forward, backward, after retention and in ReadAll", async () => {
  const dir = makeTempDir();
  const engine = await openLogEngine({
    dataDir: dir,
    segmentBytesMax: 16 * 1024,
    logger: captureLogger().logger,
  });
  try {
    for (let i = 0; i < 6; i++) {
      await engine.append({
        tenant_id: "t",
        stream_id: "a",
        events: mixedEvents(10),
        expected_revision: "any",
      });
      await engine.append({ tenant_id: "t", stream_id: "b", events: events(3), expected_revision: "any" });
    }
    await engine.setRetention("t", "a", { max_age_seconds: null, max_count: null, truncate_before: 7 });
    for (const direction of ["forward", "backward"] as const) {
      for (const from_revision of [null, 0, 8, 30]) {
        const [plainEvents, storedEvents] = await readBoth(engine, {
          stream_id: "a",
          direction,
          from_revision,
          limit: 1000,
        });
        assert.ok(plainEvents.length > 0 || (direction === "backward" && from_revision === 0));
        assert.ok(storedEvents.every((e) => e instanceof StoredEventRecord));
        assert.deepEqual(storedEvents.map(plainEventRecord), plainEvents);
        assert.deepEqual(
          storedEvents.map((e) => JSON.parse(JSON.stringify(e)) as unknown),
          plainEvents,
          "toJSON gives the plain record",
        );
      }
    }
    const plainAll = await engine.readAll({ tenant_id: "t", from_position: 0, limit: 1000 });
    const storedAll = await engine.readAll({
      tenant_id: "t",
      from_position: 0,
      limit: 1000,
      stored_bytes: true,
    });
    assert.equal(storedAll.next_position, plainAll.next_position);
    assert.equal(storedAll.events.length, plainAll.events.length);
    assert.deepEqual(storedAll.events.map(plainEventRecord), plainAll.events);
  } finally {
    await engine.close();
    removeDir(dir);
  }
});

test("a plain read repeats an event type or metadata only where the stored bytes are equal", async () => {
  const dir = makeTempDir();
  const engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
  try {
    // Same length, different bytes ("OrderPlaced" / "OrderPlacef"), and equal texts in a row.
    const appended = mixedEvents(30);
    await engine.append({ tenant_id: "t", stream_id: "a", events: appended, expected_revision: "any" });
    const page = await engine.readStream({
      tenant_id: "t",
      stream_id: "a",
      direction: "forward",
      from_revision: null,
      limit: 100,
    });
    assert.deepEqual(
      page.events.map((e) => [e.event_id, e.event_type, e.data, e.metadata]),
      appended.map((e) => [e.event_id, e.event_type, e.data, e.metadata]),
    );
  } finally {
    await engine.close();
    removeDir(dir);
  }
});

test("a stored record's bytes never change: later appends into its block, cache eviction, a scavenge of its segment", async () => {
  const dir = makeTempDir();
  // The smallest cache (4 blocks) and small segments, so blocks are evicted and segments sealed.
  const engine = await openLogEngine({
    dataDir: dir,
    segmentBytesMax: 16 * 1024,
    blockCacheBytes: 1,
    logger: captureLogger().logger,
  });
  try {
    await engine.append({
      tenant_id: "t",
      stream_id: "old",
      events: mixedEvents(5),
      expected_revision: "any",
    });
    await engine.append({
      tenant_id: "t",
      stream_id: "keep",
      events: mixedEvents(5),
      expected_revision: "any",
    });
    const read = async (stream: string): Promise<EventRecord[]> =>
      (
        await engine.readStream({
          tenant_id: "t",
          stream_id: stream,
          direction: "forward",
          from_revision: null,
          limit: 100,
          stored_bytes: true,
        })
      ).events;
    // Held records of the active segment's tail block (the next appends extend that block).
    const held = [...(await read("old")), ...(await read("keep"))];
    const snapshot = held.map((e) => {
      const s = e as StoredEventRecord;
      return { fields: plainEventRecord(e), bytes: Buffer.from(s.bytes.subarray(s.eventIdStart, s.dataEnd)) };
    });
    for (let i = 0; i < 80; i++) {
      await engine.append({
        tenant_id: "t",
        stream_id: `fill-${i % 7}`,
        events: mixedEvents(3),
        expected_revision: "any",
      });
    }
    await engine.deleteStream("t", "old");
    for (let i = 0; i < 40; i++) {
      await engine.append({
        tenant_id: "t",
        stream_id: "tail",
        events: mixedEvents(3),
        expected_revision: "any",
      });
    }
    const result = await engine.scavenge({ dry_run: false });
    assert.ok(result.segments_rewritten > 0, "the held records' segment was rewritten");
    for (let i = 0; i < 7; i++) await read(`fill-${i}`); // churn the cache
    held.forEach((e, i) => {
      const s = e as StoredEventRecord;
      assert.deepEqual(plainEventRecord(e), snapshot[i]!.fields);
      assert.deepEqual(Buffer.from(s.bytes.subarray(s.eventIdStart, s.dataEnd)), snapshot[i]!.bytes);
    });
    assert.deepEqual(
      (await read("keep")).map(plainEventRecord),
      snapshot.slice(5).map((s) => s.fields),
    );
  } finally {
    await engine.close();
    removeDir(dir);
  }
});

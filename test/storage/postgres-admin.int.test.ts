// Operator duties of the postgres engine across nodes: scavenge in batches with one run at a
// time on any node, last_scavenge shared, storage status with table sizes and pool figures.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import type { EventToAppend } from "../../src/storage/engine.js";
import { openPostgresEngine, type PostgresEngine } from "../../src/storage/postgres/postgres-engine.js";
import { scavengeBatchRows, scavengeLockArgs } from "../../src/storage/postgres/scavenge.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";

function events(count: number): EventToAppend[] {
  return Array.from({ length: count }, (_, n) => ({
    event_id: randomUUID(),
    event_type: "Tested",
    data: JSON.stringify({ n }),
    metadata: "{}",
  }));
}

describe("postgres scavenge and status", () => {
  let db: TestDatabase;
  let nodeA: PostgresEngine;
  let nodeB: PostgresEngine;
  let clock = Date.parse("2026-01-01T00:00:00.000Z");

  before(async () => {
    db = await createTestDatabase();
    nodeA = await openPostgresEngine({ url: db.url, poolMax: 4, now: () => clock });
    nodeB = await openPostgresEngine({ url: db.url, poolMax: 4, now: () => clock });
  });

  after(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await db?.drop();
  });

  test("scavenge removes hidden events in batches, keeps positions, and lowers usage", async () => {
    const total = scavengeBatchRows * 2 + 500;
    const positions: number[] = [];
    for (let done = 0; done < total; done += 1000) {
      const r = await nodeA.append({
        tenant_id: "sc",
        stream_id: "big",
        events: events(Math.min(1000, total - done)),
        expected_revision: "any",
      });
      positions.push(r.position);
    }
    await nodeA.append({ tenant_id: "sc", stream_id: "small", events: events(3), expected_revision: "any" });
    await nodeB.setRetention("sc", "big", { max_age_seconds: null, max_count: 100, truncate_before: null });
    const lastKept = await nodeA.readStream({
      tenant_id: "sc",
      stream_id: "big",
      direction: "backward",
      from_revision: null,
      limit: 1,
    });
    const before = await nodeA.getTenantUsage("sc");

    const dry = await nodeB.scavenge({ dry_run: true });
    assert.equal(dry.dry_run, true);
    assert.equal(dry.events_removed, total - 100);
    assert.equal(dry.streams_affected, 1);
    // reads_total is left out: it counts reads, which a scavenge neither makes nor changes.
    const { reads_total: _readsBefore, ...beforeWithoutReads } = before ?? { reads_total: 0 };
    const { reads_total: _readsAfter, ...afterDry } = (await nodeA.getTenantUsage("sc")) ?? {
      reads_total: 0,
    };
    assert.deepEqual(afterDry, beforeWithoutReads, "a dry run changes nothing");

    const real = await nodeB.scavenge({ dry_run: false });
    assert.equal(real.events_removed, total - 100);
    assert.equal(real.bytes_reclaimed, dry.bytes_reclaimed);
    const after = await nodeA.getTenantUsage("sc");
    assert.equal(after?.events, (before?.events ?? 0) - (total - 100));
    assert.equal(after?.bytes, (before?.bytes ?? 0) - real.bytes_reclaimed);
    const info = await nodeA.getStreamInfo("sc", "big");
    assert.equal(info?.event_count, 100);
    assert.equal(info?.first_revision, total - 100);
    const kept = await nodeA.readStream({
      tenant_id: "sc",
      stream_id: "big",
      direction: "backward",
      from_revision: null,
      limit: 1,
    });
    assert.deepEqual(kept.events, lastKept.events, "remaining events keep their positions");
    assert.equal((await nodeA.verify()).ok, true);

    const status = await nodeA.status();
    assert.equal(status.last_scavenge?.events_removed, total - 100, "every node reports the last run");
    assert.equal((await nodeB.scavenge({ dry_run: true })).events_removed, 0);
  });

  test("a real scavenge while another node's run holds the lock is refused with SCAVENGE_IN_PROGRESS", async () => {
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(${scavengeLockArgs})`);
      await assert.rejects(nodeA.scavenge({ dry_run: false }), (e: { code?: string }) => {
        return e.code === "SCAVENGE_IN_PROGRESS";
      });
      const dry = await nodeA.scavenge({ dry_run: true });
      assert.equal(dry.dry_run, true, "a dry run needs no lock");
      await other.query(`SELECT pg_advisory_unlock(${scavengeLockArgs})`);
      const real = await nodeA.scavenge({ dry_run: false });
      assert.equal(real.dry_run, false);
    } finally {
      await other.end();
    }
  });

  test("max_age retention hides old events at once and scavenge removes them", async () => {
    await nodeA.append({ tenant_id: "age", stream_id: "a", events: events(5), expected_revision: "any" });
    clock += 60_000;
    await nodeB.append({ tenant_id: "age", stream_id: "a", events: events(2), expected_revision: "any" });
    await nodeA.setRetention("age", "a", { max_age_seconds: 30, max_count: null, truncate_before: null });
    const info = await nodeB.getStreamInfo("age", "a");
    assert.equal(info?.event_count, 2);
    assert.equal(info?.first_revision, 5);
    const all = await nodeB.readAll({ tenant_id: "age", from_position: 0, limit: 100 });
    assert.deepEqual(
      all.events.map((e) => e.revision),
      [5, 6],
    );
    const result = await nodeA.scavenge({ dry_run: false });
    assert.equal(result.events_removed, 5);
    clock += 60_000;
    assert.equal((await nodeB.getStreamInfo("age", "a"))?.event_count, 0);
  });

  test("storage status reports totals, table and index sizes, and pool figures", async () => {
    const status = await nodeB.status();
    assert.equal(status.engine, "postgres");
    assert.ok(status.events_total > 0);
    assert.ok(status.streams_total >= 3);
    assert.ok(status.last_position >= status.events_total);
    const events = status.tables?.find((t) => t.name === "ess_events");
    assert.ok(events && events.total_bytes > 0 && events.index_bytes > 0);
    assert.ok(status.pool && status.pool.total >= 1 && status.pool.total <= 4);
  });
});

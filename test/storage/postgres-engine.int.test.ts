// The postgres engine's own duties beyond the shared conformance suite: migrations that several
// nodes run at once, and rules that must hold across nodes (separate pools on one database).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import type { EventToAppend } from "../../src/storage/engine.js";
import { migrate } from "../../src/storage/postgres/migrate.js";
import { migrations } from "../../src/storage/postgres/migrations.js";
import { openPostgresEngine, type PostgresEngine } from "../../src/storage/postgres/postgres-engine.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";

function event(n: number, eventId: string = randomUUID()): EventToAppend {
  return { event_id: eventId, event_type: "Tested", data: JSON.stringify({ n }), metadata: "{}" };
}

describe("postgres engine", () => {
  let db: TestDatabase;
  let nodeA: PostgresEngine;
  let nodeB: PostgresEngine;

  before(async () => {
    db = await createTestDatabase();
    // Two nodes starting at once on an empty database: both migrate, neither fails.
    [nodeA, nodeB] = await Promise.all([
      openPostgresEngine({ url: db.url, poolMax: 4 }),
      openPostgresEngine({ url: db.url, poolMax: 4 }),
    ]);
  });

  after(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await db?.drop();
  });

  test("nodes starting at once apply every migration exactly once", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = await client.query<{ version: number }>(
        "SELECT version FROM ess_schema_migrations ORDER BY version",
      );
      assert.deepEqual(
        rows.rows.map((r) => r.version),
        migrations.map((m) => m.version),
      );
    } finally {
      await client.end();
    }
  });

  test("migrating again finds nothing to do", async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      assert.deepEqual(await migrate(pool), []);
    } finally {
      await pool.end();
    }
  });

  test("a database with a newer schema than the build is refused", async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      await pool.query("INSERT INTO ess_schema_migrations (version, name) VALUES (999, 'future')");
      await assert.rejects(migrate(pool), /newer than this build/);
    } finally {
      await pool.query("DELETE FROM ess_schema_migrations WHERE version = 999");
      await pool.end();
    }
  });

  test("events appended on one node are read back byte for byte on another", async () => {
    const data = '{"b": 1,   "a": "\\u00e9 unicode é"}';
    const appended = await nodeA.append({
      tenant_id: "t1",
      stream_id: "bytes-1",
      events: [{ event_id: randomUUID(), event_type: "Raw", data, metadata: '{"m":true}' }],
      expected_revision: "no_stream",
    });
    assert.equal(appended.first_revision, 0);
    const read = await nodeB.readStream({
      tenant_id: "t1",
      stream_id: "bytes-1",
      direction: "forward",
      from_revision: null,
      limit: 10,
    });
    assert.equal(read.events.length, 1);
    assert.equal(read.events[0]?.data, data);
    assert.equal(read.events[0]?.metadata, '{"m":true}');
    assert.equal(read.events[0]?.position, appended.position);
    assert.match(read.events[0]?.created_at ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test("concurrent appenders on two nodes with the same expected revision: exactly one wins", async () => {
    await nodeA.append({
      tenant_id: "t1",
      stream_id: "race-1",
      events: [event(0)],
      expected_revision: "no_stream",
    });
    for (let round = 0; round < 10; round++) {
      const expected = round;
      const results = await Promise.allSettled(
        [nodeA, nodeB, nodeA, nodeB].map((node, i) =>
          node.append({
            tenant_id: "t1",
            stream_id: "race-1",
            events: [event(i)],
            expected_revision: expected,
          }),
        ),
      );
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r) => r.status === "rejected");
      assert.equal(won.length, 1, `round ${round}`);
      for (const r of lost) {
        assert.equal((r.reason as { code?: string }).code, "WRONG_EXPECTED_REVISION");
      }
    }
    const info = await nodeB.getStreamInfo("t1", "race-1");
    assert.equal(info?.last_revision, 10);
    assert.equal(info?.event_count, 11);
  });

  test("the same event id appended concurrently on two nodes is written once", async () => {
    const id = randomUUID();
    const results = await Promise.all(
      [nodeA, nodeB, nodeA, nodeB].map((node) =>
        node.append({
          tenant_id: "t1",
          stream_id: "idem-1",
          events: [event(1, id)],
          expected_revision: "any",
        }),
      ),
    );
    for (const r of results) assert.deepEqual(r, results[0]);
    const read = await nodeA.readStream({
      tenant_id: "t1",
      stream_id: "idem-1",
      direction: "forward",
      from_revision: null,
      limit: 10,
    });
    assert.equal(read.events.length, 1);
  });

  test("appends written together in one transaction keep their own outcomes", async () => {
    // Concurrent appends on one node share a transaction (group commit); each is judged alone.
    const repeated = randomUUID();
    const outcomes = await Promise.allSettled([
      nodeA.append({ tenant_id: "batch", stream_id: "new-1", events: [event(1)], expected_revision: 5 }),
      nodeA.append({
        tenant_id: "batch",
        stream_id: "b-1",
        events: [event(2)],
        expected_revision: "no_stream",
      }),
      nodeA.append({ tenant_id: "batch", stream_id: "b-1", events: [event(3)], expected_revision: 0 }),
      nodeA.append({ tenant_id: "batch", stream_id: "b-1", events: [event(4)], expected_revision: 0 }),
      nodeA.append({
        tenant_id: "batch",
        stream_id: "b-2",
        events: [event(5, repeated)],
        expected_revision: "any",
      }),
      nodeA.append({
        tenant_id: "batch",
        stream_id: "b-2",
        events: [event(5, repeated)],
        expected_revision: "any",
      }),
      ...Array.from({ length: 30 }, (_, i) =>
        nodeA.append({
          tenant_id: "batch",
          stream_id: `many-${i % 5}`,
          events: [event(i)],
          expected_revision: "any",
        }),
      ),
    ]);
    const codes = outcomes.map((o) =>
      o.status === "fulfilled" ? "ok" : (o.reason as { code?: string }).code,
    );
    assert.deepEqual(codes.slice(0, 6), [
      "WRONG_EXPECTED_REVISION",
      "ok",
      "ok",
      "WRONG_EXPECTED_REVISION",
      "ok",
      "ok",
    ]);
    assert.ok(codes.slice(6).every((c) => c === "ok"));
    const [, , , , first, second] = outcomes;
    assert.ok(first?.status === "fulfilled" && second?.status === "fulfilled");
    assert.deepEqual(first.value, second.value, "the repeat answers with the original result");
    assert.equal(await nodeB.getStreamInfo("batch", "new-1"), null, "a refused append leaves no stream");
    assert.equal((await nodeB.getStreamInfo("batch", "b-1"))?.last_revision, 1);
    const usage = await nodeB.getTenantUsage("batch");
    assert.equal(usage?.streams, 7);
    assert.equal(usage?.events, 33);
    assert.equal(usage?.appends_total, 33);
    const positions = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value.position] : []));
    assert.equal(new Set(positions).size, positions.length - 1, "only the repeat shares a position");
    assert.equal((await nodeB.verify()).ok, true);
  });

  test("tenant usage counts appends made on every node", async () => {
    await nodeA.append({
      tenant_id: "usage-t",
      stream_id: "s1",
      events: [event(1), event(2)],
      expected_revision: "any",
    });
    await nodeB.append({
      tenant_id: "usage-t",
      stream_id: "s2",
      events: [event(3)],
      expected_revision: "any",
    });
    const usage = await nodeA.getTenantUsage("usage-t");
    assert.equal(usage?.streams, 2);
    assert.equal(usage?.events, 3);
    assert.equal(usage?.appends_total, 2);
    assert.ok((usage?.bytes ?? 0) > 0);
    assert.equal(await nodeA.getTenantUsage("nobody"), null);
  });

  test("users and the signing key created on one node are seen by the other", async () => {
    const keyA = await nodeA.auth.getOrCreateSigningKey(() => Buffer.from("a".repeat(32)));
    const keyB = await nodeB.auth.getOrCreateSigningKey(() => Buffer.from("b".repeat(32)));
    assert.deepEqual(keyA, keyB);
    await nodeA.auth.createUser({
      username: "alice",
      tenant_id: "t1",
      role: "writer",
      password_hash: "scrypt$x",
      created_at: new Date().toISOString(),
    });
    assert.equal((await nodeB.auth.getUser("alice"))?.role, "writer");
    await assert.rejects(
      nodeB.auth.createUser({
        username: "alice",
        tenant_id: "t2",
        role: "reader",
        password_hash: "scrypt$y",
        created_at: new Date().toISOString(),
      }),
      (e: { code?: string }) => e.code === "USER_EXISTS",
    );
    assert.equal(await nodeB.auth.countUsers(), 1);
    const deleted = await nodeB.auth.deleteUser("alice");
    assert.equal(deleted.username, "alice");
    assert.equal(await nodeA.auth.getUser("alice"), null);
  });

  test("verify finds a row whose content no longer matches its checksum", async () => {
    const healthy = await nodeA.verify();
    assert.equal(healthy.ok, true, JSON.stringify(healthy.errors));
    const appended = await nodeA.append({
      tenant_id: "t1",
      stream_id: "corrupt-1",
      events: [event(7)],
      expected_revision: "any",
    });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(`UPDATE ess_events SET data = '{"n":8}' WHERE position = $1`, [appended.position]);
      const broken = await nodeB.verify();
      assert.equal(broken.ok, false);
      assert.ok(broken.errors.some((e) => e.kind === "checksum_mismatch" && e.offset === appended.position));
    } finally {
      await client.query(`UPDATE ess_events SET data = '{"n":7}' WHERE position = $1`, [appended.position]);
      await client.end();
    }
    assert.equal((await nodeB.verify()).ok, true);
  });
});

// A database written at the schema before stream metadata (migration 1 only), with streams in
// it, keeps working once the current build migrates it: its events read back, its retention
// becomes each stream's metadata document (revision 0), and tombstones and metadata work on it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import pg from "pg";
import { eventChecksum } from "../../src/storage/postgres/checksum.js";
import { migrate } from "../../src/storage/postgres/migrate.js";
import { migrations } from "../../src/storage/postgres/migrations.js";
import { openPostgresEngine, type PostgresEngine } from "../../src/storage/postgres/postgres-engine.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";

let db: TestDatabase;
let engine: PostgresEngine | undefined;

/** Writes streams the way the engine at schema version 1 left them. */
async function writeVersion1Store(pool: pg.Pool): Promise<void> {
  const createdMs = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
  const created = new Date(createdMs).toISOString();
  const streams: [string, number, { hidden?: number; deleted?: boolean; maxCount?: number }][] = [
    ["plain", 3, {}],
    ["kept", 4, { maxCount: 2 }],
    ["soft", 2, { hidden: 2, deleted: true }],
  ];
  let position = 0;
  let bytesTotal = 0;
  for (const [stream, count, rules] of streams) {
    let bytes = 0;
    for (let revision = 0; revision < count; revision++) {
      position++;
      const fields = {
        tenant_id: "acme",
        stream_id: stream,
        revision,
        event_id: randomUUID(),
        event_type: "Old",
        data: JSON.stringify({ stream, revision }),
        metadata: "{}",
        created_at_ms: createdMs,
      };
      const size = "Old".length + fields.data.length + fields.metadata.length;
      bytes += size;
      await pool.query(
        `INSERT INTO ess_events (position, tenant_id, stream_id, revision, event_id, event_type, data, metadata,
           created_at, bytes, checksum) VALUES ($1, 'acme', $2, $3, $4, 'Old', $5, '{}', $6, $7, $8)`,
        [position, stream, revision, fields.event_id, fields.data, created, size, eventChecksum(fields)],
      );
    }
    bytesTotal += bytes;
    await pool.query(
      `INSERT INTO ess_streams (tenant_id, stream_id, last_revision, stored_events, bytes, hidden_before, deleted,
         max_count, last_position, created_at, updated_at) VALUES ('acme', $1, $2, $9, $3, $4, $5, $6, $7, $8, $8)`,
      [
        stream,
        count - 1,
        bytes,
        rules.hidden ?? 0,
        rules.deleted ?? false,
        rules.maxCount ?? null,
        position,
        created,
        count,
      ],
    );
  }
  await pool.query("UPDATE ess_global SET last_position = $1", [position]);
  await pool.query(
    `INSERT INTO ess_tenants (tenant_id, streams, events, bytes, appends_total, last_append_at)
     VALUES ('acme', 2, $1, $2, 3, $3)`,
    [position, bytesTotal, created],
  );
}

before(async () => {
  db = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    assert.deepEqual(await migrate(pool, migrations.slice(0, 1)), [1]);
    await writeVersion1Store(pool);
  } finally {
    await pool.end();
  }
  engine = await openPostgresEngine({ url: db.url, poolMax: 2 });
});

after(async () => {
  await engine?.close();
  await db?.drop();
});

const read = (e: PostgresEngine, stream: string) =>
  e.readStream({
    tenant_id: "acme",
    stream_id: stream,
    direction: "forward",
    from_revision: null,
    limit: 100,
  });

test("a store of schema version 1 reads back after the migration, its retention now its metadata", async () => {
  const e = engine!;
  assert.deepEqual(
    (await read(e, "plain")).events.map((x) => x.revision),
    [0, 1, 2],
  );
  assert.deepEqual(
    (await read(e, "kept")).events.map((x) => x.revision),
    [2, 3],
  );
  await assert.rejects(read(e, "soft"), (error: { code?: string }) => error.code === "STREAM_NOT_FOUND");
  assert.deepEqual(await e.getStreamMetadata("acme", "kept"), {
    stream_id: "kept",
    metadata_revision: 0,
    metadata: { $maxCount: 2 },
  });
  assert.deepEqual(await e.getStreamMetadata("acme", "plain"), {
    stream_id: "plain",
    metadata_revision: null,
    metadata: {},
  });
  const info = await e.getStreamInfo("acme", "kept");
  assert.equal(info?.tombstoned, false);
  assert.deepEqual(info?.retention, { max_age_seconds: null, max_count: 2, truncate_before: null });
  assert.equal((await e.verify()).ok, true);
});

test("after the migration the old streams take appends, tombstones and metadata", async () => {
  const e = engine!;
  const appended = await e.append({
    tenant_id: "acme",
    stream_id: "plain",
    events: [{ event_id: randomUUID(), event_type: "New", data: "{}", metadata: "{}" }],
    expected_revision: 2,
  });
  assert.equal(appended.first_revision, 3);
  assert.equal(appended.position, 10);
  const set = await e.setStreamMetadata({
    tenant_id: "acme",
    stream_id: "kept",
    metadata: { $maxCount: 1, owner: "x" },
    expected_metadata_revision: 0,
  });
  assert.equal(set.metadata_revision, 1);
  assert.equal((await read(e, "kept")).events.length, 1);
  const tombstoned = await e.deleteStream("acme", "soft", {
    expected_revision: "no_stream",
    tombstone: true,
  });
  assert.equal(tombstoned.tombstoned, true);
  await assert.rejects(read(e, "soft"), (error: { code?: string }) => error.code === "STREAM_TOMBSTONED");
  assert.equal((await e.getTenantUsage("acme"))?.streams, 2);
});

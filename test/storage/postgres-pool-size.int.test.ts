// SERVICE_POSTGRES_POOL_SIZE reaches the postgres engine: however many calls arrive at once, the
// node holds no more connections than the pool size plus its one listening connection.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pg from "pg";
import { loadConfig } from "../../src/config/config.js";
import type { StorageEngine } from "../../src/storage/engine.js";
import { openEngine } from "../../src/storage/open-engine.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";

let db: TestDatabase;
let engine: StorageEngine | null = null;

before(async () => {
  db = await createTestDatabase();
});

after(async () => {
  await engine?.close();
  await db?.drop();
});

async function essConnections(): Promise<number> {
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    const result = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'ess'",
      [db.name],
    );
    return result.rows[0]?.n ?? 0;
  } finally {
    await admin.end();
  }
}

test("with SERVICE_POSTGRES_POOL_SIZE=2, fifty concurrent reads use at most 2 + 1 connections", async () => {
  const config = loadConfig({
    SERVICE_STORAGE: "postgres",
    SERVICE_POSTGRES_URL: db.url,
    SERVICE_POSTGRES_POOL_SIZE: "2",
  });
  engine = await openEngine(config);
  const opened = engine;
  await opened.append({
    tenant_id: "default",
    stream_id: "pool",
    events: [
      { event_type: "E", data: "{}", metadata: "{}", event_id: "00000000-0000-4000-8000-000000000001" },
    ],
    expected_revision: "any",
  });
  let peak = 0;
  const reads = Array.from({ length: 50 }, () =>
    opened.readStream({
      tenant_id: "default",
      stream_id: "pool",
      direction: "forward",
      from_revision: 0,
      limit: 10,
    }),
  );
  // Sample while the reads are queued on the pool (the default pool of 10 would open 10 here).
  const sampling = (async () => {
    for (let i = 0; i < 5; i++) peak = Math.max(peak, await essConnections());
  })();
  const results = await Promise.all(reads);
  await sampling;
  peak = Math.max(peak, await essConnections());
  assert.ok(results.every((r) => r.events.length === 1));
  assert.ok(peak >= 1, "the engine's connections are visible in pg_stat_activity");
  assert.ok(peak <= 3, `connections of the node: ${peak}`);
});

// A row of ess_events changed behind the service's back (here with SQL) no longer matches the
// checksum the engine wrote with it at append: reads that need it answer DATA_CORRUPTED, every
// other read is served, health turns degraded, and the row is logged once.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import type { EventToAppend } from "../../src/storage/engine.js";
import { openPostgresEngine, type PostgresEngine } from "../../src/storage/postgres/postgres-engine.js";
import { captureLogger } from "./log/helpers.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";
import { rejectsWith } from "../../src/storage/conformance/harness.js";

function events(count: number, start = 0): EventToAppend[] {
  return Array.from({ length: count }, (_, i) => ({
    event_id: randomUUID(),
    event_type: "Tested",
    data: JSON.stringify({ n: start + i }),
    metadata: "{}",
  }));
}

describe("postgres rows changed behind the engine's back", () => {
  let db: TestDatabase;
  let engine: PostgresEngine;
  const capture = captureLogger();

  before(async () => {
    db = await createTestDatabase();
    engine = await openPostgresEngine({ url: db.url, poolMax: 2, logger: capture.logger });
  });

  after(async () => {
    await engine.close();
    await db.drop();
  });

  test("a tampered row answers DATA_CORRUPTED; other rows are served; health degraded; logged once", async () => {
    const t = "acme";
    await engine.append({ tenant_id: t, stream_id: "hurt", events: events(3), expected_revision: "any" });
    await engine.append({ tenant_id: t, stream_id: "hurt", events: events(2, 3), expected_revision: "any" });
    await engine.append({ tenant_id: t, stream_id: "other", events: events(4), expected_revision: "any" });
    assert.equal(engine.isDamaged(), false);
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    let position: number;
    try {
      const changed = await sql.query<{ position: string }>(
        `UPDATE ess_events SET data = '{"n":99}' WHERE tenant_id = $1 AND stream_id = 'hurt' AND revision = 3
         RETURNING position`,
        [t],
      );
      assert.equal(changed.rowCount, 1);
      position = Number(changed.rows[0]!.position);
    } finally {
      await sql.end();
    }
    const read = (direction: "forward" | "backward", from: number | null, limit = 100) =>
      engine.readStream({ tenant_id: t, stream_id: "hurt", direction, from_revision: from, limit });

    const error = await rejectsWith(read("forward", 0), "DATA_CORRUPTED");
    assert.deepEqual(error.details, { stream_id: "hurt", revision: 3, position });
    await rejectsWith(read("backward", null), "DATA_CORRUPTED");
    await rejectsWith(engine.readAll({ tenant_id: t, from_position: 0, limit: 100 }), "DATA_CORRUPTED");
    assert.equal(engine.isDamaged(), true);

    assert.deepEqual(
      (await read("forward", 0, 3)).events.map((e) => e.data),
      ['{"n":0}', '{"n":1}', '{"n":2}'],
    );
    assert.deepEqual(
      (await read("forward", 4)).events.map((e) => e.data),
      ['{"n":4}'],
    );
    const other = await engine.readStream({
      tenant_id: t,
      stream_id: "other",
      direction: "forward",
      from_revision: 0,
      limit: 100,
    });
    assert.equal(other.events.length, 4);
    const rest = await engine.readAll({ tenant_id: t, from_position: position + 1, limit: 100 });
    assert.equal(rest.events.length, 5);

    const logged = capture.lines.filter((l) =>
      l.msg.startsWith("a stored event row does not match its checksum"),
    );
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.equal(logged[0]!.fields.position, position);
  });
});

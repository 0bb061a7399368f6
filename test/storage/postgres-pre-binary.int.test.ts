/**
 * A database at schema version 1 holding events written by the last version before binary events
 * (test/fixtures/postgres-pre-binary: a pg_dump of what its make-pre-binary.mjs wrote through
 * that version's engine) opens with this one: migration 2 is applied, every event reads back as
 * the JSON event it was (content type application/json, the same text), verify passes, and
 * binary events appended afterwards sit beside the old ones.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import pg from "pg";
import type { EventRecord } from "../../src/contract/bodies.js";
import { openPostgresEngine } from "../../src/storage/postgres/postgres-engine.js";
import { readWholeStream } from "../helpers/crash-harness.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, "../../../test/fixtures/postgres-pre-binary");

interface Expected {
  streams: Record<string, EventRecord[] | { error: string }>;
  all: Record<string, EventRecord[]>;
  info: Record<string, unknown>;
}

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
  // The dump's psql meta-commands (\restrict, \unrestrict) are for psql; the SQL runs as it is.
  const sql = fs
    .readFileSync(path.join(fixture, "dump.sql"), "utf8")
    .split("\n")
    .filter((line) => !line.startsWith("\\"))
    .join("\n");
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
});

after(async () => {
  await db?.drop();
});

const blob = Buffer.from([0xff, 0x00, 0xfe, 0xed, 0xa0, 0x80]);

test("a version-1 database migrates to binary payloads and reads its events back as JSON", async () => {
  const expected = JSON.parse(fs.readFileSync(path.join(fixture, "expected.json"), "utf8")) as Expected;
  for (const list of [...Object.values(expected.streams), ...Object.values(expected.all)]) {
    if (Array.isArray(list)) for (const e of list) e.content_type = "application/json";
  }
  const engine = await openPostgresEngine({ url: db.url, poolMax: 2 });
  try {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const versions = await client.query<{ version: number }>(
      "SELECT version FROM ess_schema_migrations ORDER BY version",
    );
    await client.end();
    assert.deepEqual(
      versions.rows.map((r) => Number(r.version)),
      [1, 2],
    );
    const got: Expected = { streams: {}, all: {}, info: {} };
    for (const key of Object.keys(expected.streams)) {
      const [tenant, stream] = key.split("/") as [string, string];
      got.info[key] = await engine.getStreamInfo(tenant, stream);
      try {
        got.streams[key] = await readWholeStream(engine, tenant, stream);
      } catch (error) {
        got.streams[key] = { error: (error as { code: string }).code };
      }
    }
    for (const tenant of Object.keys(expected.all)) {
      got.all[tenant] = (await engine.readAll({ tenant_id: tenant, from_position: 0, limit: 1000 })).events;
    }
    assert.deepEqual(got, expected, "the same answers, every event JSON");
    let verify = await engine.verify();
    assert.equal(verify.ok, true, JSON.stringify(verify.errors));
    const old = expected.streams["acme/order-1"] as EventRecord[];
    const first = old[0]!;
    const again = await engine.append({
      tenant_id: "acme",
      stream_id: "order-1",
      events: [
        {
          event_id: first.event_id,
          event_type: first.event_type,
          data: first.data,
          metadata: first.metadata,
        },
      ],
      expected_revision: "any",
    });
    assert.equal(again.first_revision, 0, "idempotency across the migration");
    const appended = await engine.append({
      tenant_id: "acme",
      stream_id: "order-1",
      events: [
        {
          event_id: "10000000-0000-4000-8000-000000000001",
          event_type: "Blob",
          data: blob,
          metadata: Buffer.alloc(0),
        },
        { event_id: "10000000-0000-4000-8000-000000000002", event_type: "Json", data: "[1]", metadata: "{}" },
      ],
      expected_revision: old.at(-1)!.revision,
    });
    const events = await readWholeStream(engine, "acme", "order-1");
    assert.deepEqual(events.slice(0, old.length), old, "the old events unchanged");
    assert.deepEqual(
      events.slice(old.length).map((e) => [e.revision, e.content_type, e.data, e.metadata]),
      [
        [appended.first_revision, "application/octet-stream", blob, Buffer.alloc(0)],
        [appended.last_revision, "application/json", "[1]", "{}"],
      ],
    );
    verify = await engine.verify();
    assert.equal(verify.ok, true, JSON.stringify(verify.errors));
  } finally {
    await engine.close();
  }
});

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
import {
  appendBesideOld,
  assertOldThenNew,
  storedAnswers,
  withJsonContentType,
  withTombstonedField,
  type StoredAnswers,
} from "../helpers/stored-answers.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, "../../../test/fixtures/postgres-pre-binary");

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

test("a version-1 database migrates to binary payloads and reads its events back as JSON", async () => {
  const expected = JSON.parse(fs.readFileSync(path.join(fixture, "expected.json"), "utf8")) as StoredAnswers;
  withJsonContentType(withTombstonedField(expected));
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
      [1, 2, 3],
    );
    assert.deepEqual(await storedAnswers(engine, expected), expected, "the same answers, every event JSON");
    const verify = await engine.verify();
    assert.equal(verify.ok, true, JSON.stringify(verify.errors));
    const old = expected.streams["acme/order-1"] as EventRecord[];
    const added = await appendBesideOld(engine, "acme", "order-1", old);
    await assertOldThenNew(engine, "acme", "order-1", old, added, "after the migration");
  } finally {
    await engine.close();
  }
});

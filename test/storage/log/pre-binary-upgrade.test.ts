/**
 * A data directory written by the last version before binary events (test/fixtures/log-pre-binary,
 * made by its make-pre-binary.mjs) opens unchanged: no rewrite, every event reads back as the
 * JSON event it was (content type application/json, data and metadata the same text), verify
 * passes, idempotent repeats still answer; binary events appended after the upgrade sit beside
 * the old ones across restarts, a scavenge and verify.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openLogEngine } from "../../../src/storage/log/index.js";
import type { EventRecord } from "../../../src/contract/bodies.js";
import {
  appendBesideOld,
  assertOldThenNew,
  storedAnswers,
  withJsonContentType,
  withTombstonedField,
  type StoredAnswers,
} from "../../helpers/stored-answers.js";
import { makeTempDir, removeDir } from "./helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, "../../../../test/fixtures/log-pre-binary");

test("a data directory written before binary events reads back as JSON events, and takes binary ones", async () => {
  const dir = makeTempDir("ess-pre-binary-");
  try {
    fs.cpSync(path.join(fixture, "data"), dir, { recursive: true });
    const segmentsBefore = Object.fromEntries(
      fs
        .readdirSync(dir)
        .filter((n) => n.endsWith(".log"))
        .map((n) => [n, fs.readFileSync(path.join(dir, n))]),
    );
    const expected = JSON.parse(
      fs.readFileSync(path.join(fixture, "expected.json"), "utf8"),
    ) as StoredAnswers;
    withJsonContentType(withTombstonedField(expected));
    let engine = await openLogEngine({ dataDir: dir, segmentBytesMax: 8 * 1024 });
    assert.deepEqual(await storedAnswers(engine, expected), expected, "the same answers, every event JSON");
    assert.equal((await engine.verify()).ok, true);
    const old = expected.streams["acme/order-1"] as EventRecord[];
    const stored = await engine.readStream({
      tenant_id: "acme",
      stream_id: "order-1",
      direction: "forward",
      from_revision: null,
      limit: 1000,
      stored_bytes: true,
    });
    assert.deepEqual(
      stored.events.map((e) => [e.content_type, e.data, e.metadata]),
      old.map((e) => [e.content_type, e.data, e.metadata]),
      "the stored-bytes read path too",
    );
    for (const [name, bytes] of Object.entries(segmentsBefore)) {
      assert.deepEqual(fs.readFileSync(path.join(dir, name)), bytes, `${name} is not rewritten`);
    }
    const added = await appendBesideOld(engine, "acme", "order-1", old);
    for (let start = 0; start < 2; start++) {
      await engine.close();
      engine = await openLogEngine({ dataDir: dir, segmentBytesMax: 8 * 1024 });
      if (start === 1) await engine.scavenge({ dry_run: false });
      await assertOldThenNew(engine, "acme", "order-1", old, added, `start ${start}`);
    }
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

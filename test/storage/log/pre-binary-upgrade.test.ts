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
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import type { EventRecord } from "../../../src/contract/bodies.js";
import { readWholeStream } from "../../helpers/crash-harness.js";
import { makeTempDir, removeDir } from "./helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, "../../../../test/fixtures/log-pre-binary");

interface Expected {
  streams: Record<string, EventRecord[] | { error: string }>;
  all: Record<string, EventRecord[]>;
  info: Record<string, unknown>;
}

async function answers(engine: LogEngine, expected: Expected): Promise<Expected> {
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
  return got;
}

const blob = Buffer.from([0xff, 0x00, 0xfe, 0xed, 0xa0, 0x80]);

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
    const expected = JSON.parse(fs.readFileSync(path.join(fixture, "expected.json"), "utf8")) as Expected;
    for (const list of [...Object.values(expected.streams), ...Object.values(expected.all)]) {
      if (Array.isArray(list)) for (const e of list) e.content_type = "application/json";
    }
    let engine = await openLogEngine({ dataDir: dir, segmentBytesMax: 8 * 1024 });
    assert.deepEqual(await answers(engine, expected), expected, "the same answers, every event JSON");
    assert.equal((await engine.verify()).ok, true);
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
      (expected.streams["acme/order-1"] as EventRecord[]).map((e) => [e.content_type, e.data, e.metadata]),
      "the stored-bytes read path too",
    );
    for (const [name, bytes] of Object.entries(segmentsBefore)) {
      assert.deepEqual(fs.readFileSync(path.join(dir, name)), bytes, `${name} is not rewritten`);
    }
    // Idempotency across the upgrade, then binary events beside the old ones.
    const first = (expected.streams["acme/order-1"] as EventRecord[])[0]!;
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
    assert.equal(again.first_revision, 0);
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
      expected_revision: "any",
    });
    for (let start = 0; start < 2; start++) {
      await engine.close();
      engine = await openLogEngine({ dataDir: dir, segmentBytesMax: 8 * 1024 });
      if (start === 1) await engine.scavenge({ dry_run: false });
      const events = await readWholeStream(engine, "acme", "order-1");
      const old = expected.streams["acme/order-1"] as EventRecord[];
      assert.deepEqual(events.slice(0, old.length), old, `start ${start}: the old events unchanged`);
      assert.deepEqual(
        events.slice(old.length).map((e) => [e.revision, e.content_type, e.data, e.metadata]),
        [
          [appended.first_revision, "application/octet-stream", blob, Buffer.alloc(0)],
          [appended.last_revision, "application/json", "[1]", "{}"],
        ],
        `start ${start}: the new events`,
      );
      const verify = await engine.verify();
      assert.equal(verify.ok, true, JSON.stringify(verify.errors));
    }
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

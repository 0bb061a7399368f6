/**
 * The log engine's tombstones and metadata documents beyond the conformance suite: a data
 * directory with index files of an earlier format (written before stream metadata) upgrades,
 * its retention records becoming metadata documents, and takes tombstones and metadata that
 * then survive restarts from index files; and a kill -9 never loses an acknowledged tombstone or
 * metadata change.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import { captureLogger, events, makeTempDir, removeDir, runChildUntilKilled } from "./helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtureIdx1 = path.resolve(here, "../../../..", "test/fixtures/log-idx1");
const childScript = path.join(here, "stream-meta-crash-child.js");
const segmentBytesMax = 16 * 1024;

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

const readOf = (engine: LogEngine, tenant: string, stream: string) =>
  engine.readStream({
    tenant_id: tenant,
    stream_id: stream,
    direction: "forward",
    from_revision: null,
    limit: 1000,
  });

test("a data directory of an earlier index-file format takes tombstones and metadata that survive restarts", async () => {
  const dir = makeTempDir("ess-meta-upgrade-");
  try {
    fs.cpSync(path.join(fixtureIdx1, "data"), dir, { recursive: true });
    let engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    // The fixture set retention {max_count: 20} on acme/trimmed: that is its document now.
    assert.deepEqual(await engine.getStreamMetadata("acme", "trimmed"), {
      stream_id: "trimmed",
      metadata_revision: 0,
      metadata: { $maxCount: 20 },
    });
    assert.equal((await engine.getStreamMetadata("globex", "gone")).metadata_revision, null);
    const order2 = (await readOf(engine, "acme", "order-2")).events;
    const last = order2[order2.length - 1]!.revision;
    await engine.deleteStream("acme", "order-2", { expected_revision: last, tombstone: true });
    await engine.setStreamMetadata({
      tenant_id: "globex",
      stream_id: "cart-7",
      metadata: { $maxCount: 1, owner: "g" },
      expected_metadata_revision: "no_stream",
    });
    // Enough appends afterwards that the records above sit in sealed segments with index files.
    for (let i = 0; i < 40; i++) {
      await engine.append({
        tenant_id: "acme",
        stream_id: "filler",
        events: events(3, i * 3),
        expected_revision: "any",
      });
    }
    for (let start = 0; start < 3; start++) {
      await engine.close();
      const { logger, lines } = captureLogger();
      engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger });
      if (start > 0) {
        const opened = lines.find((l) => l.msg === "log engine opened")!;
        assert.equal(opened.fields.index_files_built, 0, "the restart uses the index files");
      }
      assert.equal(await code(readOf(engine, "acme", "order-2")), "STREAM_TOMBSTONED", `start ${start}`);
      assert.equal(
        await code(
          engine.append({
            tenant_id: "acme",
            stream_id: "order-2",
            events: events(1),
            expected_revision: "any",
          }),
        ),
        "STREAM_TOMBSTONED",
      );
      assert.equal((await engine.getStreamInfo("acme", "order-2"))?.tombstoned, true);
      assert.deepEqual(await engine.getStreamMetadata("globex", "cart-7"), {
        stream_id: "cart-7",
        metadata_revision: 0,
        metadata: { $maxCount: 1, owner: "g" },
      });
      assert.equal((await readOf(engine, "globex", "cart-7")).events.length, 1);
      assert.equal((await engine.verify()).ok, true);
      if (start === 1) assert.ok((await engine.scavenge({ dry_run: false })).events_removed > 0);
    }
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("SIGKILL never loses an acknowledged tombstone or metadata change", async () => {
  const dir = makeTempDir("ess-meta-crash-");
  try {
    const tombstoned = new Set<string>();
    const metadata = new Map<string, number>();
    for (let iteration = 0; iteration < 8; iteration++) {
      const lines = await runChildUntilKilled(
        childScript,
        dir,
        30 + Math.floor(Math.random() * 200),
        (line) => (/^(tombstoned|metadata) /.test(line) ? line.split(" ") : null),
      );
      for (const [kind, stream, revision] of lines) {
        if (kind === "tombstoned") tombstoned.add(stream!);
        else metadata.set(stream!, Number(revision));
      }
      const engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
      for (const stream of tombstoned) {
        assert.equal(await code(readOf(engine, "t", stream)), "STREAM_TOMBSTONED", `${iteration}: ${stream}`);
      }
      for (const [stream, revision] of metadata) {
        if (tombstoned.has(stream)) continue;
        // A tombstone the kill cut off before its acknowledgement may still be durable.
        if ((await engine.getStreamInfo("t", stream))?.tombstoned === true) continue;
        const got = await engine.getStreamMetadata("t", stream);
        assert.equal(got.metadata_revision, revision, `${iteration}: ${stream}`);
        assert.equal((await readOf(engine, "t", stream)).events.length, 2, "its $maxCount holds");
      }
      assert.equal((await engine.verify()).ok, true);
      await engine.close();
    }
    assert.ok(tombstoned.size > 0, "the child got as far as a tombstone");
  } finally {
    removeDir(dir);
  }
});

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import { isEssError } from "../../../src/errors.js";
import type { EventRecord } from "../../../src/contract/bodies.js";
import { captureLogger, events, makeTempDir, removeDir, runChildUntilKilled } from "./helpers.js";

const segmentBytesMax = 16 * 1024;
const childScript = path.join(path.dirname(fileURLToPath(import.meta.url)), "scavenge-child.js");

function open(dir: string): Promise<LogEngine> {
  return openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
}

async function readAllOf(engine: LogEngine, stream: string): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  let from: number | null = null;
  for (;;) {
    const page = await engine.readStream({
      tenant_id: "t",
      stream_id: stream,
      direction: "forward",
      from_revision: from,
      limit: 1000,
    });
    out.push(...page.events);
    if (page.next_revision === null) return out;
    from = page.next_revision;
  }
}

/** Streams: keep (all readable), count (max_count 5), cut (truncate_before 30), gone (deleted). */
async function prepare(engine: LogEngine): Promise<void> {
  for (let i = 0; i < 40; i++) {
    for (const s of ["keep", "count", "cut", "gone"]) {
      await engine.append({ tenant_id: "t", stream_id: s, events: events(1), expected_revision: "any" });
    }
  }
  await engine.setRetention("t", "count", { max_age_seconds: null, max_count: 5, truncate_before: null });
  await engine.setRetention("t", "cut", { max_age_seconds: null, max_count: null, truncate_before: 30 });
  await engine.deleteStream("t", "gone");
  // Fill the active segment past these events so they sit in sealed segments.
  for (let i = 0; i < 60; i++)
    await engine.append({ tenant_id: "t", stream_id: "filler", events: events(1), expected_revision: "any" });
}

function segmentBytes(dir: string): Buffer {
  return Buffer.concat(
    fs
      .readdirSync(dir)
      .filter((n) => n.endsWith(".log"))
      .map((n) => fs.readFileSync(path.join(dir, n))),
  );
}

test("a scavenge removes hidden events from disk and keeps every other event's revision and position", async () => {
  const dir = makeTempDir();
  try {
    let engine = await open(dir);
    await prepare(engine);
    const before = {
      keep: await readAllOf(engine, "keep"),
      count: await readAllOf(engine, "count"),
      cut: await readAllOf(engine, "cut"),
    };
    const removedIds = (
      await engine.readStream({
        tenant_id: "t",
        stream_id: "keep",
        direction: "forward",
        from_revision: 0,
        limit: 1,
      })
    ).events.map((e) => e.event_id);
    const dry = await engine.scavenge({ dry_run: true });
    const statusBefore = await engine.status();
    assert.equal((await engine.status()).bytes_total, statusBefore.bytes_total, "a dry run changes nothing");
    const real = await engine.scavenge({ dry_run: false });
    assert.equal(real.events_removed, dry.events_removed);
    assert.equal(real.bytes_reclaimed, dry.bytes_reclaimed);
    assert.equal(real.segments_rewritten, dry.segments_rewritten);
    assert.equal(real.streams_affected, 3);
    // count keeps 5, cut keeps 10, gone keeps nothing.
    assert.equal(real.events_removed, 35 + 30 + 40);
    const statusAfter = await engine.status();
    // The store shrank by what was reclaimed, plus one small "scavenged" mark per stream trimmed.
    const growth = statusAfter.bytes_total - (statusBefore.bytes_total - real.bytes_reclaimed);
    assert.ok(growth > 0 && growth < 200 * real.streams_affected, `the marks are ${growth} bytes`);
    assert.equal(statusAfter.last_scavenge?.events_removed, real.events_removed);
    assert.deepEqual(await readAllOf(engine, "keep"), before.keep);
    assert.deepEqual(await readAllOf(engine, "count"), before.count);
    assert.deepEqual(await readAllOf(engine, "cut"), before.cut);
    assert.ok(
      removedIds.length === 1 && segmentBytes(dir).includes(Buffer.from(removedIds[0]!)),
      "kept events are on disk",
    );
    const goneInfo = await engine.getStreamInfo("t", "gone");
    assert.equal(goneInfo?.deleted, true);
    assert.equal((await engine.verify()).ok, true);
    // Reopen from the rewritten segments' index files, then from a full rebuild: the same answers.
    for (const dropCheckpoint of [false, true]) {
      await engine.close();
      if (dropCheckpoint) {
        for (const name of fs.readdirSync(dir))
          if (name.endsWith(".idx")) fs.unlinkSync(path.join(dir, name));
      }
      engine = await open(dir);
      assert.deepEqual(await readAllOf(engine, "count"), before.count);
      assert.deepEqual(await readAllOf(engine, "cut"), before.cut);
      assert.equal((await engine.getStreamInfo("t", "count"))?.event_count, 5);
      const revived = await engine.append({
        tenant_id: "t",
        stream_id: "gone",
        events: events(1),
        expected_revision: "any",
      });
      assert.equal(
        revived.first_revision,
        40 + (dropCheckpoint ? 1 : 0),
        "revisions continue after the scavenged prefix",
      );
      assert.equal((await engine.verify()).ok, true);
    }
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("scavenged bytes are gone from the segment files", async () => {
  const dir = makeTempDir();
  try {
    const engine = await open(dir);
    await prepare(engine);
    const hidden = (
      await engine.readStream({
        tenant_id: "t",
        stream_id: "cut",
        direction: "forward",
        from_revision: 30,
        limit: 1,
      })
    ).events;
    await engine.setRetention("t", "cut", { max_age_seconds: null, max_count: null, truncate_before: 31 });
    assert.ok(segmentBytes(dir).includes(Buffer.from(hidden[0]!.event_id)));
    await engine.scavenge({ dry_run: false });
    assert.ok(
      !segmentBytes(dir).includes(Buffer.from(hidden[0]!.event_id)),
      "the removed event's bytes are gone",
    );
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("appends and reads go on while a scavenge runs, and a second real scavenge is refused", async () => {
  const dir = makeTempDir();
  try {
    const engine = await open(dir);
    await prepare(engine);
    const keep = await readAllOf(engine, "keep");
    const running = engine.scavenge({ dry_run: false });
    await assert.rejects(
      engine.scavenge({ dry_run: false }),
      (e) => isEssError(e) && e.code === "SCAVENGE_IN_PROGRESS",
    );
    const work = [];
    for (let i = 0; i < 50; i++) {
      work.push(
        engine.append({ tenant_id: "t", stream_id: "during", events: events(1), expected_revision: "any" }),
      );
      work.push(readAllOf(engine, "keep").then((r) => assert.deepEqual(r, keep)));
    }
    await Promise.all([running, ...work]);
    assert.equal((await readAllOf(engine, "during")).length, 50);
    assert.equal((await engine.verify()).ok, true);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

interface Acked {
  stream: string;
  revision: number;
  position: number;
  eventId: string;
}

function parseAcked(line: string): Acked | null {
  const m = /^acked (\S+) (\d+) (\d+) (\S+)$/.exec(line);
  return m ? { stream: m[1]!, revision: Number(m[2]), position: Number(m[3]), eventId: m[4]! } : null;
}

test("SIGKILL at random moments of scavenges leaves a store that reopens consistent and verifies clean", async () => {
  const dir = makeTempDir();
  try {
    let engine = await open(dir);
    for (let i = 0; i < 300; i++) {
      await engine.append({
        tenant_id: "t",
        stream_id: `old-${i % 4}`,
        events: events(1),
        expected_revision: "any",
      });
    }
    await engine.close();
    const acked: Acked[] = [];
    for (let iteration = 0; iteration < 20; iteration++) {
      acked.push(
        ...(await runChildUntilKilled(childScript, dir, 20 + Math.floor(Math.random() * 200), parseAcked)),
      );
      engine = await open(dir);
      const result = await engine.verify();
      assert.equal(result.ok, true, `iteration ${iteration}: ${JSON.stringify(result.errors)}`);
      // Every acknowledged event that retention has not hidden is there, unchanged.
      const byStream = new Map<string, EventRecord[]>();
      for (const s of ["live-0", "live-1", "live-2", "old-0", "old-1", "old-2", "old-3"]) {
        const info = await engine.getStreamInfo("t", s);
        if (!info) continue;
        const read = await readAllOf(engine, s);
        assert.equal(read.length, info.event_count, `${s}: event_count matches what reads return`);
        read.forEach((e, i) =>
          assert.equal(e.revision, (info.first_revision ?? 0) + i, `${s}: revisions without gaps`),
        );
        byStream.set(s, read);
      }
      for (const a of acked) {
        const read = byStream.get(a.stream) ?? [];
        const first = read[0]?.revision ?? Infinity;
        if (a.stream.startsWith("old-") && a.revision < first) continue;
        const found = read.find((e) => e.event_id === a.eventId);
        assert.ok(found, `iteration ${iteration}: acknowledged ${a.stream}@${a.revision} is readable`);
        assert.equal(found.revision, a.revision);
        assert.equal(found.position, a.position);
      }
      await engine.close();
    }
    assert.ok(acked.length > 20, "the child did real work");
  } finally {
    removeDir(dir);
  }
});

test("the last scavenge is reported after a kill -9 right after it and after an index rebuild", async () => {
  const dir = makeTempDir();
  try {
    // A child appends, runs a scavenge that finds nothing to remove (so no index file is
    // written for it), says so, and is killed before it can close.
    const engineModule = path.resolve(path.dirname(childScript), "../../../src/storage/log/index.js");
    const script = [
      `const { openLogEngine } = await import(${JSON.stringify(engineModule)});`,
      `const engine = await openLogEngine({ dataDir: ${JSON.stringify(dir)}, segmentBytesMax: ${segmentBytesMax} });`,
      `await engine.append({ tenant_id: "t", stream_id: "s", expected_revision: "any",`,
      `  events: [{ event_id: crypto.randomUUID(), event_type: "e", data: "{}", metadata: "{}" }] });`,
      `const result = await engine.scavenge({ dry_run: false });`,
      `process.stdout.write(JSON.stringify((await engine.status()).last_scavenge) + "\\n");`,
      `setInterval(() => {}, 1000);`,
    ].join("\n");
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ESS_LOG_LEVEL: "error" },
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      void exited.then(() => reject(new Error(`the child exited early: ${out}`)));
    });
    child.kill("SIGKILL");
    await exited;
    const reported: unknown = JSON.parse(line);
    assert.ok(reported !== null && typeof reported === "object");

    let engine = await open(dir);
    assert.deepEqual((await engine.status()).last_scavenge, reported, "after the kill");
    await engine.close();
    const indexFiles = fs.readdirSync(dir).filter((n) => n.endsWith(".idx"));
    assert.ok(indexFiles.length > 0, "the close saved an index file");
    for (const name of indexFiles) fs.rmSync(path.join(dir, name));
    const { lines, logger } = captureLogger();
    engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger });
    const opened = lines.find((l) => l.msg === "log engine opened")!.fields;
    assert.equal(opened.index_files_used, 0);
    assert.ok((opened.records_replayed as number) > 0, "the index is rebuilt from the log");
    assert.deepEqual((await engine.status()).last_scavenge, reported, "after a rebuild without index files");
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("closing waits for the maintenance run going, but a verify still waiting its turn is not run (UNAVAILABLE)", async () => {
  const dir = makeTempDir();
  try {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let paused!: () => void;
    const reached = new Promise<void>((resolve) => (paused = resolve));
    const engine = await openLogEngine({
      dataDir: dir,
      segmentBytesMax,
      logger: captureLogger().logger,
      async beforeScavengeSegment(ctx) {
        if (ctx.index !== 1) return;
        paused();
        await released;
      },
    });
    await prepare(engine);
    const scavenge = engine.scavenge({ dry_run: false });
    await reached;
    const verify = engine.verify();
    const closing = engine.close();
    release();
    const [scavenged, verified] = await Promise.allSettled([scavenge, verify]);
    assert.equal(scavenged.status, "fulfilled", "the run going finishes");
    assert.equal(verified.status, "rejected");
    assert.ok(isEssError(verified.reason) && verified.reason.code === "UNAVAILABLE", String(verified.reason));
    await closing;
    const reopened = await open(dir);
    assert.equal((await reopened.verify()).ok, true);
    await reopened.close();
  } finally {
    removeDir(dir);
  }
});

/**
 * Start-up recovery, as a table: each row damages a data directory the way a crash or a bad
 * disk would, reopens it, and checks the answers and the one log line about cut bytes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import { captureLogger, event, events, makeTempDir, removeDir } from "./helpers.js";

const segmentBytesMax = 16 * 1024;

interface Answers {
  all: unknown;
  streams: unknown;
  infos: unknown;
  usage: unknown;
  lastPosition: number;
}

async function answers(engine: LogEngine): Promise<Answers> {
  const list = await engine.listStreams({ tenant_id: null, prefix: null, limit: 1000, cursor: null });
  const infos = [];
  for (const s of list.streams) infos.push(await engine.getStreamInfo(s.tenant_id, s.stream_id));
  const all = [];
  for (const t of ["t1", "t2"])
    all.push(await engine.readAll({ tenant_id: t, from_position: 0, limit: 1000 }));
  const usage = [];
  for (const t of ["t1", "t2"]) {
    const u = await engine.getTenantUsage(t);
    usage.push(u ? { ...u, reads_total: 0 } : null);
  }
  return { all, streams: list, infos, usage, lastPosition: (await engine.status()).last_position };
}

interface Fixture {
  dir: string;
  /** A checkpoint taken before the second half of the log was written. */
  oldCheckpoint: Buffer;
  beforeLast: Answers;
  full: Answers;
  lastSegment: string;
  /** Bytes of the last batch (three records of equal size) at the end of the last segment. */
  lastBatchBytes: number;
}

async function buildFixture(): Promise<Fixture> {
  const dir = makeTempDir("ess-recovery-");
  const silent = captureLogger().logger;
  let engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: silent });
  for (let i = 0; i < 120; i++) {
    await engine.append({
      tenant_id: i % 4 === 0 ? "t2" : "t1",
      stream_id: `s-${i % 9}`,
      events: events(1 + (i % 2)),
      expected_revision: "any",
    });
  }
  await engine.setRetention("t1", "s-1", { max_age_seconds: null, max_count: 3, truncate_before: null });
  await engine.close();
  const oldCheckpoint = fs.readFileSync(path.join(dir, "index.ckpt"));
  engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: silent });
  for (let i = 0; i < 60; i++) {
    await engine.append({
      tenant_id: "t1",
      stream_id: `late-${i % 5}`,
      events: events(1),
      expected_revision: "any",
    });
  }
  await engine.deleteStream("t1", "s-2");
  const beforeLast = await answers(engine);
  const sizeBefore = (await engine.status()).segments!.at(-1)!;
  const same = { data: JSON.stringify({ fixed: "z".repeat(100) }) };
  await engine.append({
    tenant_id: "t2",
    stream_id: "last",
    events: [event(0, same), event(1, same), event(2, same)],
    expected_revision: "any",
  });
  const after = (await engine.status()).segments!.at(-1)!;
  const lastBatchBytes = after.bytes - (after.name === sizeBefore.name ? sizeBefore.bytes : 32);
  const full = await answers(engine);
  await engine.close();
  return { dir, oldCheckpoint, beforeLast, full, lastSegment: path.join(dir, after.name), lastBatchBytes };
}

interface Row {
  name: string;
  damage: (f: Fixture) => void;
  expect: "full" | "beforeLast";
  bytesCut: (f: Fixture) => number;
  /** A warning naming why the checkpoint was not used, when expected. */
  checkpointWarning?: boolean;
}

const useOldCheckpoint = (f: Fixture): void =>
  fs.writeFileSync(path.join(f.dir, "index.ckpt"), f.oldCheckpoint);

const rows: Row[] = [
  {
    name: "a torn tail mid-record is cut back to the last whole batch",
    damage: (f) => {
      useOldCheckpoint(f);
      fs.truncateSync(f.lastSegment, fs.statSync(f.lastSegment).size - 10);
    },
    expect: "beforeLast",
    bytesCut: (f) => f.lastBatchBytes - 10,
  },
  {
    name: "a batch torn between its records never half-appears",
    damage: (f) => {
      useOldCheckpoint(f);
      fs.truncateSync(f.lastSegment, fs.statSync(f.lastSegment).size - f.lastBatchBytes / 3);
    },
    expect: "beforeLast",
    bytesCut: (f) => (f.lastBatchBytes * 2) / 3,
  },
  {
    name: "garbage after the tail is cut and every batch is kept",
    damage: (f) => {
      useOldCheckpoint(f);
      fs.appendFileSync(f.lastSegment, Buffer.from("this is not a record, just junk after the tail....."));
    },
    expect: "full",
    bytesCut: () => 51,
  },
  {
    name: "zeros after the tail (the writer's sparse room, left by a crash) are kept as room, not cut as torn",
    damage: (f) => {
      useOldCheckpoint(f);
      fs.appendFileSync(f.lastSegment, Buffer.alloc(4096));
    },
    expect: "full",
    bytesCut: () => 0,
  },
  {
    name: "a torn batch followed by zeros is cut, zeros and all",
    damage: (f) => {
      useOldCheckpoint(f);
      const size = fs.statSync(f.lastSegment).size;
      fs.truncateSync(f.lastSegment, size - 10);
      fs.appendFileSync(f.lastSegment, Buffer.alloc(4096));
    },
    expect: "beforeLast",
    bytesCut: (f) => f.lastBatchBytes - 10 + 4096,
  },
  {
    name: "a missing checkpoint falls back to a full rebuild with the same answers",
    damage: (f) => fs.unlinkSync(path.join(f.dir, "index.ckpt")),
    expect: "full",
    bytesCut: () => 0,
  },
  {
    name: "a corrupt checkpoint falls back to a full rebuild with the same answers",
    damage: (f) => {
      const file = path.join(f.dir, "index.ckpt");
      const bytes = fs.readFileSync(file);
      bytes[Math.floor(bytes.length / 2)]! ^= 0x40;
      fs.writeFileSync(file, bytes);
    },
    expect: "full",
    bytesCut: () => 0,
    checkpointWarning: true,
  },
  {
    name: "a truncated checkpoint falls back to a full rebuild with the same answers",
    damage: (f) => {
      const file = path.join(f.dir, "index.ckpt");
      fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    },
    expect: "full",
    bytesCut: () => 0,
    checkpointWarning: true,
  },
  {
    name: "a checkpoint older than the log replays only the rest of the log",
    damage: useOldCheckpoint,
    expect: "full",
    bytesCut: () => 0,
  },
  {
    name: "a checkpoint newer than a torn log is not used, and the tail is cut",
    damage: (f) => fs.truncateSync(f.lastSegment, fs.statSync(f.lastSegment).size - 10),
    expect: "beforeLast",
    bytesCut: (f) => f.lastBatchBytes - 10,
    checkpointWarning: true,
  },
];

for (const row of rows) {
  test(row.name, async () => {
    const f = await buildFixture();
    try {
      row.damage(f);
      const { lines, logger } = captureLogger();
      const engine = await openLogEngine({ dataDir: f.dir, segmentBytesMax, logger });
      try {
        const expected = row.expect === "full" ? f.full : f.beforeLast;
        assert.deepEqual(await answers(engine), expected);
        const cuts = lines.filter((l) => l.msg === "cut a torn tail at start-up");
        const expectedCut = row.bytesCut(f);
        if (expectedCut === 0) assert.equal(cuts.length, 0);
        else {
          assert.equal(cuts.length, 1, "one log line reports the cut");
          assert.equal(cuts[0]!.fields.bytes_cut, expectedCut);
        }
        if (row.checkpointWarning) {
          assert.ok(
            lines.some((l) => l.msg.startsWith("index checkpoint not used")),
            "the rebuild is logged",
          );
        }
        // The store goes on: the next append takes the next position.
        const next = await engine.append({
          tenant_id: "t1",
          stream_id: "after",
          events: events(1),
          expected_revision: "any",
        });
        assert.equal(next.position, expected.lastPosition + 1);
      } finally {
        await engine.close();
      }
      // And a second start-up (now from a fresh checkpoint) agrees with itself.
      const again = await openLogEngine({ dataDir: f.dir, segmentBytesMax, logger: captureLogger().logger });
      assert.equal(
        (await again.status()).last_position,
        (row.expect === "full" ? f.full : f.beforeLast).lastPosition + 1,
      );
      await again.close();
    } finally {
      removeDir(f.dir);
    }
  });
}

test("start-up from a checkpoint does not re-read sealed segments", async () => {
  const f = await buildFixture();
  try {
    const { lines, logger } = captureLogger();
    const engine = await openLogEngine({ dataDir: f.dir, segmentBytesMax, logger });
    const opened = lines.find((l) => l.msg === "log engine opened");
    assert.equal(opened?.fields.from_checkpoint, true);
    assert.ok((opened?.fields.segments as number) > 2, "the log has sealed segments");
    assert.equal(opened?.fields.segments_replayed, 1, "only the active segment's tail is read");
    assert.equal(opened?.fields.records_replayed, 0);
    assert.deepEqual(await answers(engine), f.full);
    await engine.close();
  } finally {
    removeDir(f.dir);
  }
});

test("a sealed segment's index is written to its own file, and status reports the last position it covers", async () => {
  const dir = makeTempDir("ess-recovery-");
  try {
    const engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    for (let i = 0; i < 50; i++)
      await engine.append({ tenant_id: "t1", stream_id: "s", events: events(1), expected_revision: "any" });
    const status = await engine.status();
    const segments = status.segments ?? [];
    const sealed = segments.filter((s) => s.sealed);
    assert.ok(sealed.length >= 2, "the appends filled more than one segment");
    // Index files are written in the background after a segment is sealed.
    const active = segments.find((s) => !s.sealed)!;
    const deadline = Date.now() + 5000;
    while ((await engine.status()).index!.checkpoint_position !== active.base_position - 1 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal((await engine.status()).index!.checkpoint_position, active.base_position - 1);
    for (const s of sealed) assert.ok(fs.existsSync(path.join(dir, s.name.replace(/\.log$/, ".idx"))), s.name);
    assert.equal(fs.existsSync(path.join(dir, "index.ckpt")), false);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

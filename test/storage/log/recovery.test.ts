/**
 * Start-up recovery, as a table: each row damages a data directory the way a crash or a bad
 * disk would (a torn tail of the log, a missing, damaged or stale index file), reopens it, and
 * checks the answers, the one log line about cut bytes, and which index files start-up used or
 * rebuilt from the log.
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

const idxPath = (dir: string, segmentName: string): string =>
  path.join(dir, segmentName.replace(/\.log$/, ".idx"));

function segmentNames(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((n) => /^seg-\d+\.log$/.test(n))
    .sort();
}

/** The `.idx` files of the segments but the last (the sealed ones), oldest first. */
function sealedIndexFiles(dir: string): string[] {
  return segmentNames(dir)
    .slice(0, -1)
    .map((n) => idxPath(dir, n));
}

/** Flips one bit of the byte at `at` in `file`. */
function flip(file: string, at: number): void {
  const bytes = fs.readFileSync(file);
  assert.ok(at < bytes.length, `${file} has a byte at ${at}`);
  bytes[at]! ^= 0x40;
  fs.writeFileSync(file, bytes);
}

interface Fixture {
  dir: string;
  beforeLast: Answers;
  full: Answers;
  lastSegment: string;
  /** The last segment's index file. */
  lastIndex: string;
  /** Bytes of the last batch (three records of equal size) at the end of the last segment. */
  lastBatchBytes: number;
  /** The last segment's index file as a clean close saved it before the last batch was appended. */
  indexBeforeLast: Buffer;
  /** The index file a clean close saved for the segment then active, which is sealed by now. */
  firstClose: { indexFile: string; bytes: Buffer };
  /** Sealed segments in the log. */
  sealed: number;
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
  const activeAtFirstClose = (await engine.status()).segments!.at(-1)!.name;
  await engine.close();
  const firstCloseIndex = idxPath(dir, activeAtFirstClose);
  const firstClose = { indexFile: firstCloseIndex, bytes: fs.readFileSync(firstCloseIndex) };
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
  await engine.close();
  const lastIndex = idxPath(dir, sizeBefore.name);
  const indexBeforeLast = fs.readFileSync(lastIndex);
  engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: silent });
  const same = { data: JSON.stringify({ fixed: "z".repeat(100) }) };
  await engine.append({
    tenant_id: "t2",
    stream_id: "last",
    events: [event(0, same), event(1, same), event(2, same)],
    expected_revision: "any",
  });
  const segments = (await engine.status()).segments!;
  const after = segments.at(-1)!;
  assert.equal(after.name, sizeBefore.name, "the last batch is in the segment active at the previous close");
  assert.notEqual(activeAtFirstClose, after.name, "the segment active at the first close is sealed");
  const lastBatchBytes = after.bytes - sizeBefore.bytes;
  const full = await answers(engine);
  await engine.close();
  return {
    dir,
    beforeLast,
    full,
    lastSegment: path.join(dir, after.name),
    lastIndex,
    lastBatchBytes,
    indexBeforeLast,
    firstClose,
    sealed: segments.length - 1,
  };
}

/** What the last segment's index file is at start-up, for the torn-tail rows. */
type ActiveIndex = "saved before the last batch" | "saved at the last close" | "missing";

function setActiveIndex(f: Fixture, which: ActiveIndex): void {
  if (which === "saved before the last batch") fs.writeFileSync(f.lastIndex, f.indexBeforeLast);
  else if (which === "missing") fs.unlinkSync(f.lastIndex);
}

const damagedInMemory = "a segment index file is damaged; its index was rebuilt from the log in memory";

/** Rebuilds of a damaged index file the file's head does not show: at start-up, or when a read finds it. */
const FOUND_OUT = "at start-up or when read";

interface Row {
  name: string;
  /** Damages the directory; may return the answers expected and the rebuilds instead of the row's. */
  damage: (f: Fixture) => void | Promise<{ answers: Answers; rebuilt: number }>;
  expect: "full" | "beforeLast";
  bytesCut: (f: Fixture) => number;
  /**
   * Sealed segments whose index start-up rebuilds from the log (0 unless given). FOUND_OUT: the
   * first sealed segment's index file is damaged past its head, so start-up may use it; then the
   * first read of the damage rebuilds that index from the log in memory, and logs it.
   */
  rebuilt?: ((f: Fixture) => number) | typeof FOUND_OUT;
  /** The reason each rebuild is logged with ("segment index file rebuilt from the log"); none when absent. */
  rebuildWarning?: RegExp;
  /** Records start-up reads from the log, when the row knows it. */
  replayed?: number;
  /** Tenants' appends_total is left out of the comparison (see the row). */
  ignoreAppendsTotal?: boolean;
}

/**
 * The torn-tail damage, each run with the last segment's index file saved at the close before
 * the last batch (start-up reads only the last batch), and missing (start-up reads the whole
 * segment); `growsOnly` damage also with the file saved at the last close.
 */
const tornTails: {
  name: string;
  damage: (f: Fixture) => void;
  expect: "full" | "beforeLast";
  bytesCut: (f: Fixture) => number;
  growsOnly?: boolean;
}[] = [
  {
    name: "a torn tail mid-record is cut back to the last whole batch",
    damage: (f) => fs.truncateSync(f.lastSegment, fs.statSync(f.lastSegment).size - 10),
    expect: "beforeLast",
    bytesCut: (f) => f.lastBatchBytes - 10,
  },
  {
    name: "a batch torn between its records never half-appears",
    damage: (f) => fs.truncateSync(f.lastSegment, fs.statSync(f.lastSegment).size - f.lastBatchBytes / 3),
    expect: "beforeLast",
    bytesCut: (f) => (f.lastBatchBytes * 2) / 3,
  },
  {
    name: "garbage after the tail is cut and every batch is kept",
    damage: (f) =>
      fs.appendFileSync(f.lastSegment, Buffer.from("this is not a record, just junk after the tail.....")),
    expect: "full",
    bytesCut: () => 51,
    growsOnly: true,
  },
  {
    name: "zeros after the tail (the writer's sparse room, left by a crash) are kept as room, not cut as torn",
    damage: (f) => fs.appendFileSync(f.lastSegment, Buffer.alloc(4096)),
    expect: "full",
    bytesCut: () => 0,
    growsOnly: true,
  },
  {
    name: "a torn batch followed by zeros is cut, zeros and all",
    damage: (f) => {
      const size = fs.statSync(f.lastSegment).size;
      fs.truncateSync(f.lastSegment, size - 10);
      fs.appendFileSync(f.lastSegment, Buffer.alloc(4096));
    },
    expect: "beforeLast",
    bytesCut: (f) => f.lastBatchBytes - 10 + 4096,
  },
];

const rows: Row[] = [];
for (const torn of tornTails) {
  // The index saved at the last close covers the whole last batch: a crash of a later run can
  // only leave bytes after it, so it is put together only with the damage that adds bytes.
  const saves: ActiveIndex[] = ["saved before the last batch", "missing"];
  if (torn.growsOnly) saves.push("saved at the last close");
  for (const which of saves) {
    rows.push({
      name: `${torn.name} (the last segment's index file ${which})`,
      damage: (f) => {
        setActiveIndex(f, which);
        torn.damage(f);
      },
      expect: torn.expect,
      bytesCut: torn.bytesCut,
      // From an index saved at a close, only what was appended after it is read (and kept only
      // when whole): the last batch, or nothing.
      replayed:
        which === "saved before the last batch"
          ? torn.expect === "full"
            ? 3
            : 0
          : which === "saved at the last close"
            ? 0
            : undefined,
    });
  }
}

/** The JSON of an index file's head: where its columns start in the body. */
function indexHead(file: string): { bodyStart: number; columns: Record<string, [number, number]> } {
  const bytes = fs.readFileSync(file);
  const json = JSON.parse(bytes.toString("utf8", 24, 24 + bytes.readUInt32LE(12))) as {
    columns: Record<string, [number, number]>;
  };
  return { bodyStart: bytes.readUInt32LE(20), columns: json.columns };
}

/** Runs a scavenge (the fixture hides s-1's old events and all of s-2's) and closes. */
async function scavenged(
  f: Fixture,
): Promise<{ answers: Answers; rewritten: number; indexBefore: Buffer[] }> {
  const engine = await openLogEngine({ dataDir: f.dir, segmentBytesMax, logger: captureLogger().logger });
  const indexBefore = sealedIndexFiles(f.dir).map((file) => fs.readFileSync(file));
  const result = await engine.scavenge({ dry_run: false });
  assert.ok(result.segments_rewritten >= 1, "the scavenge rewrote a segment");
  const live = await answers(engine);
  await engine.close();
  return { answers: live, rewritten: result.segments_rewritten, indexBefore };
}

rows.push(
  {
    name: "an index file saved at close that covers more than a torn log is not used, and the tail is cut",
    damage: (f) => fs.truncateSync(f.lastSegment, fs.statSync(f.lastSegment).size - 10),
    expect: "beforeLast",
    bytesCut: (f) => f.lastBatchBytes - 10,
  },
  {
    name: "an index file of the last segment saved at an earlier close: start-up reads only the rest of the log",
    damage: (f) => setActiveIndex(f, "saved before the last batch"),
    expect: "full",
    bytesCut: () => 0,
    replayed: 3,
  },
  {
    name: "a missing index file of a sealed segment is rebuilt from the log, with the same answers, and written again",
    damage: (f) => fs.unlinkSync(sealedIndexFiles(f.dir)[0]!),
    expect: "full",
    bytesCut: () => 0,
    rebuilt: () => 1,
  },
  {
    name: "with every index file missing, start-up reads the whole log and gives the same answers",
    damage: (f) => {
      for (const file of [...sealedIndexFiles(f.dir), f.lastIndex]) fs.unlinkSync(file);
    },
    expect: "full",
    bytesCut: () => 0,
    rebuilt: (f) => f.sealed,
  },
  {
    name: "an index file with a damaged head is rebuilt from the log, with the same answers",
    damage: (f) => {
      const file = sealedIndexFiles(f.dir)[0]!;
      const jsonLength = fs.readFileSync(file).readUInt32LE(12);
      flip(file, 24 + Math.floor(jsonLength / 2));
    },
    expect: "full",
    bytesCut: () => 0,
    rebuilt: () => 1,
    rebuildWarning: /checksum mismatch/,
  },
  {
    name: "an index file with a damaged body block gives the same answers, from the log, before and after reads find it",
    damage: (f) => {
      const file = sealedIndexFiles(f.dir)[0]!;
      flip(file, indexHead(file).bodyStart);
    },
    expect: "full",
    bytesCut: () => 0,
    rebuilt: FOUND_OUT,
  },
  {
    name: "an index file with a damaged event-id column gives the same answers, and the damage is logged",
    damage: (f) => {
      const file = sealedIndexFiles(f.dir)[0]!;
      const head = indexHead(file);
      flip(file, head.bodyStart + head.columns.idFingerprints![0] + 1);
    },
    expect: "full",
    bytesCut: () => 0,
    rebuilt: FOUND_OUT,
  },
  {
    name: "an index file truncated inside its head is rebuilt from the log, with the same answers",
    damage: (f) => {
      const file = sealedIndexFiles(f.dir)[0]!;
      fs.truncateSync(file, Math.floor(indexHead(file).bodyStart / 2));
    },
    expect: "full",
    bytesCut: () => 0,
    rebuilt: () => 1,
    rebuildWarning: /index file unusable/,
  },
  {
    name: "an index file truncated inside its body gives the same answers, and the damage is logged",
    damage: (f) => {
      const file = sealedIndexFiles(f.dir)[0]!;
      const { bodyStart } = indexHead(file);
      fs.truncateSync(file, bodyStart + Math.floor((fs.statSync(file).size - bodyStart) / 2));
    },
    expect: "full",
    bytesCut: () => 0,
    rebuilt: FOUND_OUT,
  },
  {
    name: "an index file saved while its segment was active is rebuilt once the segment is sealed",
    damage: (f) => fs.writeFileSync(f.firstClose.indexFile, f.firstClose.bytes),
    expect: "full",
    bytesCut: () => 0,
    rebuilt: () => 1,
    rebuildWarning: /describes another state of its segment/,
  },
  {
    name: "another segment's index file is not used for a segment",
    damage: (f) => {
      const [first, second] = sealedIndexFiles(f.dir);
      fs.copyFileSync(first!, second!);
    },
    expect: "full",
    bytesCut: () => 0,
    rebuilt: () => 1,
    rebuildWarning: /describes another state of its segment/,
  },
  {
    name: "after a scavenge, start-up from the rewritten segments' index files gives the answers the engine gave",
    damage: async (f) => ({ answers: (await scavenged(f)).answers, rebuilt: 0 }),
    expect: "full",
    bytesCut: () => 0,
  },
  {
    name: "a stale index file (of a segment's generation before a scavenge rewrote it) is rebuilt from the log",
    damage: async (f) => {
      const { answers: live, rewritten, indexBefore } = await scavenged(f);
      let stale = 0;
      sealedIndexFiles(f.dir).forEach((file, i) => {
        if (fs.readFileSync(file).equals(indexBefore[i]!)) return;
        fs.writeFileSync(file, indexBefore[i]!);
        stale++;
      });
      assert.equal(stale, rewritten, "each rewritten segment got a new index file");
      return { answers: live, rebuilt: stale };
    },
    expect: "full",
    bytesCut: () => 0,
    rebuildWarning: /describes another state of its segment/,
    // Appends whose every event the scavenge removed are no longer in the log: a rebuild from
    // the log cannot count them (the rewritten segment's index file kept them).
    ignoreAppendsTotal: true,
  },
);

function withoutAppendsTotal(a: Answers): Answers {
  const usage = (a.usage as (Record<string, unknown> | null)[]).map((u) =>
    u ? { ...u, appends_total: null } : u,
  );
  return { ...a, usage };
}

for (const row of rows) {
  test(row.name, async () => {
    const f = await buildFixture();
    try {
      const instead = await row.damage(f);
      const { lines, logger } = captureLogger();
      const engine = await openLogEngine({ dataDir: f.dir, segmentBytesMax, logger });
      const expected = instead?.answers ?? (row.expect === "full" ? f.full : f.beforeLast);
      const same = (a: Answers): Answers => (row.ignoreAppendsTotal ? withoutAppendsTotal(a) : a);
      try {
        const opened = lines.find((l) => l.msg === "log engine opened")!.fields;
        const counts = {
          built: opened.index_files_built,
          used: opened.index_files_used,
          read: opened.segments_read,
        };
        const warnings = lines.filter((l) => l.msg === "segment index file rebuilt from the log");
        let rebuilt: number;
        if (row.rebuilt === FOUND_OUT) {
          rebuilt = counts.built === 1 ? 1 : 0;
          assert.equal(warnings.length, rebuilt, "a rebuild at start-up is logged");
        } else {
          rebuilt = instead?.rebuilt ?? row.rebuilt?.(f) ?? 0;
          if (row.rebuildWarning) {
            assert.equal(warnings.length, rebuilt, "each rebuild is logged");
            for (const w of warnings) assert.match(w.fields.reason as string, row.rebuildWarning);
          } else assert.equal(warnings.length, 0);
        }
        assert.deepEqual(
          counts,
          { built: rebuilt, used: f.sealed - rebuilt, read: 1 + rebuilt },
          "sealed segments are read only when their index file cannot be used",
        );
        if (row.replayed !== undefined) assert.equal(opened.records_replayed, row.replayed);
        // Every sealed segment has its index file again.
        for (const file of sealedIndexFiles(f.dir)) assert.ok(fs.existsSync(file), file);

        assert.deepEqual(same(await answers(engine)), same(expected));
        const cuts = lines.filter((l) => l.msg === "cut a torn tail at start-up");
        const expectedCut = row.bytesCut(f);
        if (expectedCut === 0) assert.equal(cuts.length, 0);
        else {
          assert.equal(cuts.length, 1, "one log line reports the cut");
          assert.equal(cuts[0]!.fields.bytes_cut, expectedCut);
        }
        const inMemory = lines.filter((l) => l.msg === damagedInMemory);
        if (row.rebuilt === FOUND_OUT) {
          if (rebuilt === 0) {
            // Used at start-up: the reads above found the damage, and said so once.
            const segmentNo = Number(/^seg-(\d+)\.log$/.exec(segmentNames(f.dir)[0]!)![1]);
            assert.deepEqual(
              inMemory.map((l) => l.fields.segment),
              [segmentNo],
              "the damaged index file is logged once",
            );
          } else assert.equal(inMemory.length, 0);
          // The index rebuilt from the log goes on giving the same answers.
          assert.deepEqual(await answers(engine), expected);
          assert.equal(lines.filter((l) => l.msg === damagedInMemory).length, inMemory.length);
        } else assert.equal(inMemory.length, 0);
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
      // And a second start-up (now from the index files written by the first) agrees with itself.
      const second = captureLogger();
      const again = await openLogEngine({ dataDir: f.dir, segmentBytesMax, logger: second.logger });
      assert.equal((await again.status()).last_position, expected.lastPosition + 1);
      const opened = second.lines.find((l) => l.msg === "log engine opened")!.fields;
      assert.equal(opened.index_files_built, 0, "the first start-up wrote the index files it rebuilt");
      assert.equal(opened.segments_read, 1);
      assert.equal(opened.records_replayed, 0, "the close saved the last segment's index");
      await again.close();
    } finally {
      removeDir(f.dir);
    }
  });
}

test("start-up from index files does not read sealed segments", async () => {
  const f = await buildFixture();
  try {
    const { lines, logger } = captureLogger();
    const engine = await openLogEngine({ dataDir: f.dir, segmentBytesMax, logger });
    const opened = lines.find((l) => l.msg === "log engine opened");
    assert.ok((opened?.fields.segments as number) > 2, "the log has sealed segments");
    assert.equal(opened?.fields.index_files_used, (opened?.fields.segments as number) - 1);
    assert.equal(opened?.fields.index_files_built, 0);
    assert.equal(opened?.fields.segments_read, 1, "only the active segment is opened for reading");
    assert.equal(opened?.fields.records_replayed, 0, "its index saved at close covers all of it");
    assert.deepEqual(await answers(engine), f.full);
    await engine.close();
  } finally {
    removeDir(f.dir);
  }
});

test("a sealed segment's index is written to its own file, and status reports the last position it covers", async () => {
  const dir = makeTempDir("ess-recovery-");
  try {
    let engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    const big = { data: JSON.stringify({ pad: "p".repeat(1000) }) };
    for (let i = 0; i < 50; i++)
      await engine.append({
        tenant_id: "t1",
        stream_id: "s",
        events: [event(i, big)],
        expected_revision: "any",
      });
    const status = await engine.status();
    const segments = status.segments ?? [];
    const sealed = segments.filter((s) => s.sealed);
    assert.ok(sealed.length >= 2, "the appends filled at least two segments");
    // Index files are written in the background after a segment is sealed.
    const active = segments.find((s) => !s.sealed)!;
    const deadline = Date.now() + 5000;
    while (
      (await engine.status()).index!.checkpoint_position !== active.base_position - 1 &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal((await engine.status()).index!.checkpoint_position, active.base_position - 1);
    for (const s of sealed) assert.ok(fs.existsSync(idxPath(dir, s.name)), s.name);
    assert.equal(fs.existsSync(path.join(dir, "index.ckpt")), false);
    await engine.close();
    // The next start-up uses those files.
    const { lines, logger } = captureLogger();
    engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger });
    const opened = lines.find((l) => l.msg === "log engine opened")!.fields;
    assert.equal(opened.index_files_used, sealed.length);
    assert.equal(opened.index_files_built, 0);
    assert.equal((await engine.status()).index!.checkpoint_position, active.base_position - 1);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

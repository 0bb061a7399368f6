/**
 * Stored bytes damaged on disk after they were acknowledged: every read checks each record's
 * CRC32C and answers DATA_CORRUPTED instead of serving them, logs each damaged record once,
 * turns health degraded, and keeps serving what is intact. Start-up does not cut a damaged
 * record past what the last segment's saved index covers as if it were a torn tail.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import { captureLogger, event, events, makeTempDir, removeDir } from "./helpers.js";
import { rejectsWith } from "../../../src/storage/conformance/harness.js";

const damagedLine = "a stored record is damaged and is not served; reads that need it answer DATA_CORRUPTED";

function segmentFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((n) => /^seg-\d+\.log$/.test(n))
    .sort()
    .map((n) => path.join(dir, n));
}

/** Where `marker` sits in the log: the segment file and the offset of its first byte. */
function find(dir: string, marker: string): { file: string; at: number } {
  for (const file of segmentFiles(dir)) {
    const at = fs.readFileSync(file).indexOf(marker);
    if (at >= 0) return { file, at };
  }
  throw new Error(`${marker} is not in the log`);
}

/** Flips one bit of the byte at `at` in `file`, as a bad disk would. */
function flip(file: string, at: number): void {
  const fd = fs.openSync(file, "r+");
  try {
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, at);
    b[0]! ^= 0x04;
    fs.writeSync(fd, b, 0, 1, at);
  } finally {
    fs.closeSync(fd);
  }
}

/** The start of the record whose event id (36 ASCII characters at offset 48 of a record) is `eventId`. */
function recordStart(file: string, eventId: string): number {
  const at = fs.readFileSync(file).indexOf(eventId, 0, "latin1");
  assert.ok(at >= 48);
  return at - 48;
}

const t = "acme";

async function fill(engine: LogEngine): Promise<void> {
  for (let i = 0; i < 4; i++)
    await engine.append({ tenant_id: t, stream_id: "other", events: events(5), expected_revision: "any" });
  await engine.append({ tenant_id: t, stream_id: "hurt", events: events(3), expected_revision: "any" });
  await engine.append({
    tenant_id: t,
    stream_id: "hurt",
    events: [event(3, { data: JSON.stringify({ marker: "DAMAGE-ME-IN-DATA" }) })],
    expected_revision: "any",
  });
  await engine.append({ tenant_id: t, stream_id: "hurt", events: events(3, 4), expected_revision: "any" });
  await engine.append({ tenant_id: t, stream_id: "other", events: events(5), expected_revision: "any" });
}

test("a record whose data was damaged on disk is never served: DATA_CORRUPTED, logged once, health degraded, the rest readable", async () => {
  const dir = makeTempDir("ess-damaged-");
  try {
    const writer = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    await fill(writer);
    const damagedPosition = (
      await writer.readStream({
        tenant_id: t,
        stream_id: "hurt",
        direction: "forward",
        from_revision: 3,
        limit: 1,
      })
    ).events[0]!.position;
    await writer.close();
    const { file, at } = find(dir, "DAMAGE-ME-IN-DATA");
    flip(file, at + 3);

    const { lines, logger } = captureLogger();
    const engine = await openLogEngine({ dataDir: dir, logger });
    try {
      assert.equal(engine.isDamaged(), false, "nothing is known damaged before a read finds it");
      const read = (input: Partial<Parameters<LogEngine["readStream"]>[0]>) =>
        engine.readStream({
          tenant_id: t,
          stream_id: "hurt",
          direction: "forward",
          from_revision: 0,
          limit: 100,
          ...input,
        });
      const error = await rejectsWith(read({}), "DATA_CORRUPTED");
      assert.deepEqual(error.details, { stream_id: "hurt", revision: 3, position: damagedPosition });
      assert.doesNotMatch(error.message, /seg-|offset/, "no file names or offsets go to the client");
      await rejectsWith(read({ direction: "backward", from_revision: null }), "DATA_CORRUPTED");
      await rejectsWith(read({ stored_bytes: true }), "DATA_CORRUPTED");
      await rejectsWith(engine.readAll({ tenant_id: t, from_position: 0, limit: 100 }), "DATA_CORRUPTED");
      await rejectsWith(
        engine.readAll({ tenant_id: t, from_position: 0, limit: 100, stored_bytes: true }),
        "DATA_CORRUPTED",
      );
      assert.equal(engine.isDamaged(), true);

      // Pages that do not hold the damaged record are served as before.
      const before = await read({ limit: 3 });
      assert.deepEqual(
        before.events.map((e) => e.revision),
        [0, 1, 2],
      );
      const after = await read({ from_revision: 4 });
      assert.deepEqual(
        after.events.map((e) => e.revision),
        [4, 5, 6],
      );
      const backwardAfter = await read({ direction: "backward", from_revision: null, limit: 3 });
      assert.deepEqual(
        backwardAfter.events.map((e) => e.revision),
        [6, 5, 4],
      );
      const other = await engine.readStream({
        tenant_id: t,
        stream_id: "other",
        direction: "forward",
        from_revision: 0,
        limit: 100,
      });
      assert.equal(other.events.length, 25);
      for (const e of other.events) JSON.parse(e.data as string);
      const rest = await engine.readAll({ tenant_id: t, from_position: damagedPosition + 1, limit: 100 });
      assert.equal(rest.events.length, 8);

      // One log line for the damaged record, however many reads hit it, naming where it is.
      const logged = lines.filter((l) => l.msg === damagedLine);
      assert.equal(logged.length, 1, JSON.stringify(logged));
      const eventId = (
        await engine.readStream({
          tenant_id: t,
          stream_id: "hurt",
          direction: "forward",
          from_revision: 4,
          limit: 1,
        })
      ).events[0]!.event_id;
      // The damaged record ends where the next one (revision 4, same segment here) starts.
      assert.equal(logged[0]!.fields.segment, path.basename(file));
      const start = logged[0]!.fields.offset as number;
      assert.ok(start < at && at - start < 300, `offset ${start} is the record holding byte ${at}`);
      assert.ok(recordStart(file, eventId) > start);
      assert.equal(logged[0]!.fields.reason, "checksum");
    } finally {
      await engine.close();
    }
  } finally {
    removeDir(dir);
  }
});

test("a damaged position or length field answers DATA_CORRUPTED, not INTERNAL", async () => {
  const dir = makeTempDir("ess-damaged-");
  try {
    const writer = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    const ids = { position: event(0), length: event(0) };
    await writer.append({ tenant_id: t, stream_id: "p", events: [ids.position], expected_revision: "any" });
    await writer.append({ tenant_id: t, stream_id: "l", events: [ids.length], expected_revision: "any" });
    await writer.append({ tenant_id: t, stream_id: "fine", events: events(2), expected_revision: "any" });
    await writer.close();
    const [file] = segmentFiles(dir);
    flip(file!, recordStart(file!, ids.position.event_id) + 16 + 6); // a bit of the position f64
    flip(file!, recordStart(file!, ids.length.event_id) + 1); // the length grows by 1024
    const { lines, logger } = captureLogger();
    const engine = await openLogEngine({ dataDir: dir, logger });
    try {
      for (const stream of ["p", "l"]) {
        await rejectsWith(
          engine.readStream({
            tenant_id: t,
            stream_id: stream,
            direction: "forward",
            from_revision: 0,
            limit: 10,
          }),
          "DATA_CORRUPTED",
        );
      }
      const fine = await engine.readStream({
        tenant_id: t,
        stream_id: "fine",
        direction: "forward",
        from_revision: 0,
        limit: 10,
      });
      assert.equal(fine.events.length, 2);
      assert.equal(lines.filter((l) => l.msg === damagedLine).length, 2);
      assert.equal(lines.filter((l) => l.msg.includes("disagree")).length, 0);
    } finally {
      await engine.close();
    }
  } finally {
    removeDir(dir);
  }
});

test("an idempotent repeat of a damaged event answers DATA_CORRUPTED instead of a revision read from damaged bytes", async () => {
  const dir = makeTempDir("ess-damaged-");
  try {
    const writer = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    const e = event(0, { data: JSON.stringify({ marker: "REPEAT-ME" }) });
    await writer.append({ tenant_id: t, stream_id: "s", events: [e], expected_revision: "any" });
    await writer.close();
    const { file, at } = find(dir, "REPEAT-ME");
    flip(file, at);
    const engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    try {
      await rejectsWith(
        engine.append({ tenant_id: t, stream_id: "s", events: [e], expected_revision: "any" }),
        "DATA_CORRUPTED",
      );
      const info = await engine.getStreamInfo(t, "s");
      assert.equal(info?.last_revision, 0, "nothing was written");
    } finally {
      await engine.close();
    }
  } finally {
    removeDir(dir);
  }
});

/**
 * A log whose last segment holds batches past what its index file covers: the index file the
 * first clean close saved for the (then and still) active segment is put back after more batches
 * were written, so start-up reads (and checks) only the bytes after it. Returns how many bytes
 * of the segment that index file covers.
 */
async function logPastSavedIndex(dir: string): Promise<number> {
  const silent = captureLogger().logger;
  let engine = await openLogEngine({ dataDir: dir, logger: silent });
  await engine.append({ tenant_id: t, stream_id: "early", events: events(3), expected_revision: "any" });
  await engine.close();
  const [segment, ...more] = segmentFiles(dir);
  assert.equal(more.length, 0, "one segment");
  const indexFile = segment!.replace(/\.log$/, ".idx");
  const savedIndex = fs.readFileSync(indexFile);
  const covered = fs.statSync(segment!).size;
  engine = await openLogEngine({ dataDir: dir, logger: silent });
  await engine.append({
    tenant_id: t,
    stream_id: "late",
    events: [event(0, { data: JSON.stringify({ marker: "PAST-SAVED-INDEX-MIDDLE" }) })],
    expected_revision: "any",
  });
  await engine.append({
    tenant_id: t,
    stream_id: "late",
    events: [event(1, { data: JSON.stringify({ marker: "PAST-SAVED-INDEX-LAST", pad: "q".repeat(40) }) })],
    expected_revision: "any",
  });
  await engine.close();
  assert.deepEqual(segmentFiles(dir), [segment], "still one segment");
  fs.writeFileSync(indexFile, savedIndex);
  // Start-up from that index file reads only the two batches after it.
  const copy = makeTempDir("ess-damaged-copy-");
  try {
    for (const name of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, name), path.join(copy, name));
    const { lines, logger } = captureLogger();
    await (await openLogEngine({ dataDir: copy, logger })).close();
    const opened = lines.find((l) => l.msg === "log engine opened")!.fields;
    assert.equal(opened.records_replayed, 2, "start-up reads only the batches past the saved index");
  } finally {
    removeDir(copy);
  }
  return covered;
}

for (const which of ["MIDDLE", "LAST"]) {
  test(`start-up notices a damaged record past what the last segment's saved index covers (${which.toLowerCase()} batch) and does not cut it as a torn tail`, async () => {
    const dir = makeTempDir("ess-damaged-");
    try {
      const covered = await logPastSavedIndex(dir);
      const { file, at } = find(dir, `PAST-SAVED-INDEX-${which}`);
      assert.ok(at > covered, "the damaged byte is past what the saved index covers");
      const sizeBefore = fs.statSync(file).size;
      flip(file, at + 2);
      const { lines, logger } = captureLogger();
      await assert.rejects(openLogEngine({ dataDir: dir, logger }), (error: Error) => {
        assert.match(error.message, new RegExp(`${path.basename(file)} has a damaged record at offset \\d+`));
        return true;
      });
      assert.equal(fs.statSync(file).size, sizeBefore, "nothing was cut");
      assert.equal(lines.filter((l) => l.msg === "cut a torn tail at start-up").length, 0);
      const logged = lines.filter((l) => l.msg.startsWith("damaged record before the end of the log"));
      assert.equal(logged.length, 1);
      assert.equal(logged[0]!.fields.segment, path.basename(file));
      const offset = logged[0]!.fields.offset as number;
      assert.ok(offset < at && at - offset < 200, `offset ${offset} is the record holding byte ${at}`);

      // Read-only (ess verify) still opens, changes nothing, and verify names the record.
      const readOnly = await openLogEngine({ dataDir: dir, readOnly: true, logger: captureLogger().logger });
      try {
        const result = await readOnly.verify();
        assert.ok(
          result.errors.some(
            (e) => e.segment === path.basename(file) && e.offset === offset && e.kind === "checksum",
          ),
          JSON.stringify(result.errors),
        );
      } finally {
        await readOnly.close();
      }
      assert.equal(fs.statSync(file).size, sizeBefore);
    } finally {
      removeDir(dir);
    }
  });
}

test("a damaged record in a sealed segment found by a rebuild is skipped, logged, and turns health degraded", async () => {
  const dir = makeTempDir("ess-damaged-");
  try {
    const segmentBytesMax = 16 * 1024;
    const writer = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    await writer.append({
      tenant_id: t,
      stream_id: "sealed",
      events: [event(0, { data: JSON.stringify({ marker: "IN-A-SEALED-SEGMENT" }) })],
      expected_revision: "any",
    });
    for (let i = 0; i < 100; i++)
      await writer.append({ tenant_id: t, stream_id: "bulk", events: events(2), expected_revision: "any" });
    await writer.close();
    const { file, at } = find(dir, "IN-A-SEALED-SEGMENT");
    assert.notEqual(file, segmentFiles(dir).at(-1), "the record is in a sealed segment");
    flip(file, at);
    // Without index files, start-up rebuilds every segment's index from the log.
    const indexFiles = fs.readdirSync(dir).filter((n) => n.endsWith(".idx"));
    assert.ok(indexFiles.length >= 2, "the sealed segments had index files");
    for (const name of indexFiles) fs.unlinkSync(path.join(dir, name));
    const { lines, logger } = captureLogger();
    const engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger });
    try {
      assert.equal(lines.find((l) => l.msg === "log engine opened")!.fields.index_files_used, 0);
      assert.equal(engine.isDamaged(), true);
      assert.equal(lines.filter((l) => l.msg.startsWith("corrupt record in a sealed segment")).length, 1);
      const bulk = await engine.readStream({
        tenant_id: t,
        stream_id: "bulk",
        direction: "forward",
        from_revision: 0,
        limit: 1000,
      });
      assert.equal(bulk.events.length, 200);
    } finally {
      await engine.close();
    }
  } finally {
    removeDir(dir);
  }
});

/** 640 KiB of other events in stream "filler" (64 events of 10 KiB). */
async function appendFiller(engine: LogEngine): Promise<void> {
  const filler = JSON.stringify({ pad: "f".repeat(10_000) });
  for (let i = 0; i < 8; i++) {
    const batch = Array.from({ length: 8 }, (_, j) => event(i * 8 + j, { data: filler }));
    await engine.append({ tenant_id: t, stream_id: "filler", events: batch, expected_revision: "any" });
  }
}

/** Reads all of "filler": with the smallest block cache, that pushes every other block out. */
async function readFiller(engine: LogEngine): Promise<void> {
  const all = await engine.readStream({
    tenant_id: t,
    stream_id: "filler",
    direction: "forward",
    from_revision: 0,
    limit: 100,
  });
  assert.equal(all.events.length, 64);
}

test("a record checked once is not checked again while its block stays cached, and is checked again when its block is read from the file again", async () => {
  const dir = makeTempDir("ess-damaged-cache-");
  const { logger } = captureLogger();
  // The smallest cache: four 64 KiB blocks, so reading 640 KiB of other events evicts the first.
  const engine = await openLogEngine({ dataDir: dir, logger, blockCacheBytes: 1 });
  try {
    await engine.append({
      tenant_id: t,
      stream_id: "hurt",
      events: [event(0, { data: JSON.stringify({ marker: "DAMAGE-ME-LATER" }) })],
      expected_revision: "any",
    });
    await appendFiller(engine);
    const readHurt = () =>
      engine.readStream({
        tenant_id: t,
        stream_id: "hurt",
        direction: "forward",
        from_revision: 0,
        limit: 10,
      });
    const first = await readHurt();
    assert.match(first.events[0]!.data as string, /DAMAGE-ME-LATER/);

    const { file, at } = find(dir, "DAMAGE-ME-LATER");
    flip(file, at + 3);
    // The cached block still holds the bytes that passed their checksum: those are served.
    assert.equal((await readHurt()).events[0]!.data, first.events[0]!.data);
    assert.equal(engine.isDamaged(), false);

    // Reading the other events pushes the first block out of the cache; the next read of the
    // record comes from the file, is checked again, and the damage is found.
    await readFiller(engine);
    await rejectsWith(readHurt(), "DATA_CORRUPTED");
    assert.equal(engine.isDamaged(), true);
  } finally {
    await engine.close();
    removeDir(dir);
  }
});

test("a record that crosses a 64 KiB block edge is served from the cached blocks, checked once, and checked again when read from the file again", async () => {
  const dir = makeTempDir("ess-damaged-span-");
  const { logger } = captureLogger();
  // The smallest cache: four 64 KiB blocks, so reading 640 KiB of other events evicts them.
  const engine = await openLogEngine({ dataDir: dir, logger, blockCacheBytes: 1 });
  try {
    // Seven 3 KiB events: together they cross the first block's end at 65,536.
    for (let i = 0; i < 7; i++) {
      const data = JSON.stringify({ m: `SPAN-${i}`, pad: "s".repeat(3_000) });
      const batch = Array.from({ length: 3 }, (_, j) => event(i * 3 + j, { data }));
      await engine.append({ tenant_id: t, stream_id: "spans", events: batch, expected_revision: "any" });
    }
    // The byte 50 past the edge lies in an event's padding, of a record that starts before the edge.
    const [file] = segmentFiles(dir);
    const bytes = fs.readFileSync(file!);
    const edge = 65_536;
    assert.ok(bytes.length > edge + 4_000);
    const hit = edge + 50;
    assert.equal(String.fromCharCode(bytes[hit]!), "s");
    assert.ok(bytes.lastIndexOf('"pad"', hit, "latin1") < edge, "the record starts before the edge");

    const readSpans = () =>
      engine.readStream({
        tenant_id: t,
        stream_id: "spans",
        direction: "forward",
        from_revision: 0,
        limit: 100,
      });
    const first = await readSpans();
    assert.equal(first.events.length, 21);
    for (const [i, e] of first.events.entries()) {
      assert.deepEqual(JSON.parse(e.data as string), {
        m: `SPAN-${Math.floor(i / 3)}`,
        pad: "s".repeat(3_000),
      });
    }

    flip(file!, hit);
    // The bytes in hand passed their checksum and are kept with the cached block: served as read.
    assert.deepEqual(
      (await readSpans()).events.map((e) => e.data),
      first.events.map((e) => e.data),
    );
    assert.equal(engine.isDamaged(), false);

    // Reading other events pushes the blocks out of the cache; the record is read from the file
    // again, checked again, and the damage is found.
    await appendFiller(engine);
    await readFiller(engine);
    await rejectsWith(readSpans(), "DATA_CORRUPTED");
    assert.equal(engine.isDamaged(), true);
  } finally {
    await engine.close();
    removeDir(dir);
  }
});

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { encodeSegmentIndex, sortedIds } from "../../../src/storage/log/index-file-encoding.js";
import { IndexBlockCache, openSegmentIndexFile } from "../../../src/storage/log/segment-index-file.js";
import { crc32c } from "../../../src/storage/log/crc32c.js";
import { MemorySegmentIndex, type SegmentIndex } from "../../../src/storage/log/segment-index.js";
import { makeTempDir, removeDir } from "./helpers.js";

test("an index file's id column sorts by the low lane then position, the high lane going along, packed or not (segments of 2^21 positions or more)", () => {
  const base = 1_000_000_000;
  const n = 5000;
  const low = new Uint32Array(n);
  const high = new Uint32Array(n);
  const positions = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    // Many equal low lanes (ties broken by position), and the extremes of the range.
    low[i] = i % 7 === 0 ? 0xffffffff : i % 5 === 0 ? 1 : (Math.imul(i, 0x9e3779b1) >>> 0) % 1000;
    positions[i] = base + ((i * 7919) % n);
    high[i] = Math.imul(positions[i]! - base + 1, 0x85ebca6b) >>> 0;
  }
  const expected = Array.from({ length: n }, (_, i) => [low[i]!, high[i]!, positions[i]!] as const).sort(
    (a, b) => a[0] - b[0] || a[2] - b[2],
  );
  for (const span of [n, 2 ** 21]) {
    const got = sortedIds({ low, high, positions }, base, span);
    assert.equal(got.length, n);
    assert.deepEqual(
      Array.from({ length: n }, (_, i) => [got.low[i]!, got.high[i]!, got.positions[i]!]),
      expected.map(([l, h, p]) => [l, h, p]),
      `span ${span}`,
    );
  }
  // Given in position order (as the active segment's index gives them), with holes: the same.
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => positions[a]! - positions[b]!);
  const kept = order.filter((i) => i % 11 !== 0);
  const inOrder = {
    low: Uint32Array.from(kept, (i) => low[i]!),
    high: Uint32Array.from(kept, (i) => high[i]!),
    positions: Float64Array.from(kept, (i) => positions[i]!),
  };
  const got = sortedIds(inOrder, base, n);
  assert.deepEqual(
    Array.from({ length: kept.length }, (_, i) => [got.low[i]!, got.high[i]!, got.positions[i]!]),
    expected.filter(([, , p]) => kept.some((i) => positions[i] === p)).map(([l, h, p]) => [l, h, p]),
    "in position order",
  );
});

/** Positions `seg` visits for a fingerprint. */
function positionsOf(seg: SegmentIndex, low: number, high: number): number[] {
  const found: number[] = [];
  seg.findFingerprint(low, high, (position) => {
    found.push(position);
    return false;
  });
  return found;
}

test("a segment index tells apart ids whose fingerprints share the low lane: in memory, in its file, and loaded back from it", () => {
  const dir = makeTempDir("ess-idx-lanes-");
  try {
    const seg = new MemorySegmentIndex(1, 1, 1);
    const slot = seg.slotFor("t", "s", 1000);
    const shared = 0x12345678;
    const lanes: [number, number][] = [];
    for (let i = 0; i < 3000; i++) {
      // Positions 4 and 8 (revisions 3 and 7) share the low lane, with other high lanes.
      const low = i === 3 || i === 7 ? shared : (Math.imul(i + 1, 0x9e3779b1) | 1) >>> 0;
      const high = i === 3 ? 0xaaaa0000 : i === 7 ? 0x5555ffff : Math.imul(i + 1, 0x85ebca6b) >>> 0;
      lanes.push([low, high]);
      seg.addEvent(slot, i, i + 1, 1000 + i, 64 + i * 100, 100, low, high, true);
    }
    const segmentBytes = 64 + 3000 * 100;
    const filePath = path.join(dir, "seg-0000000001.idx");
    fs.writeFileSync(filePath, encodeSegmentIndex(seg, segmentBytes));
    const opened = openSegmentIndexFile(
      filePath,
      { segmentNo: 1, generation: 1, segmentBytes },
      new IndexBlockCache(1 << 20),
      () => seg,
    );
    assert.ok(opened.index, opened.index === null ? opened.reason : "");
    const loaded = MemorySegmentIndex.fromFile(opened.index);
    assert.ok(loaded);
    for (const [name, index] of [
      ["in memory", seg],
      ["in its file", opened.index],
      ["loaded back", loaded],
    ] as const) {
      assert.deepEqual(positionsOf(index, shared, 0xaaaa0000), [4], name);
      assert.deepEqual(positionsOf(index, shared, 0x5555ffff), [8], name);
      assert.deepEqual(
        positionsOf(index, shared, 0x12345678),
        [],
        `${name}: the low lane alone finds nothing`,
      );
      assert.deepEqual(positionsOf(index, lanes[2000]![0], lanes[2000]![1]), [2001], name);
      const { low, high } = index.fingerprintColumns();
      const pairs = Array.from(low, (l, i) => `${l}/${high[i]!}`).sort();
      assert.deepEqual(pairs, lanes.map(([l, h]) => `${l}/${h}`).sort(), `${name}: each event's two lanes`);
    }
    // The file says its format version (2: both lanes).
    const file = fs.readFileSync(filePath);
    const json = JSON.parse(file.toString("utf8", 24, 24 + file.readUInt32LE(12))) as { version: number };
    assert.equal(json.version, 2);
    opened.index.close();
  } finally {
    removeDir(dir);
  }
});

test("an index file of another format version is not used, and says so", () => {
  const dir = makeTempDir("ess-idx-version-");
  try {
    const seg = new MemorySegmentIndex(1, 1, 1);
    seg.addEvent(seg.slotFor("t", "s", 1000), 0, 1, 1000, 64, 100, 7, 9, true);
    const bytes = encodeSegmentIndex(seg, 164);
    // Version 1 in the JSON (same length), the head's checksum made right again.
    const jsonLength = bytes.readUInt32LE(12);
    const text = bytes.toString("utf8", 24, 24 + jsonLength).replace('"version":2', '"version":1');
    bytes.write(text, 24, "utf8");
    const filePath = path.join(dir, "seg-0000000001.idx");
    bytes.writeUInt32LE(crc32c(bytes, 12, bytes.readUInt32LE(20)), 8);
    fs.writeFileSync(filePath, bytes);
    const opened = openSegmentIndexFile(
      filePath,
      { segmentNo: 1, generation: 1, segmentBytes: 164 },
      new IndexBlockCache(1 << 20),
      () => seg,
    );
    assert.equal(opened.index, null);
    assert.ok(opened.index === null && opened.otherFormat, "an earlier format, not damage");
  } finally {
    removeDir(dir);
  }
});

test("the active segment's id lookup finds events added before and after its first lookup, and a segment with holes", () => {
  const seg = new MemorySegmentIndex(3, 1, 500);
  const slot = seg.slotFor("t", "s", 1000);
  // Revisions 0..9 at positions 500..509 except 503 (a hole: a record skipped by a rebuild).
  const add = (revision: number, low: number, high: number): void =>
    seg.addEvent(slot, revision, 500 + revision, 1000, 32 + revision * 100, 100, low, high, true);
  for (let r = 0; r < 6; r++) if (r !== 3) add(r, 10 + r, 20 + r);
  // The first lookup makes the table from what is there.
  assert.deepEqual(positionsOf(seg, 12, 22), [502]);
  assert.deepEqual(positionsOf(seg, 13, 23), [], "nothing at the hole");
  // Events after it, one of them sharing both lanes with an earlier one (a chance collision).
  for (let r = 6; r < 10; r++) add(r, r === 8 ? 12 : 10 + r, r === 8 ? 22 : 20 + r);
  assert.deepEqual(positionsOf(seg, 19, 29), [509], "added after the first lookup");
  assert.deepEqual(positionsOf(seg, 12, 22).sort(), [502, 508], "both events with the shared lanes");
  const { low, high } = seg.fingerprintColumns();
  assert.deepEqual(Array.from(low), [10, 11, 12, 14, 15, 16, 17, 12, 19]);
  assert.deepEqual(Array.from(high), [20, 21, 22, 24, 25, 26, 27, 22, 29]);
  // Sized for more events than it gets, it holds the same (the room is not events).
  const roomy = new MemorySegmentIndex(4, 1, 1, 100_000);
  roomy.addEvent(roomy.slotFor("t", "s", 1000), 0, 1, 1000, 32, 100, 5, 6, true);
  assert.equal(roomy.span(), 1);
  assert.deepEqual(positionsOf(roomy, 5, 6), [1]);
  assert.deepEqual(Array.from(roomy.fingerprintColumns().low), [5]);
});

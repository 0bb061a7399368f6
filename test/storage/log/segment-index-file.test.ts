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

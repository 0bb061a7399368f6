/**
 * Writing an index file (./index-file-format.ts): a sealed segment's index encoded as the
 * file's bytes, and the file written.
 *
 * Invariants: a file is written whole to a temp file, fsynced and renamed, so it is either all
 * there or not at all; it names the generation and byte size of the segment it was built from
 * (./segment-index-file.ts rebuilds one that does not match its segment: a scavenge or a crash
 * between the two renames).
 */
import fs from "node:fs";
import { crc32c } from "./crc32c.js";
import {
  align8,
  BLOCK_BYTES,
  FORMAT_VERSION,
  HEAD_BYTES,
  indexFilePath,
  MAGIC,
  type ColumnName,
  type IndexJson,
} from "./index-file-format.js";
import { NO_OFFSET, type IdColumns, type MemorySegmentIndex } from "./segment-index.js";
import { fsyncDirectory } from "./segment-store.js";

const hostIsLittleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The file's bytes for a segment index (the segment is `segmentBytes` long). */
export function encodeSegmentIndex(index: MemorySegmentIndex, segmentBytes: number): Buffer {
  const c = index.columns();
  const entries = c.runs.reduce((n, r) => n + r.positions.length, 0);
  const tenantTotal = c.tenantLists.reduce((n, t) => n + t.length, 0);
  const ids = sortedIds(c.ids, index.basePosition, c.posOffsets.length);
  const span = c.posOffsets.length;
  const sizes: [ColumnName, number, number][] = [
    ["posOffsets", span, 4],
    ["posSlots", span, 4],
    ["runPositions", entries, 8],
    ["runOffsets", entries, 4],
    ["runCreatedAt", entries, 8],
    ["tenantPositions", tenantTotal, 8],
    // The two lanes next to each other: filling the resident set reads them with one read.
    ["idFingerprints", ids.length, 4],
    ["idFingerprintsHigh", ids.length, 4],
    ["idPositions", ids.length, 8],
  ];
  const columns = {} as Record<ColumnName, [number, number]>;
  let bodyBytes = 0;
  for (const [name, count, width] of sizes) {
    columns[name] = [bodyBytes, count];
    bodyBytes += align8(count * width);
  }
  const body = Buffer.alloc(bodyBytes);
  const at = (name: ColumnName): number => columns[name][0];
  // Columns are filled through typed views (bulk copies where the memory index holds the same
  // type): a write call per value made sealing a segment ~8% of the appends' CPU (issue 30).
  // Views use the host's byte order; on a big-endian host each column is swapped after.
  const u32 = (name: ColumnName, count: number): Uint32Array =>
    new Uint32Array(body.buffer, body.byteOffset + at(name), count);
  const f64 = (name: ColumnName, count: number): Float64Array =>
    new Float64Array(body.buffer, body.byteOffset + at(name), count);
  const posOffsets = u32("posOffsets", span);
  const posSlots = u32("posSlots", span);
  for (let i = 0; i < span; i++) {
    const o = c.posOffsets[i]!;
    posOffsets[i] = o < 0 ? NO_OFFSET : o;
    posSlots[i] = o < 0 ? 0 : c.posSlots[i]!;
  }
  const runPositions = f64("runPositions", entries);
  const runOffsets = u32("runOffsets", entries);
  const runCreatedAt = f64("runCreatedAt", entries);
  let k = 0;
  const slots = index.slots.map((s, slot) => {
    const run = c.runs[slot]!;
    const runStart = k;
    runPositions.set(run.positions, k);
    runCreatedAt.set(run.createdAt, k);
    for (let i = 0; i < run.offsets.length; i++, k++) {
      const o = run.offsets[i]!;
      runOffsets[k] = o < 0 ? NO_OFFSET : o;
    }
    return { ...s, runStart };
  });
  const tenantPositions = f64("tenantPositions", tenantTotal);
  let t = 0;
  const tenants = index.tenants.map((info, slot) => {
    const list = c.tenantLists[slot]!;
    const listStart = t;
    tenantPositions.set(list, t);
    t += list.length;
    return { ...info, listStart, count: list.length };
  });
  u32("idFingerprints", ids.length).set(ids.low);
  u32("idFingerprintsHigh", ids.length).set(ids.high);
  f64("idPositions", ids.length).set(ids.positions);
  if (!hostIsLittleEndian) {
    for (const [name, count, width] of sizes) {
      const column = body.subarray(at(name), at(name) + count * width);
      if (width === 4) column.swap32();
      else column.swap64();
    }
  }
  const json: IndexJson = {
    version: FORMAT_VERSION,
    segmentNo: index.segmentNo,
    generation: index.generation,
    basePosition: index.basePosition,
    segmentBytes,
    span,
    events: index.events,
    bytes: index.bytes,
    maxCreatedAtMs: index.maxCreatedAtMs,
    slots,
    tenants,
    metas: index.metas,
    columns,
    fingerprintsCrc: crc32c(body, at("idFingerprints"), at("idFingerprintsHigh") + ids.length * 4),
    bodyBytes,
  };
  return indexFile(json, body);
}

/**
 * The file around a body: magic, head (its own CRC32C), the JSON description, one CRC32C per
 * BLOCK_BYTES of body, then the body at an 8-byte boundary.
 */
function indexFile(json: IndexJson, body: Buffer): Buffer {
  const bodyBytes = body.length;
  const jsonBytes = Buffer.from(JSON.stringify(json), "utf8");
  const blocks = Math.ceil(bodyBytes / BLOCK_BYTES);
  const bodyStart = align8(HEAD_BYTES + jsonBytes.length + blocks * 4);
  const file = Buffer.alloc(bodyStart + bodyBytes);
  file.write(MAGIC, 0, 8, "latin1");
  file.writeUInt32LE(jsonBytes.length, 12);
  file.writeUInt32LE(blocks, 16);
  file.writeUInt32LE(bodyStart, 20);
  jsonBytes.copy(file, HEAD_BYTES);
  for (let b = 0; b < blocks; b++) {
    const from = b * BLOCK_BYTES;
    file.writeUInt32LE(
      crc32c(body, from, Math.min(bodyBytes, from + BLOCK_BYTES)),
      HEAD_BYTES + jsonBytes.length + b * 4,
    );
  }
  body.copy(file, bodyStart);
  file.writeUInt32LE(crc32c(file, 12, bodyStart), 8);
  return file;
}

/** Below 2^53, a fingerprint times this plus a position's offset in its segment is exact. */
const KEY_SCALE = 2 ** 21;

/**
 * The ids sorted by their fingerprint's low lane, then position (the high lane goes along). Ids
 * given in position order (the active segment's) are sorted by radix on the low lane; other
 * input: a segment of fewer than 2^21 positions (all of them at the default segment size) packs low lane
 * and position into one double and sorts a Float64Array natively, then finds each entry's high
 * lane by its position (a position holds one event); a JavaScript comparator over pairs cost
 * about a tenth of the engine's CPU while loading (BENCHMARKS.md, "Scale").
 */
export function sortedIds(
  ids: IdColumns,
  basePosition: number,
  span: number,
): IdColumns & { length: number } {
  const n = ids.low.length;
  const low = new Uint32Array(n);
  const high = new Uint32Array(n);
  const positions = new Float64Array(n);
  if (inPositionOrder(ids.positions)) {
    // What the active segment's index gives: a stable sort by the low lane keeps position order
    // among equal lanes. Two passes of 16 bits, against the native sort of packed keys.
    const order = sortByLowLane(ids.low);
    for (let i = 0; i < n; i++) {
      const from = order[i]!;
      low[i] = ids.low[from]!;
      high[i] = ids.high[from]!;
      positions[i] = ids.positions[from]!;
    }
  } else if (span < KEY_SCALE) {
    const keys = new Float64Array(n);
    const highAt = new Uint32Array(span);
    for (let i = 0; i < n; i++) {
      const offset = ids.positions[i]! - basePosition;
      keys[i] = ids.low[i]! * KEY_SCALE + offset;
      highAt[offset] = ids.high[i]!;
    }
    keys.sort();
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      const offset = key % KEY_SCALE;
      low[i] = (key - offset) / KEY_SCALE;
      high[i] = highAt[offset]!;
      positions[i] = basePosition + offset;
    }
  } else {
    const order = Array.from({ length: n }, (_, i) => i).sort(
      (a, b) => ids.low[a]! - ids.low[b]! || ids.positions[a]! - ids.positions[b]!,
    );
    order.forEach((from, i) => {
      low[i] = ids.low[from]!;
      high[i] = ids.high[from]!;
      positions[i] = ids.positions[from]!;
    });
  }
  return { low, high, positions, length: n };
}

function inPositionOrder(positions: Float64Array): boolean {
  for (let i = 1; i < positions.length; i++) if (positions[i]! <= positions[i - 1]!) return false;
  return true;
}

/** Indexes of `lanes` in ascending order of their value, equal values in index order (LSD radix). */
function sortByLowLane(lanes: Uint32Array): Uint32Array {
  const identity = new Uint32Array(lanes.length);
  for (let i = 0; i < identity.length; i++) identity[i] = i;
  return radixPass(lanes, radixPass(lanes, identity, 0), 16);
}

/**
 * `order` stably sorted by the 16 bits of each lane at `shift` (a counting sort): sorted by the
 * low half, then by the high half, the indexes are in order of the whole lane.
 */
function radixPass(lanes: Uint32Array, order: Uint32Array, shift: number): Uint32Array {
  const counts = new Uint32Array(65536);
  for (let k = 0; k < order.length; k++) counts[(lanes[order[k]!]! >>> shift) & 0xffff]!++;
  let sum = 0;
  for (let d = 0; d < 65536; d++) {
    const c = counts[d]!;
    counts[d] = sum;
    sum += c;
  }
  const sorted = new Uint32Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    sorted[counts[(lanes[i]! >>> shift) & 0xffff]!++] = i;
  }
  return sorted;
}

/**
 * Writes a segment's index file atomically, without blocking the event loop: temp file, fsync,
 * rename, fsync the directory.
 */
export async function writeSegmentIndexFile(dir: string, segmentName: string, file: Buffer): Promise<void> {
  const filePath = indexFilePath(dir, segmentName);
  const temp = `${filePath}.tmp`;
  const handle = await fs.promises.open(temp, "w");
  try {
    await handle.writeFile(file);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(temp, filePath);
  fsyncDirectory(dir);
}

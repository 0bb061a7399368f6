/**
 * Reading an index file (./index-file-format.ts): opened when it describes its segment as it is
 * on disk, then read through a bounded cache of checked blocks shared by every index file.
 *
 * Invariants: a file that does not match its segment (generation, size), of another format
 * version, or whose head fails its checksum is not used: its segment's index is rebuilt from the
 * log. A block that fails its checksum after start-up switches that segment's index to one
 * rebuilt in memory from the log.
 */
import fs from "node:fs";
import { crc32c } from "./crc32c.js";
import {
  BLOCK_BITS,
  BLOCK_BYTES,
  FORMAT_VERSION,
  HEAD_BYTES,
  MAGIC,
  type ColumnName,
  type IndexJson,
} from "./index-file-format.js";
import type { StreamState } from "./log-index.js";
import {
  NO_OFFSET,
  type MemorySegmentIndex,
  type MetaEntry,
  type SegmentIndex,
  type SlotInfo,
  type TenantSlotInfo,
} from "./segment-index.js";
import { readFully } from "./segment-store.js";

/** A bounded FIFO cache of checked index-file blocks, shared by every index file. */
export class IndexBlockCache {
  private readonly blocks = new Map<number, Buffer>();
  private readonly blocksMax: number;
  constructor(bytesMax: number) {
    this.blocksMax = Math.max(8, Math.floor(bytesMax / BLOCK_BYTES));
  }
  get(key: number): Buffer | undefined {
    return this.blocks.get(key);
  }
  put(key: number, block: Buffer): void {
    if (this.blocks.size >= this.blocksMax) {
      const oldest = this.blocks.keys().next().value as number;
      this.blocks.delete(oldest);
    }
    this.blocks.set(key, block);
  }
  drop(fileId: number): void {
    for (const key of [...this.blocks.keys()])
      if (Math.floor(key / BLOCKS_PER_FILE_MAX) === fileId) this.blocks.delete(key);
  }
}

/** Keys are fileId * BLOCKS_PER_FILE_MAX + block (2^20 blocks of 32 KiB: 32 GiB per file). */
const BLOCKS_PER_FILE_MAX = 1 << 20;
let nextFileId = 1;

class DamagedIndexBlock extends Error {}

/** An index file of another format version (FORMAT_VERSION) that describes its segment as it is. */
class OtherFormatVersion extends Error {
  constructor(
    version: unknown,
    readonly tenants: readonly TenantSlotInfo[],
  ) {
    super(`format version ${String(version)}`);
  }
}

/**
 * Why a file cannot serve, when it cannot. `otherFormat`: it is of another format version but
 * describes the segment as it is (an upgrade), and its tenants' appends are those a rebuild from
 * the log keeps (MemorySegmentIndex.keepAppendsOf: scavenge kept them in the file, the log no
 * longer holds them).
 */
export type OpenedIndexFile =
  | { index: FileSegmentIndex }
  | { index: null; reason: string; otherFormat: { tenants: readonly TenantSlotInfo[] } | null };

/**
 * Opens an index file when it describes the segment as it is on disk (`generation`,
 * `segmentBytes`; with `prefix`, the active segment's file saved at a clean close, its first
 * `segmentBytes` at most); otherwise, or when its head does not check, a reason to rebuild it. `rebuild`
 * makes the same index from the segment's bytes, should a block fail its checksum later.
 */
export function openSegmentIndexFile(
  filePath: string,
  expect: { segmentNo: number; generation: number; segmentBytes: number; prefix?: boolean },
  cache: IndexBlockCache,
  rebuild: () => MemorySegmentIndex,
): OpenedIndexFile {
  let fd: number;
  try {
    fd = fs.openSync(filePath, "r");
  } catch {
    return { index: null, reason: "no index file", otherFormat: null };
  }
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(HEAD_BYTES);
    if (size < HEAD_BYTES || fs.readSync(fd, head, 0, HEAD_BYTES, 0) < HEAD_BYTES) throw new Error("short");
    if (head.toString("latin1", 0, 8) !== MAGIC) throw new Error("not an index file");
    const bodyStart = head.readUInt32LE(20);
    const jsonLength = head.readUInt32LE(12);
    const blocks = head.readUInt32LE(16);
    if (bodyStart > size || HEAD_BYTES + jsonLength + blocks * 4 > bodyStart) throw new Error("bad head");
    const front = Buffer.alloc(bodyStart);
    fs.readSync(fd, front, 0, bodyStart, 0);
    if (crc32c(front, 12, bodyStart) !== front.readUInt32LE(8)) throw new Error("checksum mismatch");
    const json = JSON.parse(front.toString("utf8", HEAD_BYTES, HEAD_BYTES + jsonLength)) as IndexJson;
    if (
      json.segmentNo !== expect.segmentNo ||
      json.generation !== expect.generation ||
      (expect.prefix === true
        ? json.segmentBytes > expect.segmentBytes
        : json.segmentBytes !== expect.segmentBytes)
    ) {
      throw new Error("it describes another state of its segment");
    }
    // The fields above and the tenants are alike in every version so far.
    if (json.version !== FORMAT_VERSION) throw new OtherFormatVersion(json.version, json.tenants);
    const blockCrcs = new Uint32Array(blocks);
    for (let b = 0; b < blocks; b++) blockCrcs[b] = front.readUInt32LE(HEAD_BYTES + jsonLength + b * 4);
    const bodyBytes = size - bodyStart;
    if (bodyBytes !== json.bodyBytes || Math.ceil(bodyBytes / BLOCK_BYTES) !== blocks) {
      throw new Error("length mismatch");
    }
    return { index: new FileSegmentIndex(fd, json, bodyStart, bodyBytes, blockCrcs, cache, rebuild) };
  } catch (error) {
    fs.closeSync(fd);
    return {
      index: null,
      reason: `index file unusable (${(error as Error).message})`,
      otherFormat: error instanceof OtherFormatVersion ? { tenants: error.tenants } : null,
    };
  }
}

/** A sealed segment's index, read from its file through the block cache (see the file comment). */
export class FileSegmentIndex implements SegmentIndex {
  readonly segmentNo: number;
  readonly generation: number;
  readonly basePosition: number;
  readonly slots: readonly SlotInfo[];
  readonly tenants: readonly TenantSlotInfo[];
  readonly metas: readonly MetaEntry[];
  readonly events: number;
  readonly bytes: number;
  readonly maxCreatedAtMs: number;
  streams: StreamState[] = [];
  private readonly runStarts: Uint32Array;
  private readonly listStarts: Uint32Array;
  private readonly listCounts: Uint32Array;
  private readonly spanCount: number;
  private readonly fileId = nextFileId++;
  private readonly columns: Record<ColumnName, [number, number]>;
  /** The index rebuilt from the log after a block of this file failed its checksum. */
  private fallback: MemorySegmentIndex | null = null;

  constructor(
    private fd: number,
    private readonly json: IndexJson,
    private readonly bodyStart: number,
    private readonly bodyBytes: number,
    private readonly blockCrcs: Uint32Array,
    private readonly cache: IndexBlockCache,
    private readonly rebuild: () => MemorySegmentIndex,
  ) {
    this.segmentNo = json.segmentNo;
    this.generation = json.generation;
    this.basePosition = json.basePosition;
    this.slots = json.slots;
    this.tenants = json.tenants;
    this.metas = json.metas;
    this.events = json.events;
    this.bytes = json.bytes;
    this.maxCreatedAtMs = json.maxCreatedAtMs;
    this.spanCount = json.span;
    this.columns = json.columns;
    this.runStarts = Uint32Array.from(json.slots, (s) => s.runStart);
    this.listStarts = Uint32Array.from(json.tenants, (t) => t.listStart);
    this.listCounts = Uint32Array.from(json.tenants, (t) => t.count);
  }

  span(): number {
    return this.spanCount;
  }

  /** Bytes of the segment this index describes. */
  get segmentBytes(): number {
    return this.json.segmentBytes;
  }

  /** Every column whole, checked (to load the active segment's saved index); null if damaged. */
  readColumns(): Record<ColumnName, Float64Array> | null {
    const out = {} as Record<ColumnName, Float64Array>;
    try {
      for (const name of Object.keys(this.columns) as ColumnName[]) {
        const [, count] = this.columns[name];
        const wide =
          name === "runPositions" ||
          name === "runCreatedAt" ||
          name === "tenantPositions" ||
          name === "idPositions";
        const column = new Float64Array(count);
        for (let i = 0; i < count; i++) column[i] = wide ? this.f64(name, i) : this.u32(name, i);
        out[name] = column;
      }
    } catch (error) {
      if (error instanceof DamagedIndexBlock) return null;
      throw error;
    }
    return out;
  }

  /** Where each slot's run and each tenant's list start in their columns. */
  starts(): { runs: Uint32Array; lists: Uint32Array } {
    return { runs: this.runStarts, lists: this.listStarts };
  }

  offsetOf(position: number): number {
    const d = position - this.basePosition;
    if (d < 0 || d >= this.spanCount) return NO_OFFSET;
    return this.guard(
      () => this.u32("posOffsets", d),
      (f) => f.offsetOf(position),
    );
  }

  slotOf(position: number): number {
    const d = position - this.basePosition;
    if (d < 0 || d >= this.spanCount) return -1;
    return this.guard(
      () => (this.u32("posOffsets", d) === NO_OFFSET ? -1 : this.u32("posSlots", d)),
      (f) => f.slotOf(position),
    );
  }

  runPositions(slot: number, from: number, to: number): Float64Array {
    return this.guard(
      () => {
        const out = new Float64Array(to - from);
        const start = this.runStarts[slot]!;
        for (let i = from; i < to; i++) out[i - from] = this.f64("runPositions", start + i);
        return out;
      },
      (f) => f.runPositions(slot, from, to),
    );
  }

  runOffsets(slot: number, from: number, to: number): Uint32Array | Float64Array {
    return this.guard<Uint32Array | Float64Array>(
      () => {
        const out = new Uint32Array(to - from);
        const start = this.runStarts[slot]!;
        for (let i = from; i < to; i++) out[i - from] = this.u32("runOffsets", start + i);
        return out;
      },
      (f) => f.runOffsets(slot, from, to),
    );
  }

  runCreatedAt(slot: number, k: number): number {
    return this.guard(
      () => this.f64("runCreatedAt", this.runStarts[slot]! + k),
      (f) => f.runCreatedAt(slot, k),
    );
  }

  tenantCount(tenantSlot: number): number {
    return this.listCounts[tenantSlot]!;
  }

  tenantPositions(tenantSlot: number, from: number, to: number): Float64Array {
    return this.guard(
      () => {
        const out = new Float64Array(to - from);
        const start = this.listStarts[tenantSlot]!;
        for (let i = from; i < to; i++) out[i - from] = this.f64("tenantPositions", start + i);
        return out;
      },
      (f) => f.tenantPositions(tenantSlot, from, to),
    );
  }

  findFingerprint(low: number, high: number, visit: (position: number) => boolean): boolean {
    return this.guard(
      () => {
        const n = this.columns.idFingerprints[1];
        let lo = 0;
        let hi = n;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (this.u32("idFingerprints", mid) < low) lo = mid + 1;
          else hi = mid;
        }
        for (let i = lo; i < n && this.u32("idFingerprints", i) === low; i++) {
          if (this.u32("idFingerprintsHigh", i) === high && visit(this.f64("idPositions", i))) return true;
        }
        return false;
      },
      (f) => f.findFingerprint(low, high, visit),
    );
  }

  /**
   * The two fingerprint columns whole (to fill the resident set after start-up), in one read,
   * checked against their own checksum; on a mismatch, the columns of the index rebuilt from
   * the log.
   */
  fingerprintColumns(): { low: Uint32Array; high: Uint32Array } {
    if (this.fallback) return this.fallback.fingerprintColumns();
    const [lowAt, count] = this.columns.idFingerprints;
    const [highAt] = this.columns.idFingerprintsHigh;
    // Its own ArrayBuffer, so the lanes' views are aligned (columns start 8-byte aligned).
    const bytes = Buffer.from(new ArrayBuffer(highAt - lowAt + count * 4));
    const got = readFully(this.fd, bytes, this.bodyStart + lowAt);
    if (got < bytes.length || crc32c(bytes, 0, bytes.length) !== this.json.fingerprintsCrc) {
      this.switchToRebuilt("fingerprint column checksum mismatch");
      return this.fallback!.fingerprintColumns();
    }
    return {
      low: new Uint32Array(bytes.buffer, 0, count),
      high: new Uint32Array(bytes.buffer, highAt - lowAt, count),
    };
  }

  memoryBytes(): number {
    if (this.fallback) return this.fallback.memoryBytes();
    return (
      this.slots.length * 200 +
      this.tenants.length * 100 +
      this.metas.length * 100 +
      this.blockCrcs.byteLength
    );
  }

  close(): void {
    this.cache.drop(this.fileId);
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }

  private guard<T>(fromFile: () => T, fromFallback: (f: MemorySegmentIndex) => T): T {
    if (this.fallback) return fromFallback(this.fallback);
    try {
      return fromFile();
    } catch (error) {
      if (!(error instanceof DamagedIndexBlock)) throw error;
      this.switchToRebuilt(error.message);
      return fromFallback(this.fallback!);
    }
  }

  private switchToRebuilt(reason: string): void {
    const rebuilt = this.rebuild();
    rebuilt.streams = this.streams;
    this.fallback = rebuilt;
    this.cache.drop(this.fileId);
    this.onRebuilt?.(reason, rebuilt);
  }

  /** Told when the file could not be used after start-up (the engine logs it and writes it again). */
  onRebuilt: ((reason: string, rebuilt: MemorySegmentIndex) => void) | null = null;

  private u32(column: ColumnName, i: number): number {
    const byte = this.columns[column][0] + i * 4;
    return this.block(byte >>> BLOCK_BITS).readUInt32LE(byte & (BLOCK_BYTES - 1));
  }

  private f64(column: ColumnName, i: number): number {
    const byte = this.columns[column][0] + i * 8;
    return this.block(byte >>> BLOCK_BITS).readDoubleLE(byte & (BLOCK_BYTES - 1));
  }

  private block(b: number): Buffer {
    const key = this.fileId * BLOCKS_PER_FILE_MAX + b;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const from = b * BLOCK_BYTES;
    const length = Math.min(BLOCK_BYTES, this.bodyBytes - from);
    const buf = Buffer.allocUnsafe(length);
    const got = readFully(this.fd, buf, this.bodyStart + from);
    if (got < length || crc32c(buf, 0, length) !== this.blockCrcs[b]) {
      throw new DamagedIndexBlock(`index block ${b} of segment ${this.segmentNo} failed its checksum`);
    }
    this.cache.put(key, buf);
    return buf;
  }
}

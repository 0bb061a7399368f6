/**
 * The index of one segment: where each of its events is, by position, by stream revision, by
 * tenant and by event-id fingerprint, plus what its records add to each stream and tenant.
 * The active segment's index lives in memory (MemorySegmentIndex) and grows with each append;
 * when the segment is sealed, the same tables are written once to an index file next to it
 * (segment-index-file.ts) and read from there through a bounded cache. So what persisting the
 * index costs follows new data, and what stays resident per event is only the fingerprint set
 * (fingerprint-set.ts).
 *
 * Slots: the streams (and tenants) of a segment are numbered in the order they first appear in
 * it, so the index written from memory and one rebuilt from the segment's bytes number them
 * alike. A stream's events in one segment are a run of consecutive revisions (revisions are
 * handed out in position order); a revision missing from a run (a damaged record skipped, or
 * none) has position -1. Positions of a segment's events are consecutive from its base
 * position (a new segment starts at the next position); a position with no event here (removed
 * by scavenge, or damaged) has no offset (NO_OFFSET).
 */
import type { StreamState } from "./log-index.js";
import type { FileSegmentIndex } from "./segment-index-file.js";
import { GrowableF64 } from "./growable.js";

export const NO_OFFSET = 0xffffffff;

/** What one stream's records in this segment add up to (the resident part of a segment index). */
export interface SlotInfo {
  tenantSlot: number;
  streamId: string;
  /** Revision of the run's first entry; -1 while the stream has no event in the segment. */
  firstRevision: number;
  /** Entries of the run (revisions from firstRevision; holes included). */
  entries: number;
  /** Events stored, and their record bytes. */
  events: number;
  bytes: number;
  /** Appends whose last event is in this segment (BATCH_END records). */
  batches: number;
  /**
   * created_at of the stream's first record here, and of its last record here that changes its
   * updated_at (not scavenge's marks; 0 if none).
   */
  firstAtMs: number;
  lastAtMs: number;
  /** created_at of the first event of the run (for retention by age). */
  firstEventAtMs: number;
}

export interface TenantSlotInfo {
  tenantId: string;
  events: number;
  bytes: number;
  batches: number;
  lastAppendAtMs: number | null;
}

/** A stream-metadata record, in log order: its stream slot, revision count field, time and body. */
export interface MetaEntry {
  slot: number;
  revision: number;
  atMs: number;
  body: string;
}

/** An index's event ids: fingerprint lanes (fingerprint-set.ts) and position, entry by entry. */
export interface IdColumns {
  low: Uint32Array;
  high: Uint32Array;
  positions: Float64Array;
}

export interface SegmentIndex {
  readonly segmentNo: number;
  /** Generation of the segment file these tables describe (scavenge bumps it). */
  readonly generation: number;
  readonly basePosition: number;
  readonly slots: readonly SlotInfo[];
  readonly tenants: readonly TenantSlotInfo[];
  readonly metas: readonly MetaEntry[];
  /** Events stored, record bytes, newest created_at. */
  readonly events: number;
  readonly bytes: number;
  readonly maxCreatedAtMs: number;
  /** The live stream of each slot, set when the segment joins the index (LogIndex). */
  streams: StreamState[];
  /** Positions [basePosition, basePosition + span) belong to this segment. */
  span(): number;
  /** Offset of the event at `position` in the segment, or NO_OFFSET. */
  offsetOf(position: number): number;
  /** Slot of the event at `position`, or -1. */
  slotOf(position: number): number;
  /** Positions of run entries [from, to) of `slot` (-1 for a hole). */
  runPositions(slot: number, from: number, to: number): Float64Array;
  /** Offsets of run entries [from, to) of `slot` (meaningless for a hole: its position is -1). */
  runOffsets(slot: number, from: number, to: number): Uint32Array | Float64Array;
  /** created_at of run entry `k` of `slot` (-1 for a hole). */
  runCreatedAt(slot: number, k: number): number;
  /** Number of positions a tenant has here, and its positions [from, to) (ascending). */
  tenantCount(tenantSlot: number): number;
  tenantPositions(tenantSlot: number, from: number, to: number): Float64Array;
  /**
   * Calls `visit` with each position whose event-id fingerprint has these two lanes
   * (fingerprint-set.ts), until it returns true.
   */
  findFingerprint(low: number, high: number, visit: (position: number) => boolean): boolean;
  /** Every event's fingerprint, lane by lane, in any order (to fill the resident set after start-up). */
  fingerprintColumns(): { low: Uint32Array; high: Uint32Array };
  /** Bytes this index keeps in memory. */
  memoryBytes(): number;
}

function newSlot(tenantSlot: number, streamId: string, atMs: number): SlotInfo {
  return {
    tenantSlot,
    streamId,
    firstRevision: -1,
    entries: 0,
    events: 0,
    bytes: 0,
    batches: 0,
    firstAtMs: atMs,
    // Set by the records that change the stream's updated_at (events, retention, delete).
    lastAtMs: 0,
    firstEventAtMs: -1,
  };
}

interface RunColumns {
  positions: GrowableF64;
  offsets: GrowableF64;
  createdAt: GrowableF64;
}

/** The index of the active segment (or of a segment being rebuilt from its bytes), in memory. */
export class MemorySegmentIndex implements SegmentIndex {
  readonly slots: SlotInfo[] = [];
  readonly tenants: TenantSlotInfo[] = [];
  readonly metas: MetaEntry[] = [];
  streams: StreamState[] = [];
  events = 0;
  bytes = 0;
  maxCreatedAtMs = 0;
  private readonly slotByKey = new Map<string, number>();
  private readonly tenantByKey = new Map<string, number>();
  private readonly runs: RunColumns[] = [];
  private readonly tenantLists: GrowableF64[] = [];
  /** By position - basePosition: offset (-1: none) and slot. */
  private readonly posOffsets: GrowableF64;
  private readonly posSlots: GrowableF64;
  /** By position - basePosition: the event-id fingerprint's two lanes (-1: no event). */
  private readonly idLows: GrowableF64;
  private readonly idHighs: GrowableF64;
  /**
   * Fingerprint -> positions (a multimap: fingerprints may collide), made at the segment's first
   * id lookup (findFingerprint) and kept up to date from then on. The id check reaches a
   * segment only for a fingerprint the resident set holds (a repeated append, a chance match,
   * or start-up before the set is filled), so most active segments never need one; adding to
   * a table of megabytes cost a cache miss on every append (~5% of its CPU, issue 30).
   */
  private ids: FingerprintPositions | null = null;
  /** The slot slotFor returned last, and for which strings (an append's events share them). */
  private lastTenantId = "";
  private lastStreamId = "";
  private lastSlot = -1;

  /** `expectedEvents`: room to make at once (the tables grow past it as needed). */
  constructor(
    readonly segmentNo: number,
    readonly generation: number,
    readonly basePosition: number,
    expectedEvents = 0,
  ) {
    const capacity = Math.max(1024, expectedEvents);
    this.posOffsets = new GrowableF64(capacity);
    this.posSlots = new GrowableF64(capacity);
    this.idLows = new GrowableF64(capacity);
    this.idHighs = new GrowableF64(capacity);
  }

  /**
   * The active segment's index saved at a clean close, back in memory so appends can go on
   * adding to it; null when a block of the file fails its checksum.
   */
  static fromFile(file: FileSegmentIndex): MemorySegmentIndex | null {
    const c = file.readColumns();
    if (!c) return null;
    const starts = file.starts();
    const seg = new MemorySegmentIndex(file.segmentNo, file.generation, file.basePosition);
    const orNone = (o: number): number => (o === NO_OFFSET ? -1 : o);
    file.tenants.forEach((t, i) => {
      seg.tenants.push({
        tenantId: t.tenantId,
        events: t.events,
        bytes: t.bytes,
        batches: t.batches,
        lastAppendAtMs: t.lastAppendAtMs,
      });
      const from = starts.lists[i]!;
      seg.tenantLists.push(GrowableF64.of(c.tenantPositions.subarray(from, from + file.tenantCount(i))));
      seg.tenantByKey.set(t.tenantId, i);
    });
    file.slots.forEach((slot, i) => {
      const { tenantSlot, streamId, firstRevision, entries, events, bytes, batches } = slot;
      const { firstAtMs, lastAtMs, firstEventAtMs } = slot;
      seg.slots.push({
        tenantSlot,
        streamId,
        firstRevision,
        entries,
        events,
        bytes,
        batches,
        firstAtMs,
        lastAtMs,
        firstEventAtMs,
      });
      const from = starts.runs[i]!;
      seg.runs.push({
        positions: GrowableF64.of(c.runPositions.subarray(from, from + entries)),
        offsets: GrowableF64.of(Array.from(c.runOffsets.subarray(from, from + entries), orNone)),
        createdAt: GrowableF64.of(c.runCreatedAt.subarray(from, from + entries)),
      });
      seg.slotByKey.set(file.tenants[tenantSlot]!.tenantId + "\u0000" + streamId, i);
    });
    for (const m of file.metas) seg.metas.push({ ...m });
    for (let d = 0; d < c.posOffsets.length; d++) {
      seg.posOffsets.push(orNone(c.posOffsets[d]!));
      seg.posSlots.push(c.posSlots[d]!);
    }
    for (let i = 0; i < c.idFingerprints.length; i++) {
      const d = c.idPositions[i]! - seg.basePosition;
      seg.idLows.set(d, c.idFingerprints[i]!);
      seg.idHighs.set(d, c.idFingerprintsHigh[i]!);
    }
    seg.events = file.events;
    seg.bytes = file.bytes;
    seg.maxCreatedAtMs = file.maxCreatedAtMs;
    return seg;
  }

  /** The slot of a stream, created (with its tenant's) the first time the segment sees it. */
  slotFor(tenantId: string, streamId: string, atMs: number): number {
    if (this.lastSlot >= 0 && streamId === this.lastStreamId && tenantId === this.lastTenantId)
      return this.lastSlot;
    const slot = this.slotForKey(tenantId, streamId, atMs);
    this.lastTenantId = tenantId;
    this.lastStreamId = streamId;
    this.lastSlot = slot;
    return slot;
  }

  private slotForKey(tenantId: string, streamId: string, atMs: number): number {
    const key = tenantId + "\u0000" + streamId;
    const known = this.slotByKey.get(key);
    if (known !== undefined) return known;
    const tenantSlot = this.tenantSlotFor(tenantId);
    const slot = this.slots.length;
    this.slots.push(newSlot(tenantSlot, streamId, atMs));
    this.runs.push({
      positions: new GrowableF64(4),
      offsets: new GrowableF64(4),
      createdAt: new GrowableF64(4),
    });
    this.slotByKey.set(key, slot);
    return slot;
  }

  private tenantSlotFor(tenantId: string): number {
    let tenantSlot = this.tenantByKey.get(tenantId);
    if (tenantSlot === undefined) {
      tenantSlot = this.tenants.length;
      this.tenants.push({ tenantId, events: 0, bytes: 0, batches: 0, lastAppendAtMs: null });
      this.tenantLists.push(new GrowableF64(16));
      this.tenantByKey.set(tenantId, tenantSlot);
    }
    return tenantSlot;
  }

  /**
   * Keeps the appends counted in `before` (the same segment before scavenge rewrote it, or its
   * index file of an earlier format): a tenant's appends_total and last append time are
   * history, not what the segment holds now.
   */
  keepAppendsOf(before: { readonly tenants: readonly TenantSlotInfo[] }): void {
    for (const t of before.tenants) {
      const now = this.tenants[this.tenantSlotFor(t.tenantId)]!;
      now.batches = t.batches;
      now.lastAppendAtMs = t.lastAppendAtMs;
    }
  }

  addEvent(
    slot: number,
    revision: number,
    position: number,
    createdAtMs: number,
    offset: number,
    recordBytes: number,
    fingerprintLow: number,
    fingerprintHigh: number,
    batchEnd: boolean,
  ): void {
    const info = this.slots[slot]!;
    const run = this.runs[slot]!;
    if (info.firstRevision < 0) {
      info.firstRevision = revision;
      info.firstEventAtMs = createdAtMs;
    }
    const k = revision - info.firstRevision;
    run.positions.set(k, position);
    run.offsets.set(k, offset);
    run.createdAt.set(k, createdAtMs);
    if (k + 1 > info.entries) info.entries = k + 1;
    info.events++;
    info.bytes += recordBytes;
    info.lastAtMs = createdAtMs;
    const tenant = this.tenants[info.tenantSlot]!;
    tenant.events++;
    tenant.bytes += recordBytes;
    if (batchEnd) {
      info.batches++;
      tenant.batches++;
      tenant.lastAppendAtMs = createdAtMs;
    }
    this.tenantLists[info.tenantSlot]!.push(position);
    const d = position - this.basePosition;
    this.posOffsets.set(d, offset);
    this.posSlots.set(d, slot);
    this.idLows.set(d, fingerprintLow);
    this.idHighs.set(d, fingerprintHigh);
    this.ids?.add(fingerprintLow, fingerprintHigh, position);
    this.events++;
    this.bytes += recordBytes;
    if (createdAtMs > this.maxCreatedAtMs) this.maxCreatedAtMs = createdAtMs;
  }

  /** `touches`: whether the record changes the stream's updated_at (scavenge's marks do not). */
  addMeta(slot: number, revision: number, atMs: number, body: string, touches: boolean): void {
    this.metas.push({ slot, revision, atMs, body });
    if (touches) this.slots[slot]!.lastAtMs = atMs;
    if (atMs > this.maxCreatedAtMs) this.maxCreatedAtMs = atMs;
  }

  span(): number {
    return this.posOffsets.length;
  }

  offsetOf(position: number): number {
    const d = position - this.basePosition;
    if (d < 0 || d >= this.posOffsets.length) return NO_OFFSET;
    const o = this.posOffsets.array[d]!;
    return o < 0 ? NO_OFFSET : o;
  }

  slotOf(position: number): number {
    return this.offsetOf(position) === NO_OFFSET ? -1 : this.posSlots.array[position - this.basePosition]!;
  }

  runPositions(slot: number, from: number, to: number): Float64Array {
    return this.runs[slot]!.positions.array.subarray(from, to);
  }

  runOffsets(slot: number, from: number, to: number): Float64Array {
    return this.runs[slot]!.offsets.array.subarray(from, to);
  }

  runCreatedAt(slot: number, k: number): number {
    return this.runs[slot]!.createdAt.array[k]!;
  }

  tenantCount(tenantSlot: number): number {
    return this.tenantLists[tenantSlot]!.length;
  }

  tenantPositions(tenantSlot: number, from: number, to: number): Float64Array {
    return this.tenantLists[tenantSlot]!.array.subarray(from, to);
  }

  findFingerprint(low: number, high: number, visit: (position: number) => boolean): boolean {
    if (this.ids === null) {
      const { low: lows, high: highs, positions } = this.idColumns();
      const ids = new FingerprintPositions(this.basePosition, lows.length);
      for (let i = 0; i < lows.length; i++) ids.add(lows[i]!, highs[i]!, positions[i]!);
      this.ids = ids;
    }
    return this.ids.find(low, high, visit);
  }

  fingerprintColumns(): { low: Uint32Array; high: Uint32Array } {
    const { low, high } = this.idColumns();
    return { low, high };
  }

  /** Every event's fingerprint lanes and position, in position order. */
  private idColumns(): IdColumns {
    const lows = this.idLows.array;
    const highs = this.idHighs.array;
    const span = this.idLows.length;
    let size = 0;
    for (let d = 0; d < span; d++) if (lows[d]! >= 0) size++;
    const ids = {
      low: new Uint32Array(size),
      high: new Uint32Array(size),
      positions: new Float64Array(size),
    };
    let n = 0;
    for (let d = 0; d < span; d++) {
      if (lows[d]! < 0) continue;
      ids.low[n] = lows[d]!;
      ids.high[n] = highs[d]!;
      ids.positions[n++] = this.basePosition + d;
    }
    return ids;
  }

  /** Everything the file needs, as plain columns (segment-index-file.ts). */
  columns(): {
    posOffsets: Float64Array;
    posSlots: Float64Array;
    runs: { positions: Float64Array; offsets: Float64Array; createdAt: Float64Array }[];
    tenantLists: Float64Array[];
    ids: IdColumns;
  } {
    const ids = this.idColumns();
    return {
      posOffsets: this.posOffsets.array.subarray(0, this.posOffsets.length),
      posSlots: this.posSlots.array.subarray(0, this.posSlots.length),
      runs: this.runs.map((r, slot) => {
        const n = this.slots[slot]!.entries;
        return {
          positions: r.positions.array.subarray(0, n),
          offsets: r.offsets.array.subarray(0, n),
          createdAt: r.createdAt.array.subarray(0, n),
        };
      }),
      tenantLists: this.tenantLists.map((t) => t.array.subarray(0, t.length)),
      ids,
    };
  }

  memoryBytes(): number {
    let bytes =
      this.posOffsets.byteLength +
      this.posSlots.byteLength +
      this.idLows.byteLength +
      this.idHighs.byteLength +
      (this.ids?.byteLength ?? 0);
    for (const r of this.runs)
      bytes += r.positions.byteLength + r.offsets.byteLength + r.createdAt.byteLength;
    for (const t of this.tenantLists) bytes += t.byteLength;
    return bytes + this.slots.length * 160;
  }
}

/** 32-bit words per FingerprintPositions slot. */
const SLOT_WORDS = 4;

/**
 * Open addressing from event-id fingerprint (both lanes) to position, at most half full: a
 * multimap (the same fingerprint may be added with several positions), for the active
 * segment's index. Slots come from the low lane (never 0, so 0 marks an empty slot).
 *
 * A slot is four 32-bit words side by side (low lane, high lane, position - basePosition, and
 * one unused for alignment): an insert or a probe touches one cache line, where three columns
 * cost three misses per event on a table of megabytes (issue 30).
 */
class FingerprintPositions {
  private table: Uint32Array;
  /** Slots in `table` (a power of two). */
  private capacity: number;
  size = 0;

  /** With room for `entries` before the first resize. */
  constructor(
    private readonly basePosition: number,
    entries: number,
  ) {
    let capacity = 1024;
    while (capacity < entries * 2) capacity *= 2;
    this.capacity = capacity;
    this.table = new Uint32Array(capacity * SLOT_WORDS);
  }

  add(low: number, high: number, position: number): void {
    if ((this.size + 1) * 2 > this.capacity) this.resize(this.capacity * 2);
    this.insert(low, high, position - this.basePosition);
    this.size++;
  }

  private insert(low: number, high: number, delta: number): void {
    const table = this.table;
    const mask = this.capacity - 1;
    let i = low & mask;
    while (table[i * SLOT_WORDS] !== 0) i = (i + 1) & mask;
    const at = i * SLOT_WORDS;
    table[at] = low;
    table[at + 1] = high;
    table[at + 2] = delta;
  }

  /** Calls `visit` with each position added with this fingerprint, until it returns true. */
  find(low: number, high: number, visit: (position: number) => boolean): boolean {
    const table = this.table;
    const mask = this.capacity - 1;
    for (let i = low & mask; ; i = (i + 1) & mask) {
      const at = i * SLOT_WORDS;
      const k = table[at];
      if (k === 0) return false;
      if (k === low && table[at + 1] === high && visit(this.basePosition + table[at + 2]!)) return true;
    }
  }

  private resize(capacity: number): void {
    const old = this.table;
    this.table = new Uint32Array(capacity * SLOT_WORDS);
    this.capacity = capacity;
    for (let at = 0; at < old.length; at += SLOT_WORDS)
      if (old[at] !== 0) this.insert(old[at]!, old[at + 1]!, old[at + 2]!);
  }

  get byteLength(): number {
    return this.table.byteLength;
  }
}

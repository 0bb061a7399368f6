/**
 * The log engine's index: streams, tenants and one index per segment (segment-index.ts).
 *
 * What is resident (docs/log-engine.md, "Memory: the index"): per event only its event-id
 * fingerprint (fingerprint-set.ts, about 10 bytes); per stream its state and one run per
 * segment it has events in (the segment, the slot there, the first revision and the number of
 * revisions); per tenant its counters; the active segment's index in full; and for each sealed
 * segment the small part of its index file (slots, tenants, metadata records). Where each event
 * is lives in the segment indexes: in memory for the active segment, in the index files for the
 * sealed ones (read through a bounded block cache).
 *
 * Invariants: a stream's runs are ordered by revision and do not overlap (revisions are handed
 * out in position order, and segments are filled in position order); positions are dense from 1
 * across the segments, each segment holding [basePosition, next segment's basePosition);
 * created_at never decreases along a stream, so retention by age removes a prefix found by
 * binary search.
 */
import type { MetadataDocument, Retention } from "../../contract/bodies.js";
import { retentionOf, withRetention } from "../../contract/stream-metadata.js";
import { FingerprintSet } from "./fingerprint-set.js";
import { MemorySegmentIndex, NO_OFFSET, type SegmentIndex } from "./segment-index.js";

export { NO_OFFSET } from "./segment-index.js";

export function emptyRetention(): Retention {
  return { max_age_seconds: null, max_count: null, truncate_before: null };
}

export class TenantState {
  readonly streams: StreamState[] = [];
  /** Streams that have events and are not deleted (StreamState.counted). */
  liveStreams = 0;
  /** Some stream of the tenant has had events (a tenant of metadata-only streams is not listed). */
  hasEvents = false;
  /** Events and record bytes still stored (until scavenge removes them). */
  events = 0;
  bytes = 0;
  appendsTotal = 0;
  readsTotal = 0;
  lastAppendAtMs: number | null = null;
  constructor(readonly tenantId: string) {}
}

/** A stream's revisions [firstRevision, firstRevision + entries) in one segment (at `slot`). */
export interface Run {
  segmentNo: number;
  slot: number;
  firstRevision: number;
  entries: number;
  /** created_at of the run's first event (retention by age searches runs first). */
  firstEventAtMs: number;
}

export class StreamState {
  /** Where the stream's events are, by revision (see Run). */
  readonly runs: Run[] = [];
  /** Last revision + 1. */
  count = 0;
  retention: Retention = emptyRetention();
  deleted = false;
  /** Tombstoned: permanent; reads, appends and metadata changes are refused. */
  tombstoned = false;
  /** The metadata document and its revision; null until first set. */
  metadata: MetadataDocument | null = null;
  metadataRevision: number | null = null;
  /** Counted in the tenant's liveStreams (has events and is not deleted; LogIndex.recount). */
  counted = false;
  /** Revisions below this were soft-deleted. */
  deletedBefore = 0;
  /** Revisions below this were physically removed by scavenge. */
  scavengedBefore = 0;
  bytes = 0;
  storedEvents = 0;
  createdAtMs = 0;
  updatedAtMs = 0;
  constructor(
    readonly number: number,
    readonly tenant: TenantState,
    readonly streamId: string,
    private readonly index: LogIndex,
  ) {}

  /** The first revision reads may return, from the stream's rules as of `nowMs`. */
  firstReadable(nowMs: number): number {
    let first = Math.max(this.deletedBefore, this.scavengedBefore);
    const r = this.retention;
    if (r.truncate_before !== null && r.truncate_before > first) first = r.truncate_before;
    if (r.max_count !== null && this.count - r.max_count > first) first = this.count - r.max_count;
    if (r.max_age_seconds !== null) {
      const cutoff = nowMs - r.max_age_seconds * 1000;
      // created_at is non-decreasing: find the first revision created at or after the cutoff
      // (a revision with no event counts as before it).
      let lo = first;
      let hi = this.count;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const c = this.index.createdAtOf(this, mid);
        if (c < cutoff) lo = mid + 1;
        else hi = mid;
      }
      first = lo;
    }
    return Math.min(first, this.count);
  }

  /** The run holding `revision`, or -1 (binary search; runs are ordered by revision). */
  runIndexOf(revision: number): number {
    const runs = this.runs;
    let lo = 0;
    let hi = runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (runs[mid]!.firstRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    const i = lo - 1;
    if (i < 0) return -1;
    const run = runs[i]!;
    return revision < run.firstRevision + run.entries ? i : -1;
  }
}

/** Reads a stream's positions and offsets by revision, a chunk of a run at a time. */
export class StreamCursor {
  private runIndex = -1;
  private from = 0;
  private to = 0;
  private positions: Float64Array = new Float64Array(0);
  private offsets: Uint32Array | Float64Array = new Uint32Array(0);
  /** After at(): the segment and offset of the event found. */
  segmentNo = 0;
  offset = 0;

  constructor(
    private readonly index: LogIndex,
    private readonly s: StreamState,
    private readonly backward: boolean,
    /** Revisions taken from a segment index at a time (a read's page size). */
    private readonly chunk: number,
  ) {}

  /** The position of `revision`, or -1 when it has no stored event. */
  at(revision: number): number {
    let run = this.runIndex >= 0 ? this.s.runs[this.runIndex] : undefined;
    if (!run || revision < this.from || revision >= this.to) {
      this.runIndex = this.s.runIndexOf(revision);
      if (this.runIndex < 0) return -1;
      run = this.s.runs[this.runIndex]!;
      const seg = this.index.segment(run.segmentNo)!;
      const k = revision - run.firstRevision;
      const kFrom = this.backward ? Math.max(0, k - this.chunk + 1) : k;
      const kTo = this.backward ? k + 1 : Math.min(run.entries, k + this.chunk);
      this.positions = seg.runPositions(run.slot, kFrom, kTo);
      this.offsets = seg.runOffsets(run.slot, kFrom, kTo);
      this.from = run.firstRevision + kFrom;
      this.to = run.firstRevision + kTo;
    }
    const i = revision - this.from;
    const position = this.positions[i]!;
    if (position < 0) return -1;
    this.segmentNo = run.segmentNo;
    this.offset = this.offsets[i]!;
    return position;
  }
}

export class LogIndex {
  readonly streamsByKey = new Map<string, StreamState>();
  readonly streams: StreamState[] = [];
  readonly tenants = new Map<string, TenantState>();
  /** Segment indexes by segment number, and ordered (oldest first). */
  private readonly bySegmentNo = new Map<number, SegmentIndex>();
  readonly segments: SegmentIndex[] = [];
  /**
   * Event-id fingerprints of every stored event (resident; fingerprint-set.ts), filled after
   * start-up (fillFingerprints); until `fingerprintsReady` it may lack some and must not be
   * asked for "not there".
   */
  readonly fingerprints = new FingerprintSet();
  fingerprintsReady = false;
  /**
   * New event ids the ready set held by chance: looked up in the segments' indexes for nothing
   * (or ids scavenge removed, whose fingerprints stay until the next start-up).
   */
  idCheckFalseHits = 0;
  /** Segment indexes whose fingerprints are in the set. */
  private readonly fingerprintsOf = new WeakSet<SegmentIndex>();
  /** Positions start at 1, so 0 can mean "nothing yet" (last_position of an empty store). */
  nextPosition = 1;
  /** Events still stored (not scavenged, not lost). */
  eventsStored = 0;
  bytesStored = 0;
  /** Newest created_at handed out; created_at never decreases. */
  lastCreatedAtMs = 0;
  /** After locate(): the segment, offset and stream of the event found. */
  foundSegmentNo = 0;
  foundOffset = 0;
  foundStream: StreamState | null = null;

  static key(tenantId: string, streamId: string): string {
    return tenantId + "\u0000" + streamId;
  }

  getStream(tenantId: string, streamId: string): StreamState | undefined {
    return this.streamsByKey.get(LogIndex.key(tenantId, streamId));
  }

  /** getStream by a key LogIndex.key made already. */
  streamByKey(key: string): StreamState | undefined {
    return this.streamsByKey.get(key);
  }

  /** `key`: LogIndex.key(tenantId, streamId), when the caller made it already. */
  getOrCreateStream(
    tenantId: string,
    streamId: string,
    nowMs: number,
    key = LogIndex.key(tenantId, streamId),
  ): StreamState {
    let s = this.streamsByKey.get(key);
    if (s) return s;
    const tenant = this.tenantFor(tenantId);
    s = new StreamState(this.streams.length, tenant, streamId, this);
    s.createdAtMs = nowMs;
    s.updatedAtMs = nowMs;
    this.streams.push(s);
    this.streamsByKey.set(key, s);
    tenant.streams.push(s);
    return s;
  }

  private tenantFor(tenantId: string): TenantState {
    let tenant = this.tenants.get(tenantId);
    if (!tenant) {
      tenant = new TenantState(tenantId);
      this.tenants.set(tenantId, tenant);
    }
    return tenant;
  }

  segment(segmentNo: number): SegmentIndex | undefined {
    return this.bySegmentNo.get(segmentNo);
  }

  /** The segment index holding `position` (the last one whose base is at or below it). */
  segmentOf(position: number): SegmentIndex | null {
    const segs = this.segments;
    let lo = 0;
    let hi = segs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (segs[mid]!.basePosition <= position) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? segs[lo - 1]! : null;
  }

  /**
   * Where the event at `position` is: true with foundSegmentNo, foundOffset and foundStream
   * set, or false when no event is stored there (never written, scavenged or lost).
   */
  locate(position: number): boolean {
    const seg = this.segmentOf(position);
    if (!seg) return false;
    const offset = seg.offsetOf(position);
    if (offset === NO_OFFSET) return false;
    this.foundSegmentNo = seg.segmentNo;
    this.foundOffset = offset;
    this.foundStream = seg.streams[seg.slotOf(position)]!;
    return true;
  }

  /** A cursor over `s` by revision, reading `chunk` revisions of a run at a time. */
  cursor(s: StreamState, backward = false, chunk = 1024): StreamCursor {
    return new StreamCursor(this, s, backward, Math.max(1, chunk));
  }

  /** The position of `revision` of `s`, or -1. */
  positionOf(s: StreamState, revision: number): number {
    return this.cursor(s, false, 1).at(revision);
  }

  /** created_at of `revision` of `s`, or -1 when it has no stored event. */
  createdAtOf(s: StreamState, revision: number): number {
    const i = s.runIndexOf(revision);
    if (i < 0) return -1;
    const run = s.runs[i]!;
    return this.segment(run.segmentNo)!.runCreatedAt(run.slot, revision - run.firstRevision);
  }

  /** The revision of `s` stored at `position` (-1 if none): for a record whose bytes are damaged. */
  revisionAt(s: StreamState, position: number): number {
    const seg = this.segmentOf(position);
    if (!seg) return -1;
    for (const run of s.runs) {
      if (run.segmentNo !== seg.segmentNo) continue;
      const positions = seg.runPositions(run.slot, 0, run.entries);
      const k = positions.indexOf(position);
      if (k >= 0) return run.firstRevision + k;
    }
    return -1;
  }

  /**
   * Adds a segment's index with what its records add to every stream and tenant (start-up:
   * segments are added oldest first). A stream's events and metadata records are applied in
   * their log order: a metadata record carries the stream's revision count when it was
   * written, so the events before it are those below that count.
   */
  attach(seg: SegmentIndex): void {
    const streams: StreamState[] = [];
    for (const slot of seg.slots) {
      const tenantId = seg.tenants[slot.tenantSlot]!.tenantId;
      streams.push(this.getOrCreateStream(tenantId, slot.streamId, slot.firstAtMs));
    }
    seg.streams = streams;
    this.addSegment(seg);
    const appliedTo = seg.slots.map((slot) => slot.firstRevision);
    const applyEvents = (slotNo: number, below: number): void => {
      const slot = seg.slots[slotNo]!;
      if (slot.firstRevision < 0) return;
      const end = Math.min(below, slot.firstRevision + slot.entries);
      if (end <= appliedTo[slotNo]!) return;
      const s = streams[slotNo]!;
      if (end > s.count) s.count = end;
      // Appending to a soft-deleted stream revives it (as addEvent does).
      if (s.deleted && end - 1 >= s.deletedBefore) this.revive(s);
      appliedTo[slotNo] = end;
    };
    for (const m of seg.metas) {
      applyEvents(m.slot, m.revision);
      const s = streams[m.slot]!;
      if (m.revision > s.count) s.count = m.revision;
      this.applyMeta(s, JSON.parse(m.body) as StreamMetaBody, m.atMs);
    }
    for (let slotNo = 0; slotNo < seg.slots.length; slotNo++) {
      applyEvents(slotNo, Number.MAX_SAFE_INTEGER);
      this.recount(streams[slotNo]!);
      const slot = seg.slots[slotNo]!;
      const s = streams[slotNo]!;
      s.bytes += slot.bytes;
      s.storedEvents += slot.events;
      if (slot.lastAtMs > s.updatedAtMs) s.updatedAtMs = slot.lastAtMs;
      if (slot.firstRevision >= 0) {
        s.runs.push({
          segmentNo: seg.segmentNo,
          slot: slotNo,
          firstRevision: slot.firstRevision,
          entries: slot.entries,
          firstEventAtMs: slot.firstEventAtMs,
        });
      }
    }
    for (const t of seg.tenants) {
      // A tenant may be here only for its appends (scavenge removed its events: keepAppendsOf).
      const tenant = this.tenantFor(t.tenantId);
      tenant.events += t.events;
      tenant.bytes += t.bytes;
      tenant.appendsTotal += t.batches;
      if (t.lastAppendAtMs !== null) tenant.lastAppendAtMs = t.lastAppendAtMs;
    }
    this.eventsStored += seg.events;
    this.bytesStored += seg.bytes;
    if (seg.maxCreatedAtMs > this.lastCreatedAtMs) this.lastCreatedAtMs = seg.maxCreatedAtMs;
    const end = seg.basePosition + seg.span();
    if (end > this.nextPosition) this.nextPosition = end;
  }

  /** After every segment is attached: revisions below a stream's first stored one are gone. */
  finishAttaching(): void {
    for (const s of this.streams) {
      const first = s.runs.length > 0 ? s.runs[0]!.firstRevision : s.count;
      if (first > s.scavengedBefore) s.scavengedBefore = first;
    }
  }

  /**
   * Starts the index of a new active segment (empty until appends reach it), with room for
   * `expectedEvents` (the sealed segment's count: the next one is likely alike).
   */
  startSegment(
    segmentNo: number,
    generation: number,
    basePosition: number,
    expectedEvents = 0,
  ): MemorySegmentIndex {
    const seg = new MemorySegmentIndex(segmentNo, generation, basePosition, expectedEvents);
    this.addSegment(seg);
    return seg;
  }

  private addSegment(seg: SegmentIndex): void {
    this.bySegmentNo.set(seg.segmentNo, seg);
    this.segments.push(seg);
    this.segments.sort((a, b) => a.segmentNo - b.segmentNo);
  }

  /** Puts `next` where `current` was, in both the map and the ordered list. */
  private swapIn(current: SegmentIndex, next: SegmentIndex): void {
    this.bySegmentNo.set(next.segmentNo, next);
    this.segments[this.segments.indexOf(current)] = next;
  }

  /**
   * Puts `next` (the same segment's index, from its file) in place of `current`: slots are
   * numbered alike, so runs keep pointing at the right entries.
   */
  replaceSegment(current: SegmentIndex, next: SegmentIndex): void {
    next.streams = current.streams;
    if (this.fingerprintsOf.has(current)) this.fingerprintsOf.add(next);
    this.swapIn(current, next);
  }

  /**
   * Puts a rewritten segment's index (scavenge: fewer events, new slots) in place of the old
   * one: the segment's runs are replaced by the new index's. Counters are the caller's.
   */
  replaceRewrittenSegment(current: SegmentIndex, next: SegmentIndex): void {
    const segmentNo = current.segmentNo;
    for (const s of new Set(current.streams)) {
      const i = s.runs.findIndex((r) => r.segmentNo === segmentNo);
      if (i >= 0) s.runs.splice(i, 1);
    }
    next.streams = next.slots.map((slot) =>
      this.getStream(next.tenants[slot.tenantSlot]!.tenantId, slot.streamId)!,
    );
    next.slots.forEach((slot, slotNo) => {
      if (slot.firstRevision < 0) return;
      const s = next.streams[slotNo]!;
      const run: Run = {
        segmentNo,
        slot: slotNo,
        firstRevision: slot.firstRevision,
        entries: slot.entries,
        firstEventAtMs: slot.firstEventAtMs,
      };
      let at = s.runs.length;
      while (at > 0 && s.runs[at - 1]!.firstRevision > run.firstRevision) at--;
      s.runs.splice(at, 0, run);
    });
    this.swapIn(current, next);
  }

  /**
   * Fills the fingerprint set from every segment's index, a slice at a time between turns of the
   * event loop, so start-up does not wait for it (tens of nanoseconds a fingerprint, mostly
   * cache misses: seconds at tens of millions of events). A segment replaced meanwhile (sealed,
   * scavenged) is filled from its new index. Stops early when `stopped()` says so.
   */
  async fillFingerprints(stopped: () => boolean): Promise<void> {
    const slice = 32_768;
    for (;;) {
      const seg = this.segments.find((s) => !this.fingerprintsOf.has(s));
      if (!seg) break;
      const { low, high } = seg.fingerprintColumns();
      for (let from = 0; from < low.length; from += slice) {
        const to = Math.min(low.length, from + slice);
        for (let i = from; i < to; i++) this.fingerprints.add(low[i]!, high[i]!);
        await new Promise((resolve) => setImmediate(resolve));
        if (stopped()) return;
      }
      this.fingerprintsOf.add(seg);
    }
    this.fingerprintsReady = true;
  }

  /** Records one event appended to the active segment `seg`. */
  addEvent(
    seg: MemorySegmentIndex,
    s: StreamState,
    revision: number,
    position: number,
    createdAtMs: number,
    offset: number,
    recordBytes: number,
    fingerprintLow: number,
    fingerprintHigh: number,
    batchEnd: boolean,
  ): void {
    // The stream's run in this segment already names its slot (no key to build and look up);
    // the first event of the stream here, or a slot made by a metadata record, is looked up.
    const run = s.runs[s.runs.length - 1];
    const slot =
      run !== undefined && run.segmentNo === seg.segmentNo && seg.streams[run.slot] === s
        ? run.slot
        : seg.slotFor(s.tenant.tenantId, s.streamId, createdAtMs);
    seg.streams[slot] = s;
    seg.addEvent(
      slot,
      revision,
      position,
      createdAtMs,
      offset,
      recordBytes,
      fingerprintLow,
      fingerprintHigh,
      batchEnd,
    );
    const info = seg.slots[slot]!;
    if (run !== undefined && run.segmentNo === seg.segmentNo) {
      run.entries = info.entries;
    } else {
      s.runs.push({
        segmentNo: seg.segmentNo,
        slot,
        firstRevision: info.firstRevision,
        entries: info.entries,
        firstEventAtMs: info.firstEventAtMs,
      });
    }
    if (position + 1 > this.nextPosition) this.nextPosition = position + 1;
    if (revision + 1 > s.count) s.count = revision + 1;
    s.bytes += recordBytes;
    s.storedEvents++;
    if (s.deleted && revision >= s.deletedBefore) this.revive(s);
    this.recount(s);
    s.updatedAtMs = createdAtMs;
    const t = s.tenant;
    t.events++;
    t.bytes += recordBytes;
    if (batchEnd) {
      t.appendsTotal++;
      t.lastAppendAtMs = createdAtMs;
    }
    this.eventsStored++;
    this.bytesStored += recordBytes;
    if (createdAtMs > this.lastCreatedAtMs) this.lastCreatedAtMs = createdAtMs;
    this.fingerprints.add(fingerprintLow, fingerprintHigh);
  }

  /** Records one stream-metadata record appended to the active segment `seg`. */
  addMeta(seg: MemorySegmentIndex, s: StreamState, revision: number, atMs: number, body: string): void {
    const slot = seg.slotFor(s.tenant.tenantId, s.streamId, atMs);
    seg.streams[slot] = s;
    const parsed = JSON.parse(body) as StreamMetaBody;
    seg.addMeta(slot, revision, atMs, body, changesUpdatedAt(parsed));
    if (revision > s.count) s.count = revision;
    this.applyMeta(s, parsed, atMs);
    this.recount(s);
    if (atMs > this.lastCreatedAtMs) this.lastCreatedAtMs = atMs;
  }

  private applyMeta(s: StreamState, body: StreamMetaBody, atMs: number): void {
    switch (body.op) {
      case "retention": // Of versions before metadata documents: a change of its retention keys.
        s.retention = { ...body.retention };
        s.metadata = withRetention(s.metadata ?? {}, s.retention);
        s.metadataRevision = (s.metadataRevision ?? -1) + 1;
        s.updatedAtMs = atMs;
        break;
      case "metadata":
        s.metadata = body.metadata;
        s.metadataRevision = body.revision;
        s.retention = retentionOf(body.metadata);
        s.updatedAtMs = atMs;
        break;
      case "delete":
        this.setDeleted(s, body.before, atMs);
        break;
      case "tombstone":
        s.tombstoned = true;
        this.setDeleted(s, body.before, atMs);
        break;
      case "scavenged":
        if (body.before > s.count) s.count = body.before;
        if (body.before > s.scavengedBefore) s.scavengedBefore = body.before;
        if (body.created_at !== undefined) s.createdAtMs = body.created_at;
        break;
    }
    this.recount(s);
  }

  private revive(s: StreamState): void {
    // Appending to a soft-deleted stream revives it; only the new events are readable.
    s.deleted = false;
    this.recount(s);
  }

  setDeleted(s: StreamState, deletedBefore: number, atMs: number): void {
    s.deleted = true;
    this.recount(s);
    if (deletedBefore > s.deletedBefore) s.deletedBefore = deletedBefore;
    s.updatedAtMs = atMs;
  }

  /** Keeps the tenant's liveStreams (streams with events, not deleted) in step with `s`. */
  private recount(s: StreamState): void {
    if (s.count > 0) s.tenant.hasEvents = true;
    const counted = s.count > 0 && !s.deleted;
    if (counted === s.counted) return;
    s.counted = counted;
    s.tenant.liveStreams += counted ? 1 : -1;
  }

  /** Resident bytes: the fingerprint set, the segment indexes' resident parts, the runs. */
  memoryBytes(): number {
    let bytes = this.fingerprints.byteLength;
    for (const seg of this.segments) bytes += seg.memoryBytes();
    for (const s of this.streams) bytes += 200 + s.runs.length * 64;
    return bytes;
  }
}

/** Body of a stream-metadata record (JSON in the record's data field). */
export type StreamMetaBody =
  | { op: "retention"; retention: Retention }
  | { op: "delete"; before: number }
  /** The stream's metadata document, replaced whole, at metadata_revision `revision`. */
  | { op: "metadata"; revision: number; metadata: MetadataDocument }
  /** A tombstone: revisions below `before` are deleted, and the name is barred for good. */
  | { op: "tombstone"; before: number }
  /**
   * Written by scavenge before it removes events of a stream: revisions below `before` are gone,
   * and the stream was created at `created_at` (ms; absent in marks of older versions).
   */
  | { op: "scavenged"; before: number; created_at?: number };

/** Whether a stream-metadata record changes the stream's updated_at (scavenge's marks do not). */
export function changesUpdatedAt(body: StreamMetaBody): boolean {
  return body.op !== "scavenged";
}

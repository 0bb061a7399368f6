/**
 * The in-memory index of the log engine, kept in typed arrays so its cost per event is
 * bounded and known (docs/log-engine.md, "Memory"):
 *
 *   per global position  segment number u32 + offset u32 + stream number u32   12 bytes
 *   per stream event     position f64 + created_at ms f64                     16 bytes
 *   per tenant event     position f64                                          8 bytes
 *   event-id table       fingerprint u32 + position f64 per slot, load <= 1/2 >= 24 bytes
 *
 * Arrays grow by doubling, so allocated memory is at most twice the live size; status reports
 * what is allocated. Invariants: positions are dense from 0 (a position whose event was removed
 * by scavenge or lost to corruption has segment NO_SEGMENT); per stream, revisions are dense
 * from 0 (a removed revision has position -1); created_at never decreases along a stream, so
 * retention by age removes a prefix found by binary search.
 */
import type { Retention } from "../engine.js";

export const NO_SEGMENT = 0xffffffff;

export class GrowableF64 {
  array: Float64Array;
  length = 0;
  constructor(capacity = 4) {
    this.array = new Float64Array(capacity);
  }
  push(value: number): void {
    if (this.length === this.array.length) this.grow(this.length + 1);
    this.array[this.length++] = value;
  }
  set(index: number, value: number): void {
    if (index >= this.array.length) this.grow(index + 1);
    if (index >= this.length) {
      this.array.fill(-1, this.length, index);
      this.length = index + 1;
    }
    this.array[index] = value;
  }
  get(index: number): number {
    return this.array[index] as number;
  }
  private grow(min: number): void {
    let capacity = Math.max(4, this.array.length * 2);
    while (capacity < min) capacity *= 2;
    const next = new Float64Array(capacity);
    next.set(this.array.subarray(0, this.length));
    this.array = next;
  }
  get byteLength(): number {
    return this.array.byteLength;
  }
}

export class GrowableU32 {
  array: Uint32Array;
  /** `fill` is the value of slots never written (NO_SEGMENT for segment numbers). */
  constructor(
    capacity = 1024,
    private readonly fill = 0,
  ) {
    this.array = new Uint32Array(capacity);
    if (fill !== 0) this.array.fill(fill);
  }
  ensure(min: number): void {
    if (min <= this.array.length) return;
    let capacity = Math.max(1024, this.array.length * 2);
    while (capacity < min) capacity *= 2;
    const next = new Uint32Array(capacity);
    next.set(this.array);
    if (this.fill !== 0) next.fill(this.fill, this.array.length);
    this.array = next;
  }
}

export function emptyRetention(): Retention {
  return { max_age_seconds: null, max_count: null, truncate_before: null };
}

export class TenantState {
  readonly streams: StreamState[] = [];
  /** Streams that are not soft-deleted. */
  liveStreams = 0;
  /** Events and record bytes still stored (until scavenge removes them). */
  events = 0;
  bytes = 0;
  appendsTotal = 0;
  readsTotal = 0;
  lastAppendAtMs: number | null = null;
  readonly positions = new GrowableF64(16);
  constructor(readonly tenantId: string) {}
}

export class StreamState {
  /** Position of each revision; -1 where the event is gone (scavenged or lost). */
  readonly positions = new GrowableF64(4);
  readonly createdAt = new GrowableF64(4);
  /** Last revision + 1. */
  count = 0;
  retention: Retention = emptyRetention();
  deleted = false;
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
  ) {}

  /** The first revision reads may return, from the stream's rules as of `nowMs`. */
  firstReadable(nowMs: number): number {
    let first = Math.max(this.deletedBefore, this.scavengedBefore);
    const r = this.retention;
    if (r.truncate_before !== null && r.truncate_before > first) first = r.truncate_before;
    if (r.max_count !== null && this.count - r.max_count > first) first = this.count - r.max_count;
    if (r.max_age_seconds !== null) {
      const cutoff = nowMs - r.max_age_seconds * 1000;
      // created_at is non-decreasing: find the first revision created at or after the cutoff.
      let lo = first;
      let hi = this.count;
      const arr = this.createdAt.array;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const c = arr[mid] as number;
        if (c >= 0 && c < cutoff) lo = mid + 1;
        else if (c < 0) lo = mid + 1;
        else hi = mid;
      }
      first = lo;
    }
    return Math.min(first, this.count);
  }
}

/** FNV-1a over the UTF-16 code units of an event id; never 0 (0 marks an empty slot). */
export function eventIdFingerprint(eventId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < eventId.length; i++) {
    h ^= eventId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0 || 1;
}

/**
 * Open addressing from event-id fingerprint to position. A hit is only a candidate: the caller
 * checks the record at that position (stream and full id), so fingerprint collisions are harmless.
 */
export class EventIdTable {
  keys = new Uint32Array(1024);
  values = new Float64Array(1024);
  size = 0;

  add(fingerprint: number, position: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.resize(this.keys.length * 2);
    this.insert(fingerprint, position);
    this.size++;
  }

  private insert(fingerprint: number, position: number): void {
    const mask = this.keys.length - 1;
    let i = fingerprint & mask;
    while (this.keys[i] !== 0) i = (i + 1) & mask;
    this.keys[i] = fingerprint;
    this.values[i] = position;
  }

  /** Calls `visit` with each candidate position until it returns true. */
  find(fingerprint: number, visit: (position: number) => boolean): boolean {
    const mask = this.keys.length - 1;
    let i = fingerprint & mask;
    for (;;) {
      const k = this.keys[i];
      if (k === 0) return false;
      if (k === fingerprint && visit(this.values[i] as number)) return true;
      i = (i + 1) & mask;
    }
  }

  /** Drops entries whose position is no longer stored (after a scavenge), shrinking the table. */
  compact(isStored: (position: number) => boolean): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    let live = 0;
    for (let i = 0; i < oldKeys.length; i++) if (oldKeys[i] !== 0 && isStored(oldValues[i]!)) live++;
    let capacity = 1024;
    while (capacity < live * 2) capacity *= 2;
    this.keys = new Uint32Array(capacity);
    this.values = new Float64Array(capacity);
    this.size = live;
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i]!;
      if (k !== 0 && isStored(oldValues[i]!)) this.insert(k, oldValues[i]!);
    }
  }

  private resize(capacity: number): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    this.keys = new Uint32Array(capacity);
    this.values = new Float64Array(capacity);
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i] as number;
      if (k !== 0) this.insert(k, oldValues[i] as number);
    }
  }

  get byteLength(): number {
    return this.keys.byteLength + this.values.byteLength;
  }
}

export class LogIndex {
  readonly streamsByKey = new Map<string, StreamState>();
  readonly streams: StreamState[] = [];
  readonly tenants = new Map<string, TenantState>();
  /** Per position: segment number, offset in it, stream number. */
  readonly posSegment = new GrowableU32(1024, NO_SEGMENT);
  readonly posOffset = new GrowableU32();
  readonly posStream = new GrowableU32();
  /** Positions start at 1, so 0 can mean "nothing yet" (last_position of an empty store). */
  nextPosition = 1;
  /** Events still stored (not scavenged, not lost). */
  eventsStored = 0;
  bytesStored = 0;
  readonly eventIds = new EventIdTable();
  /** Newest created_at handed out; created_at never decreases. */
  lastCreatedAtMs = 0;

  static key(tenantId: string, streamId: string): string {
    return tenantId + "\u0000" + streamId;
  }

  getStream(tenantId: string, streamId: string): StreamState | undefined {
    return this.streamsByKey.get(LogIndex.key(tenantId, streamId));
  }

  getOrCreateStream(tenantId: string, streamId: string, nowMs: number): StreamState {
    const key = LogIndex.key(tenantId, streamId);
    let s = this.streamsByKey.get(key);
    if (s) return s;
    let tenant = this.tenants.get(tenantId);
    if (!tenant) {
      tenant = new TenantState(tenantId);
      this.tenants.set(tenantId, tenant);
    }
    s = new StreamState(this.streams.length, tenant, streamId);
    s.createdAtMs = nowMs;
    s.updatedAtMs = nowMs;
    this.streams.push(s);
    this.streamsByKey.set(key, s);
    tenant.streams.push(s);
    tenant.liveStreams++;
    return s;
  }

  /** Records one stored event. Positions may arrive with gaps (lost records) but never go back. */
  addEvent(
    s: StreamState,
    revision: number,
    position: number,
    createdAtMs: number,
    segmentNo: number,
    offset: number,
    recordBytes: number,
    fingerprint: number,
  ): void {
    const next = position + 1;
    this.posSegment.ensure(next);
    this.posOffset.ensure(next);
    this.posStream.ensure(next);
    this.posSegment.array[position] = segmentNo;
    this.posOffset.array[position] = offset;
    this.posStream.array[position] = s.number;
    if (next > this.nextPosition) this.nextPosition = next;
    if (revision === s.positions.length) {
      s.positions.push(position);
      s.createdAt.push(createdAtMs);
    } else {
      s.positions.set(revision, position);
      s.createdAt.set(revision, createdAtMs);
    }
    if (revision + 1 > s.count) s.count = revision + 1;
    s.bytes += recordBytes;
    s.storedEvents++;
    if (s.deleted && revision >= s.deletedBefore) {
      // Appending to a soft-deleted stream revives it; only the new events are readable.
      s.deleted = false;
      s.tenant.liveStreams++;
    }
    s.updatedAtMs = createdAtMs;
    const t = s.tenant;
    t.positions.push(position);
    t.events++;
    t.bytes += recordBytes;
    this.eventsStored++;
    this.bytesStored += recordBytes;
    if (createdAtMs > this.lastCreatedAtMs) this.lastCreatedAtMs = createdAtMs;
    this.eventIds.add(fingerprint, position);
  }

  setDeleted(s: StreamState, deletedBefore: number, atMs: number): void {
    if (!s.deleted) {
      s.deleted = true;
      s.tenant.liveStreams--;
    }
    if (deletedBefore > s.deletedBefore) s.deletedBefore = deletedBefore;
    s.updatedAtMs = atMs;
  }

  memoryBytes(): number {
    let bytes =
      this.posSegment.array.byteLength +
      this.posOffset.array.byteLength +
      this.posStream.array.byteLength +
      this.eventIds.byteLength;
    for (const s of this.streams) bytes += s.positions.byteLength + s.createdAt.byteLength;
    for (const t of this.tenants.values()) bytes += t.positions.byteLength;
    return bytes;
  }
}

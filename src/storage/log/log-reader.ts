/**
 * The log engine's read side: stream and whole-log reads, stream info, listings and tenant usage,
 * all answered from the index and the segment bytes without waiting on anything.
 *
 * Invariants:
 * - reads are synchronous: a read sees the index between two group commits (never half of one)
 *   and never half of a scavenge swap;
 * - every record a read serves has passed its CRC32C on the bytes in hand (readChecked), and its
 *   position is the one the index asked for; a damaged record is never served (DATA_CORRUPTED),
 *   and is logged once;
 * - the buffers handed out (StoredEventRecord, RepeatedText) never change below the record's end
 *   (SegmentStore.readRecord), so they may be kept after the read.
 */
import {
  dataCorrupted,
  EssError,
  invalidArgument,
  streamNotFound,
  streamTombstoned,
  unavailable,
} from "../../errors.js";
import { limits } from "../../limits.js";
import type { Logger } from "../../logger.js";
import type {
  EventRecord,
  ReadStreamResult,
  StreamInfo,
  StreamList,
  StreamMetadata,
  StreamSummary,
  TenantList,
  TenantUsage,
} from "../../contract/bodies.js";
import type {
  ListStreamsInput,
  ListTenantsInput,
  ReadAllInput,
  ReadAllPage,
  ReadStreamInput,
} from "../engine.js";
import { RepeatedText, type SlicingBuffer } from "../../buffer-text.js";
import { pageBytesMax, planReadAll } from "../read-page.js";
import type { EventMatcher } from "../../contract/event-filter.js";
import {
  BINARY_DATA,
  BINARY_METADATA,
  isoFromMs,
  StoredEventRecord,
} from "../../contract/stored-event-record.js";
import { jsonContentType } from "../../contract/bodies.js";
import { crc32c } from "./crc32c.js";
import type { LogContext } from "./log-context.js";
import { NO_OFFSET, type LogIndex, type StreamState, type TenantState } from "./log-index.js";
import { KIND_EVENT, RECORD_HEADER_BYTES } from "./record-codec.js";
import {
  DamagedRecordError,
  isRecordChecked,
  markRecordChecked,
  type Block,
  type SegmentStore,
} from "./segment-store.js";
import { checkId } from "../validate-input.js";
import { TenantWalk } from "./tenant-walk.js";

/**
 * A record header's little-endian fields, read as bytes: Buffer#readUInt32LE and readUInt16LE
 * check their bounds and were not always inlined on the page loops. The record's header lies
 * within `buf` (SegmentStore.readRecord bounded it), so no bound is needed here.
 */
function uint32At(buf: Buffer, o: number): number {
  return (buf[o]! | (buf[o + 1]! << 8) | (buf[o + 2]! << 16)) + buf[o + 3]! * 0x1000000;
}

function uint16At(buf: Buffer, o: number): number {
  return buf[o]! | (buf[o + 1]! << 8);
}

/** A read page being filled: its events, and the bytes of their data and metadata so far. */
interface PageFill {
  events: EventRecord[];
  bytes: number;
  bytesMax: number;
}

export class LogReader {
  /**
   * Set once stored bytes were found damaged (a read, or start-up): health says "degraded"
   * until the damage is dealt with and the service restarted.
   */
  damaged = false;
  /** Addresses ("segment:offset") of damaged records already logged: one line per record. */
  private readonly damagedLogged = new Set<string>();
  /**
   * The last event type and metadata text read (RepeatedText; the record bytes it keeps never
   * change, SegmentStore.readRecord).
   */
  private readonly eventTypes = new RepeatedText();
  private readonly metadataTexts = new RepeatedText();
  /** The streams in listing order, sorted again when a stream was added. */
  private sortedStreams: StreamState[] | null = null;
  // The context's members the reads use on every event, held here to save a lookup each.
  private readonly index: LogIndex;
  private readonly store: SegmentStore;
  private readonly log: Logger;
  private readonly now: () => number;

  constructor(private readonly ctx: LogContext) {
    this.index = ctx.index;
    this.store = ctx.store;
    this.log = ctx.log;
    this.now = ctx.now;
  }

  // ---------------------------------------------------------------- checked records

  /**
   * The record at (`segmentNo`, `offset`) when its bytes pass their CRC32C, checked on the bytes
   * in hand, so damage done on disk since the write is never served; the record starts at
   * store.recordOffset. A record is checked the first time it is read from a block read from its
   * file, and not again while that block stays cached (the cached bytes cannot change: the
   * check is paid per read from disk, not per read of an event); a record read apart from the
   * cache is checked every time. null when the bytes cannot
   * be framed as a record or fail the checksum: logged once per record (segment file and
   * offset), and health turns "degraded". The caller answers DATA_CORRUPTED.
   */
  readChecked(segmentNo: number, offset: number): Buffer | null {
    let buf: Buffer;
    try {
      buf = this.store.readRecord(segmentNo, offset);
    } catch (error) {
      return this.unframed(error, segmentNo, offset);
    }
    // Checked once per read from the file: a cached block's bytes do not change.
    const block = this.store.recordBlock;
    if (block !== null && isRecordChecked(block, this.store.recordOffset)) return buf;
    return this.checksummed(buf, block, segmentNo, offset);
  }

  // The two paths below are kept out of readChecked so that it stays small enough for V8 to
  // inline into the page loops (with them inline, the Buffer reads of those loops were left as
  // calls: about 10 µs of a 100-event read's server CPU).

  /** readChecked for a record not yet checked: its CRC32C on the bytes in hand. */
  private checksummed(buf: Buffer, block: Block | null, segmentNo: number, offset: number): Buffer | null {
    const o = this.store.recordOffset;
    // readRecord bounded the length by the bytes in `buf`; the checksum covers [8, length).
    if (crc32c(buf, o + 8, o + buf.readUInt32LE(o)) !== buf.readUInt32LE(o + 4)) {
      this.noteDamaged(segmentNo, offset, "checksum");
      return null;
    }
    if (block !== null) markRecordChecked(block, o);
    return buf;
  }

  /** readChecked for bytes that cannot be framed as a record: noted as damage (null); other errors thrown. */
  private unframed(error: unknown, segmentNo: number, offset: number): null {
    if (!(error instanceof DamagedRecordError)) throw error;
    this.noteDamaged(segmentNo, offset, error.reason);
    return null;
  }

  private noteDamaged(segmentNo: number, offset: number, reason: string): void {
    this.damaged = true;
    const key = `${segmentNo}:${offset}`;
    if (this.damagedLogged.has(key)) return;
    this.damagedLogged.add(key);
    this.log.error("a stored record is damaged and is not served; reads that need it answer DATA_CORRUPTED", {
      segment: this.store.segments.get(segmentNo)?.name ?? segmentNo,
      offset,
      reason,
    });
  }

  // ---------------------------------------------------------------- pages

  /**
   * Adds the event at `position` to a read page, decoded straight from the cached segment bytes:
   * strings are sliced from the record (data and metadata are never parsed), and only the
   * position is re-read as a check that the index and the record agree. With `storedBytes`
   * nothing is decoded: the record keeps the buffer and where its fields are (a
   * StoredEventRecord, for the transports); the buffer never changes below the record's end
   * (SegmentStore.readRecord), so it may be kept. False when the page is full: the event's data
   * and metadata would take it past its byte budget (a page's first event always fits). A
   * scavenged position adds nothing. A record whose bytes fail their checksum is never
   * served: the read answers DATA_CORRUPTED (readChecked).
   */
  private addToPage(
    page: PageFill,
    s: StreamState,
    position: number,
    revision: number,
    storedBytes: boolean,
    segmentNo: number,
    offset: number,
  ): boolean {
    const buf = this.readChecked(segmentNo, offset) as SlicingBuffer | null;
    if (buf === null) throw dataCorrupted(s.streamId, revision, position);
    return this.addCheckedToPage(page, s, position, revision, storedBytes, buf, this.store.recordOffset);
  }

  /** addToPage for a record already read and checked: `buf` holds it at `o`. */
  private addCheckedToPage(
    page: PageFill,
    s: StreamState,
    position: number,
    revision: number,
    storedBytes: boolean,
    buf: SlicingBuffer,
    o: number,
  ): boolean {
    if (buf.readDoubleLE(o + 16) !== position || buf[o + 8] !== KIND_EVENT) {
      this.log.error("the index and the log disagree (run verify)", {
        position,
        segment: this.index.segmentOf(position)?.segmentNo,
      });
      throw new EssError("INTERNAL", "internal error");
    }
    const metadataBytes = uint32At(buf, o + 40);
    const dataBytes = uint32At(buf, o + 44);
    if (page.events.length > 0 && page.bytes + metadataBytes + dataBytes > page.bytesMax) return false;
    page.bytes += metadataBytes + dataBytes;
    page.events.push(this.decodeEvent(s, buf, o, position, revision, metadataBytes, dataBytes, storedBytes));
    return true;
  }

  /** The record at `buf[o]` as an event (see addToPage). */
  private decodeEvent(
    s: StreamState,
    buf: SlicingBuffer,
    o: number,
    position: number,
    revision: number,
    metadataBytes: number,
    dataBytes: number,
    storedBytes: boolean,
  ): EventRecord {
    const typeStart = o + RECORD_HEADER_BYTES + uint16At(buf, o + 10) + uint16At(buf, o + 12);
    const metadataStart = typeStart + uint16At(buf, o + 14);
    const dataStart = metadataStart + metadataBytes;
    const dataEnd = dataStart + dataBytes;
    // FLAG_BINARY_DATA and FLAG_BINARY_METADATA (2, 4) as BINARY_DATA and BINARY_METADATA (1, 2).
    const binary = (buf[o + 9]! >> 1) & (BINARY_DATA | BINARY_METADATA);
    if (storedBytes || binary !== 0) {
      const stored = new StoredEventRecord(
        s.streamId,
        revision,
        position,
        buf.readDoubleLE(o + 32),
        buf,
        o + 48,
        o + 84,
        typeStart,
        metadataStart,
        dataStart,
        dataEnd,
        binary,
      );
      // A plain record of a binary event: its bytes copied out of the block (see StoredEventRecord).
      return storedBytes ? stored : stored.toJSON();
    }
    return {
      stream_id: s.streamId,
      revision,
      position,
      event_id: buf.latin1Slice(o + 48, o + 84),
      event_type: this.eventTypes.of(buf, typeStart, metadataStart),
      data: buf.utf8Slice(dataStart, dataEnd),
      metadata: this.metadataTexts.of(buf, metadataStart, dataStart),
      created_at: isoFromMs(buf.readDoubleLE(o + 32)),
      content_type: jsonContentType,
    };
  }

  // ---------------------------------------------------------------- reads

  readStream(input: ReadStreamInput): ReadStreamResult {
    if (this.ctx.closed) throw unavailable("the storage engine is closed");
    checkId("tenant_id", input.tenant_id);
    checkId("stream_id", input.stream_id);
    checkLimit(input.limit);
    const from = input.from_revision;
    if (from !== null && (!Number.isSafeInteger(from) || from < 0)) {
      throw invalidArgument("from_revision must be a whole number >= 0", { field: "from_revision" });
    }
    const s = this.index.getStream(input.tenant_id, input.stream_id);
    if (s?.tombstoned) throw streamTombstoned(input.stream_id);
    // A stream with no event (only its metadata set) is not found, as one never written.
    if (!s || s.deleted || s.count === 0) throw streamNotFound(input.stream_id);
    const page: PageFill = { events: [], bytes: 0, bytesMax: pageBytesMax(input.bytes_max) };
    const first = s.firstReadable(this.now());
    const last = s.count - 1;
    const storedBytes = input.stored_bytes === true;
    const backward = input.direction === "backward";
    const at = this.index.cursor(s, backward, input.limit);
    let r: number;
    let next: number | null;
    if (backward) {
      r = from === null ? last : Math.min(from, last);
      while (r >= first && page.events.length < input.limit) {
        const pos = at.at(r);
        if (pos >= 0 && !this.addToPage(page, s, pos, r, storedBytes, at.segmentNo, at.offset)) break;
        r--;
      }
      next = r >= first ? r : null;
    } else {
      r = Math.max(from ?? 0, first);
      while (r <= last && page.events.length < input.limit) {
        const pos = at.at(r);
        if (pos >= 0 && !this.addToPage(page, s, pos, r, storedBytes, at.segmentNo, at.offset)) break;
        r++;
      }
      next = r <= last ? r : null;
    }
    s.tenant.readsTotal++;
    return {
      stream_id: s.streamId,
      direction: input.direction,
      events: page.events,
      next_revision: next,
      is_end: next === null,
    };
  }

  /**
   * A page of the tenant's events in global order, forward or backward from `from_position`
   * (inclusive). The tenant's positions come from the index (TenantWalk); the stream filter is
   * decided from the index alone, the event type filter from the record's header and type bytes,
   * so an event that does not match is never decoded. At most `skip_max` events are passed over
   * (no match, or hidden by retention): the page ends at the one that would be the next, which
   * is then next_position.
   */
  readAll(input: ReadAllInput): ReadAllPage {
    if (this.ctx.closed) throw unavailable("the storage engine is closed");
    checkId("tenant_id", input.tenant_id);
    checkLimit(input.limit);
    const page: PageFill = { events: [], bytes: 0, bytesMax: pageBytesMax(input.bytes_max) };
    const plan = planReadAll(input);
    const tenant = this.index.tenants.get(input.tenant_id);
    if (!tenant) return { events: [], next_position: null, is_end: true };
    tenant.readsTotal++;
    const nowMs = this.now();
    const firstByStream = new Map<number, number>();
    const matcher = plan.matcher;
    const storedBytes = input.stored_bytes === true;
    const walk = new TenantWalk(this.index, input.tenant_id, plan.from, plan.backward);
    let skipped = 0;
    let next: number | null = null;
    let looked = -1;
    for (let pos = walk.next(); pos >= 0; pos = walk.next()) {
      if (page.events.length >= input.limit) {
        next = pos;
        break;
      }
      looked = pos;
      const seg = walk.segment!;
      const offset = seg.offsetOf(pos);
      if (offset === NO_OFFSET) continue;
      const s = seg.streams[seg.slotOf(pos)]!;
      if (matcher !== null && !matcher.stream(s.streamId)) {
        if (skipped++ >= plan.skipMax) {
          next = pos;
          break;
        }
        continue;
      }
      let first = firstByStream.get(s.number);
      if (first === undefined) {
        first = s.firstReadable(nowMs);
        firstByStream.set(s.number, first);
      }
      if (
        matcher !== null &&
        matcher.checksType &&
        this.typeMissesUnchecked(matcher, seg.segmentNo, offset)
      ) {
        if (skipped++ >= plan.skipMax) {
          next = pos;
          break;
        }
        continue;
      }
      const buf = this.readChecked(seg.segmentNo, offset) as SlicingBuffer | null;
      if (buf === null) {
        // Its revision from the index (the record's own is not to be trusted): an event
        // hidden by the stream's rules is not served anyway, so the page goes on without it.
        const damagedRevision = this.index.revisionAt(s, pos);
        if (damagedRevision < first) continue;
        throw dataCorrupted(s.streamId, damagedRevision, pos);
      }
      const o = this.store.recordOffset;
      const revision = buf.readDoubleLE(o + 24);
      if (revision < first) {
        if (skipped++ >= plan.skipMax) {
          next = pos;
          break;
        }
        continue;
      }
      if (!this.addCheckedToPage(page, s, pos, revision, storedBytes, buf, o)) {
        next = pos;
        break;
      }
    }
    const page_: ReadAllPage = { events: page.events, next_position: next, is_end: next === null };
    const resume = next ?? (looked < 0 || plan.backward ? null : looked + 1);
    if (resume !== null) page_.resume_position = resume;
    return page_;
  }

  /**
   * True when the event type of the record at (`segmentNo`, `offset`) does not pass the
   * matcher's type criteria, decided on its header and type bytes before any checksum: an event
   * that is passed over is never served, so its bytes need no check (a scan through unmatched
   * events does not pay a CRC32C per record). False when it matches, or when its header cannot be
   * framed: the caller then reads it checked (readChecked), which reports damage.
   */
  private typeMissesUnchecked(matcher: EventMatcher, segmentNo: number, offset: number): boolean {
    let buf: Buffer;
    try {
      buf = this.store.readRecord(segmentNo, offset);
    } catch (error) {
      if (error instanceof DamagedRecordError) return false;
      throw error;
    }
    const o = this.store.recordOffset;
    const typeStart = o + RECORD_HEADER_BYTES + buf.readUInt16LE(o + 10) + buf.readUInt16LE(o + 12);
    const typeEnd = typeStart + buf.readUInt16LE(o + 14);
    if (typeEnd > o + buf.readUInt32LE(o) || typeEnd > buf.length) return false;
    if (!matcher.typeBytesHavePrefix(buf, typeStart, typeEnd)) return true;
    return (
      matcher.typeNeedsText && !matcher.type(this.eventTypes.of(buf as SlicingBuffer, typeStart, typeEnd))
    );
  }

  // ---------------------------------------------------------------- info, listings, usage

  info(s: StreamState): StreamInfo {
    return streamInfo(s, this.now());
  }

  getStreamInfo(tenantId: string, streamId: string): StreamInfo | null {
    checkId("tenant_id", tenantId);
    checkId("stream_id", streamId);
    const s = this.index.getStream(tenantId, streamId);
    return s && (s.count > 0 || s.tombstoned) ? this.info(s) : null;
  }

  getStreamMetadata(tenantId: string, streamId: string): StreamMetadata {
    checkId("tenant_id", tenantId);
    checkId("stream_id", streamId);
    const s = this.index.getStream(tenantId, streamId);
    if (s?.tombstoned) throw streamTombstoned(streamId);
    return s ? streamMetadataOf(s) : { stream_id: streamId, metadata_revision: null, metadata: {} };
  }

  private sorted(): StreamState[] {
    if (!this.sortedStreams || this.sortedStreams.length !== this.index.streams.length) {
      this.sortedStreams = [...this.index.streams].sort((a, b) => {
        const ta = a.tenant.tenantId;
        const tb = b.tenant.tenantId;
        if (ta !== tb) return ta < tb ? -1 : 1;
        return a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0;
      });
    }
    return this.sortedStreams;
  }

  listStreams(input: ListStreamsInput): StreamList {
    checkLimit(input.limit);
    if (input.tenant_id !== null) checkId("tenant_id", input.tenant_id);
    const prefix = input.prefix ?? "";
    const sorted = this.sorted();
    // Start after the cursor, or at the first stream of the tenant (plus prefix).
    let startTenant = input.tenant_id ?? "";
    let startStream = input.tenant_id !== null ? prefix : "";
    let exclusive = false;
    if (input.cursor !== null) {
      const [t, st] = decodeCursor(input.cursor, 2) as [string, string];
      startTenant = t;
      startStream = st;
      exclusive = true;
    }
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = sorted[mid]!;
      const t = m.tenant.tenantId;
      const before =
        t < startTenant ||
        (t === startTenant && (exclusive ? m.streamId <= startStream : m.streamId < startStream));
      if (before) lo = mid + 1;
      else hi = mid;
    }
    const nowMs = this.now();
    const streams: StreamSummary[] = [];
    let i = lo;
    let more = false;
    for (; i < sorted.length; i++) {
      const s = sorted[i]!;
      if (input.tenant_id !== null && s.tenant.tenantId !== input.tenant_id) break;
      if (!s.streamId.startsWith(prefix)) {
        if (input.tenant_id !== null && s.streamId > prefix) break;
        continue;
      }
      // Streams with no event (only metadata, or a tombstone of an unused name) are not listed.
      if (s.count === 0) continue;
      if (streams.length === input.limit) {
        more = true;
        break;
      }
      streams.push(streamSummary(s, nowMs));
    }
    const lastReturned = streams[streams.length - 1];
    return {
      streams,
      next_cursor:
        more && lastReturned ? encodeCursor([lastReturned.tenant_id, lastReturned.stream_id]) : null,
    };
  }

  getTenantUsage(tenantId: string): TenantUsage | null {
    const t = this.index.tenants.get(tenantId);
    return t?.hasEvents ? tenantUsage(t) : null;
  }

  listTenants(input: ListTenantsInput): TenantList {
    checkLimit(input.limit);
    const after = input.cursor === null ? null : decodeCursor(input.cursor, 1)[0]!;
    const ids = [...this.index.tenants.values()]
      .filter((t) => t.hasEvents && (after === null || t.tenantId > after))
      .map((t) => t.tenantId)
      .sort();
    const page = ids.slice(0, input.limit);
    const more = ids.length > input.limit;
    return {
      tenants: page.map((id) => tenantUsage(this.index.tenants.get(id)!)),
      next_cursor: more ? encodeCursor([page[page.length - 1]!]) : null,
    };
  }

  largestStreams(tenantId: string, count: number): StreamSummary[] {
    const t = this.index.tenants.get(tenantId);
    if (!t) return [];
    const nowMs = this.now();
    const top = t.streams
      .filter((s) => s.count > 0)
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, Math.max(0, count));
    return top.map((s) => streamSummary(s, nowMs));
  }
}

/** A stream's info as the contract shows it, with retention applied at `nowMs`. */
export function streamInfo(s: StreamState, nowMs: number): StreamInfo {
  const first = s.firstReadable(nowMs);
  return {
    stream_id: s.streamId,
    tenant_id: s.tenant.tenantId,
    event_count: s.count - first,
    first_revision: first < s.count ? first : null,
    last_revision: s.count > 0 ? s.count - 1 : null,
    bytes: s.bytes,
    created_at: new Date(s.createdAtMs).toISOString(),
    updated_at: new Date(s.updatedAtMs).toISOString(),
    deleted: s.deleted,
    tombstoned: s.tombstoned,
    retention: { ...s.retention },
  };
}

/** A stream's metadata document as the contract shows it. */
export function streamMetadataOf(s: StreamState): StreamMetadata {
  return { stream_id: s.streamId, metadata_revision: s.metadataRevision, metadata: s.metadata ?? {} };
}

function streamSummary(s: StreamState, nowMs: number): StreamSummary {
  return {
    stream_id: s.streamId,
    tenant_id: s.tenant.tenantId,
    event_count: s.count - s.firstReadable(nowMs),
    last_revision: s.count > 0 ? s.count - 1 : null,
    bytes: s.bytes,
    updated_at: new Date(s.updatedAtMs).toISOString(),
    deleted: s.deleted,
  };
}

function tenantUsage(t: TenantState): TenantUsage {
  return {
    tenant_id: t.tenantId,
    streams: t.liveStreams,
    events: t.events,
    bytes: t.bytes,
    appends_total: t.appendsTotal,
    reads_total: t.readsTotal,
    last_append_at: t.lastAppendAtMs === null ? null : new Date(t.lastAppendAtMs).toISOString(),
  };
}

function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > limits.readPageMax) {
    throw invalidArgument(`limit must be between 1 and ${limits.readPageMax}`, { field: "limit" });
  }
}

function encodeCursor(parts: string[]): string {
  return Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");
}

function decodeCursor(cursor: string, length: number): string[] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(parts) && parts.length === length && parts.every((p) => typeof p === "string")) {
      return parts;
    }
  } catch {
    // Falls through to the error below.
  }
  throw invalidArgument("cursor is not one this service returned", { field: "cursor" });
}

/** The first of a tenant's `count` positions in `seg` at or after `position`. */

/**
 * Planning a group of the log writer (log-writer.ts): each operation, in queue order, is checked
 * against the index plus what the earlier operations of the same group do (an idempotent repeat,
 * the expected revision, a stream that must exist), and an accepted one is given its revisions,
 * positions and created_at, written into its measured records. An operation that fails its
 * checks is refused alone (its promise rejects) and the others go on.
 *
 * Groups are planned while earlier ones are still waiting for their fdatasync (the writer's
 * pipeline, sync-pipeline.ts): a group written but not yet applied is "carried" (carry()), and the
 * next group is planned against the index plus every carried group, until each is applied
 * (settle()) or the pipeline fails (dropCarried()).
 *
 * Invariants: positions are handed out densely from the index's next position (or the last
 * carried group's), in queue order; created_at never decreases (the later of the clock and the
 * last created_at); nothing here changes the index: the writer applies a plan only after its
 * group is durable.
 */
import { dataCorrupted, EssError, streamNotFound, streamTombstoned } from "../../errors.js";
import type {
  AppendResult,
  ExpectedRevision,
  MetadataDocument,
  Retention,
  StreamInfo,
  StreamMetadata,
} from "../../contract/bodies.js";
import {
  checkExpectedMetadataRevision,
  checkExpectedRevision,
  withRetention,
  type ExpectedMetadataRevision,
} from "../../contract/stream-metadata.js";
import type { AppendInput } from "../engine.js";
import { fingerprintInto } from "./fingerprint-set.js";
import { LogIndex, type StreamMetaBody, type StreamState } from "./log-index.js";
import type { LogReader } from "./log-reader.js";
import { FLAG_BATCH_END, KIND_STREAM_META, measureRecord, type MeasuredRecord } from "./record-codec.js";
import type { SegmentStore } from "./segment-store.js";

type Outcome<T> = { resolve: (value: T) => void; reject: (error: unknown) => void };

export interface AppendOp extends Outcome<AppendResult> {
  kind: "append";
  input: AppendInput;
  records: MeasuredRecord[];
  bytes: number;
}

/** What a metadata operation asks for; its record's body is made when it is planned. */
export type MetaRequest =
  | { type: "retention"; retention: Retention }
  | { type: "delete"; expected: ExpectedRevision; tombstone: boolean }
  | { type: "metadata"; metadata: MetadataDocument; expected: ExpectedMetadataRevision }
  /** The engine's own marks (scavenge's), written as given, without the checks. */
  | { type: "mark"; body: StreamMetaBody };

export interface MetaOp extends Outcome<StreamInfo | StreamMetadata> {
  kind: "meta";
  tenantId: string;
  streamId: string;
  request: MetaRequest;
  /** What the operation answers with: the stream's info or its metadata. */
  answer: "info" | "metadata";
  bytes: number;
}

export type WriterOp = AppendOp | MetaOp;

/** What the group has done to a stream so far, before it is durable. */
interface Overlay {
  count: number;
  deleted: boolean;
  tombstoned: boolean;
  metadata: MetadataDocument | null;
  metadataRevision: number | null;
  exists: boolean;
  /**
   * The records this group appended to the stream (their fields hold event id, revision and
   * position) while they are few; null before the first and once `ids` holds them. A lone
   * append's own records array, not a copy.
   */
  appended: MeasuredRecord[] | null;
  /** The records by event id, once they are more than IDS_SCAN_MAX (see noteAppended). */
  ids: Map<string, MeasuredRecord> | null;
  /**
   * The stream's overlay in the carried group this one was made from, whose ids are not in the
   * index yet; null once that group is applied (settle() cuts the chain, so it stays short).
   */
  prior: Overlay | null;
}

/** A group being planned: the streams it touched, and the next position and created_at. */
export interface GroupPlan {
  overlays: Map<string, Overlay>;
  nextPosition: number;
  createdAt: number;
}

/** An operation of the group, checked: what to write for it, and its answer. */
export interface Planned {
  op: WriterOp;
  stream: string;
  tenant: string;
  /** LogIndex.key of the stream, made once per operation. */
  key: string;
  /** Records to write (empty for an idempotent repeat or a no-op). */
  records: MeasuredRecord[];
  result: AppendResult | null;
}

export class GroupPlanner {
  /** Each stream's latest overlay among the carried groups (written, not yet applied). */
  private readonly carried = new Map<string, Overlay>();
  private carriedGroups = 0;
  /** The next position and created_at after the last carried group. */
  private carriedNextPosition = 0;
  private carriedCreatedAt = 0;

  constructor(
    private readonly index: LogIndex,
    private readonly store: SegmentStore,
    /** Reads a stored record back for the event-id check of an append (lookupEventId). */
    private readonly reader: LogReader,
    private readonly now: () => number,
  ) {}

  /** Validates each op in order against the index, the carried groups and the group so far. */
  plan(group: WriterOp[]): { planned: Planned[]; plan: GroupPlan } {
    const planned: Planned[] = [];
    const carrying = this.carriedGroups > 0;
    const plan: GroupPlan = {
      overlays: new Map(),
      nextPosition: carrying ? this.carriedNextPosition : this.index.nextPosition,
      createdAt: Math.max(this.now(), this.index.lastCreatedAtMs, carrying ? this.carriedCreatedAt : 0),
    };
    for (const op of group) {
      try {
        planned.push(op.kind === "append" ? this.planAppend(plan, op) : this.planMeta(plan, op));
      } catch (error) {
        op.reject(error);
      }
    }
    return { planned, plan };
  }

  /**
   * A planned group was written: later groups are planned on top of it until it is applied. A
   * group refused before its bytes were written is never carried, so nothing needs undoing.
   */
  carry(plan: GroupPlan): void {
    for (const [key, o] of plan.overlays) this.carried.set(key, o);
    this.carriedGroups++;
    this.carriedNextPosition = plan.nextPosition;
    this.carriedCreatedAt = plan.createdAt;
  }

  /** A carried group was applied to the index (the oldest one: groups apply in write order). */
  settle(plan: GroupPlan): void {
    for (const [key, o] of plan.overlays) {
      // Its ids are in the index now; a later overlay need not look through it any more.
      o.prior = null;
      if (this.carried.get(key) === o) this.carried.delete(key);
    }
    this.carriedGroups--;
  }

  /** The carried groups failed (an fdatasync error): none of them will reach the index. */
  dropCarried(): void {
    this.carried.clear();
    this.carriedGroups = 0;
  }

  /**
   * What the group has done to a stream so far, made at its first use from the stream's latest
   * carried overlay, or else from the index.
   */
  private overlayFor(plan: GroupPlan, key: string): Overlay {
    let o = plan.overlays.get(key);
    if (!o) {
      const c = this.carried.get(key);
      if (c !== undefined) {
        o = {
          count: c.count,
          deleted: c.deleted,
          tombstoned: c.tombstoned,
          metadata: c.metadata,
          metadataRevision: c.metadataRevision,
          exists: c.exists,
          appended: null,
          ids: null,
          prior: c,
        };
      } else {
        const s = this.index.streamByKey(key);
        o = {
          count: s?.count ?? 0,
          deleted: s?.deleted ?? false,
          tombstoned: s?.tombstoned ?? false,
          metadata: s?.metadata ?? null,
          metadataRevision: s?.metadataRevision ?? null,
          exists: s !== undefined,
          appended: null,
          ids: null,
          prior: null,
        };
      }
      plan.overlays.set(key, o);
    }
    return o;
  }

  /** Checks an append (repeat, expected revision) and assigns its revisions and positions. */
  private planAppend(plan: GroupPlan, op: AppendOp): Planned {
    const { tenant_id: tenantId, stream_id: streamId, events, expected_revision: expected } = op.input;
    const key = LogIndex.key(tenantId, streamId);
    const o = this.overlayFor(plan, key);
    if (o.tombstoned) throw streamTombstoned(streamId);
    const repeat = this.findRepeat(key, streamId, o, op);
    if (repeat) return { op, tenant: tenantId, stream: streamId, key, records: [], result: repeat };
    // A soft-deleted stream counts as no stream for no_stream / stream_exists (reads
    // answer STREAM_NOT_FOUND); an exact revision compares with its real last revision.
    checkExpectedRevision(streamId, expected, o.count - 1, o.count > 0 && !o.deleted);
    const first = o.count;
    const createdAt = plan.createdAt;
    let nextPosition = plan.nextPosition;
    for (let i = 0; i < events.length; i++) {
      const f = op.records[i]!.fields;
      f.revision = first + i;
      f.position = nextPosition++;
      f.createdAtMs = createdAt;
      // The payload flags (FLAG_BINARY_DATA, FLAG_BINARY_METADATA) were set when it was measured.
      f.flags = (f.flags & ~FLAG_BATCH_END) | (i === events.length - 1 ? FLAG_BATCH_END : 0);
    }
    noteAppended(o, op.records);
    plan.nextPosition = nextPosition;
    o.count += events.length;
    o.exists = true;
    o.deleted = false;
    const result: AppendResult = {
      stream_id: streamId,
      first_revision: first,
      last_revision: o.count - 1,
      position: nextPosition - 1,
      count: events.length,
    };
    return { op, tenant: tenantId, stream: streamId, key, records: op.records, result };
  }

  /** Checks a metadata operation and measures its record (none for a repeated soft delete). */
  private planMeta(plan: GroupPlan, op: MetaOp): Planned {
    const key = LogIndex.key(op.tenantId, op.streamId);
    const o = this.overlayFor(plan, key);
    const body = op.request.type === "mark" ? op.request.body : metaBody(o, op.streamId, op.request);
    if (body === null)
      return { op, tenant: op.tenantId, stream: op.streamId, key, records: [], result: null };
    o.exists = true;
    plan.createdAt = Math.max(plan.createdAt, this.now());
    const m = measureRecord({
      kind: KIND_STREAM_META,
      flags: FLAG_BATCH_END,
      tenant: op.tenantId,
      stream: op.streamId,
      eventType: "",
      position: 0,
      revision: o.count,
      createdAtMs: plan.createdAt,
      eventId: "",
      metadata: "",
      data: JSON.stringify(body),
    });
    return { op, tenant: op.tenantId, stream: op.streamId, key, records: [m], result: null };
  }

  /**
   * An append whose events already sit in the stream, in the same order, is a repeat: its
   * original result comes back and nothing is written. Some but not all: WRONG_EXPECTED_REVISION.
   */
  private findRepeat(key: string, streamId: string, o: Overlay, op: AppendOp): AppendResult | null {
    if (!o.exists || op.input.event_ids_fresh === true) return null;
    const s = this.index.streamByKey(key);
    const events = op.input.events;
    let firstRevision = -1;
    let lastPosition = -1;
    let matched = 0;
    for (let i = 0; i < events.length; i++) {
      const id = events[i]!.event_id;
      const found = carriedId(o, id) ?? (s ? this.lookupEventId(s, id, op.records[i]!) : null);
      if (!found) continue;
      if (i === 0) firstRevision = found.revision;
      if (firstRevision >= 0 && found.revision === firstRevision + i) {
        matched++;
        lastPosition = found.position;
      } else {
        matched = -1;
        break;
      }
    }
    if (matched === 0) return null;
    if (matched === events.length) {
      return {
        stream_id: streamId,
        first_revision: firstRevision,
        last_revision: firstRevision + events.length - 1,
        position: lastPosition,
        count: events.length,
      };
    }
    throw new EssError(
      "WRONG_EXPECTED_REVISION",
      `some event ids of this append already sit in stream '${streamId}', but not as this same batch`,
      { stream_id: streamId, expected: String(op.input.expected_revision), actual: o.count - 1 },
    );
  }

  /**
   * Where an event id (fingerprint pair `i` of `fingerprints`) sits in stream `s`, or null. The
   * resident fingerprint set answers "not there" for almost every new id without a disk read; a
   * fingerprint it holds is looked up (both lanes) in the indexes of the segments the stream has
   * events in (newest first) and confirmed against the stored record.
   */
  private lookupEventId(
    s: StreamState,
    eventId: string,
    record: MeasuredRecord,
  ): { revision: number; position: number } | null {
    recordFingerprint(record);
    const low = record.fingerprintLow;
    const high = record.fingerprintHigh;
    // Until the set is filled after start-up, every id is looked up in the segments' indexes.
    if (this.index.fingerprintsReady && !this.index.fingerprints.has(low, high)) return null;
    let found: { revision: number; position: number } | null = null;
    const visited = new Set<number>();
    for (let r = s.runs.length - 1; r >= 0 && found === null; r--) {
      const segmentNo = s.runs[r]!.segmentNo;
      if (visited.has(segmentNo)) continue;
      visited.add(segmentNo);
      const seg = this.index.segment(segmentNo)!;
      seg.findFingerprint(low, high, (position) => {
        const slot = seg.slotOf(position);
        if (slot < 0 || seg.streams[slot] !== s) return false;
        const buf = this.reader.readChecked(segmentNo, seg.offsetOf(position));
        // The revision of a repeat comes from the stored record: a damaged one cannot answer.
        if (buf === null) throw dataCorrupted(s.streamId, this.index.revisionAt(s, position), position);
        const o = this.store.recordOffset;
        if (buf.toString("latin1", o + 48, o + 84) !== eventId) return false;
        found = { revision: buf.readDoubleLE(o + 24), position };
        return true;
      });
    }
    if (found === null && this.index.fingerprintsReady) this.index.idCheckFalseHits++;
    return found;
  }
}

/** Where an id sits if this group or a carried one appended it to the stream, or null. */
function carriedId(o: Overlay, id: string): { revision: number; position: number } | null {
  for (let at: Overlay | null = o; at !== null; at = at.prior) {
    const found = appendedId(at, id);
    if (found !== null) return found.fields;
  }
  return null;
}

/** Up to this many records an overlay's ids are searched one by one, without a map. */
const IDS_SCAN_MAX = 16;

/** The record `o`'s group appended to its stream with event id `id`, or null. */
function appendedId(o: Overlay, id: string): MeasuredRecord | null {
  if (o.ids !== null) return o.ids.get(id) ?? null;
  const list = o.appended;
  if (list === null) return null;
  for (let i = 0; i < list.length; i++) if (list[i]!.fields.eventId === id) return list[i]!;
  return null;
}

/**
 * Adds an append's records to what `o`'s group appended to the stream: to its short list, or,
 * once that would pass IDS_SCAN_MAX, to its map (the list is then dropped, so a stream with many
 * appends in one group is not copied again at each).
 */
function noteAppended(o: Overlay, records: MeasuredRecord[]): void {
  let added = records;
  if (o.ids === null) {
    // The first append's records are kept as they are; a later one copies them before adding.
    const list = o.appended === null ? records : o.appended.concat(records);
    if (list.length <= IDS_SCAN_MAX) {
      o.appended = list;
      return;
    }
    o.ids = new Map();
    o.appended = null;
    added = list;
  }
  for (const r of added) o.ids.set(r.fields.eventId, r);
}

/**
 * The record body of a checked metadata operation, with what it does to the stream applied to
 * `o`; null when there is nothing to write (a second soft delete).
 */
function metaBody(
  o: Overlay,
  streamId: string,
  r: Exclude<MetaRequest, { type: "mark" }>,
): StreamMetaBody | null {
  if (o.tombstoned) throw streamTombstoned(streamId);
  const live = o.count > 0 && !o.deleted;
  switch (r.type) {
    case "delete":
      checkExpectedRevision(streamId, r.expected, o.count - 1, live);
      if (r.tombstone) {
        o.tombstoned = true;
        o.deleted = true;
        return { op: "tombstone", before: o.count };
      }
      if (o.count === 0) throw streamNotFound(streamId);
      if (o.deleted) return null;
      o.deleted = true;
      return { op: "delete", before: o.count };
    case "retention":
      if (!live) throw streamNotFound(streamId);
      return newMetadata(o, withRetention(o.metadata ?? {}, r.retention));
    case "metadata":
      checkExpectedMetadataRevision(streamId, r.expected, o.metadataRevision);
      return newMetadata(o, r.metadata);
  }
}

function newMetadata(o: Overlay, metadata: MetadataDocument): StreamMetaBody {
  const revision = (o.metadataRevision ?? -1) + 1;
  o.metadata = metadata;
  o.metadataRevision = revision;
  return { op: "metadata", revision, metadata };
}

/**
 * Computes an event record's event-id fingerprint once (kept on the record): the id check
 * (findRepeat) and the index (applyGroup) both need it.
 */
export function recordFingerprint(r: MeasuredRecord): void {
  if (r.fingerprintLow === 0) {
    const f = r.fields;
    fingerprintInto(f.tenant, f.stream, f.eventId, r);
  }
}

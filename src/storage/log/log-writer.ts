/**
 * The log engine's write side: appends and stream-metadata records (retention, delete, the marks
 * of scavenge) wait in one bounded queue; one loop takes what waits as a group, plans it against
 * the index, writes it with one write and one fdatasync, and only then applies it to the index
 * and answers (docs/log-engine.md, "Writing: the group-commit writer").
 *
 * Invariants:
 * - an append resolves only after its records were written and fdatasync'd; the index (and so
 *   every reader) sees a group only after that, all of it at once;
 * - this is the only code that assigns revisions and positions, one group at a time, in queue
 *   order, validating each operation against the index plus the earlier ones of its group;
 * - a group is one write and one fdatasync, and never spans two segments: a group that does not
 *   fit the active segment first rolls to a new one;
 * - after an fdatasync error no more writes are taken (the kernel may have dropped the dirty
 *   pages, so retrying could acknowledge lost data): `writable` stays false until the store is
 *   opened again and recovers from what is on disk.
 */
import { EssError, payloadTooLarge, unavailable } from "../../errors.js";
import { limits } from "../../limits.js";
import type { Logger } from "../../logger.js";
import type { AppendResult, Retention, StreamInfo, StreamMetadata } from "../../contract/bodies.js";
import { requireExpectedRevision } from "../../contract/rules.js";
import { requireExpectedMetadataRevision, requireMetadataDocument } from "../../contract/stream-metadata.js";
import type {
  AppendInput,
  AppendListener,
  AppendNotice,
  CommitObserver,
  DeleteStreamOptions,
  SetMetadataInput,
} from "../engine.js";
import { describeIoError } from "../io-error.js";
import { FsyncPlacement } from "./fsync-placement.js";
import type { IndexFileWriter } from "./index-file-writer.js";
import { rejected, type LogContext } from "./log-context.js";
import type { LogIndex, StreamMetaBody } from "./log-index.js";
import { streamMetadataOf, type LogReader } from "./log-reader.js";
import {
  encodeRecord,
  FLAG_BATCH_END,
  KIND_EVENT,
  measureRecord,
  partText,
  payloadFlags,
  SEGMENT_HEADER_BYTES,
  type MeasuredRecord,
} from "./record-codec.js";
import type { MemorySegmentIndex } from "./segment-index.js";
import type { Segment, SegmentStore } from "./segment-store.js";
import { checkAppendInput, checkId, checkRetention, payloadContent } from "../validate-input.js";
import { fingerprintsOf, GroupPlanner, type MetaRequest, type Planned, type WriterOp } from "./group-plan.js";
import { groupTake } from "./writer-groups.js";

/** Queue bytes counted for a metadata record (its JSON body is small). */
const META_OP_BYTES = 512;

export class LogWriter {
  /** The index of the active segment (the sealed ones are in index files). */
  activeIndex!: MemorySegmentIndex;
  /** false after a fatal disk error: every later write is refused (see the invariants). */
  writable = true;
  readonly stats = { batches: 0, fsyncs: 0, events: 0 };
  private readonly listeners = new Set<AppendListener>();
  private queue: WriterOp[] = [];
  /** Bytes of the records waiting in `queue` (bounded by limits.writerQueueBytesMax). */
  private queuedBytes = 0;
  private writing = false;
  private drainWaiters: (() => void)[] = [];
  private readonly fsyncPlace = new FsyncPlacement(limits.inlineFsyncMicrosMax);
  private readonly groupBytesMax: number;
  // The context's members the append path uses, held here to save a lookup each.
  private readonly index: LogIndex;
  private readonly store: SegmentStore;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly observer: CommitObserver | null;

  private readonly planner: GroupPlanner;

  constructor(
    private readonly ctx: LogContext,
    /** Answers a metadata operation with the stream's info (LogReader.info). */
    private readonly reader: LogReader,
    private readonly indexFiles: IndexFileWriter,
    private readonly segmentBytesMax: number,
  ) {
    this.index = ctx.index;
    this.store = ctx.store;
    this.log = ctx.log;
    this.now = ctx.now;
    this.observer = ctx.commitObserver;
    this.planner = new GroupPlanner(ctx.index, ctx.store, reader, ctx.now);
    this.groupBytesMax = Math.min(limits.writerGroupBytesMax, segmentBytesMax - SEGMENT_HEADER_BYTES);
  }

  get queueDepth(): number {
    return this.queue.length;
  }

  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves once the writer loop has stopped (close() sets ctx.closing first). */
  async drained(): Promise<void> {
    while (this.writing) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  // ---------------------------------------------------------------- the queue

  append(input: AppendInput): Promise<AppendResult> {
    try {
      checkAppendInput(input);
    } catch (error) {
      return rejected(error);
    }
    const records: MeasuredRecord[] = [];
    let bytes = 0;
    for (const e of input.events) {
      const data = payloadContent(e.data);
      const metadata = payloadContent(e.metadata);
      const m = measureRecord({
        kind: KIND_EVENT,
        flags: payloadFlags(data, metadata),
        tenant: input.tenant_id,
        stream: input.stream_id,
        eventType: e.event_type,
        position: 0,
        revision: 0,
        createdAtMs: 0,
        eventId: e.event_id,
        metadata,
        data,
      });
      if (m.totalBytes > limits.recordBytesMax) {
        return Promise.reject(payloadTooLarge("an event is too large to store", { bytes: m.totalBytes }));
      }
      records.push(m);
      bytes += m.totalBytes;
    }
    if (bytes > this.groupBytesMax) {
      return Promise.reject(payloadTooLarge("the append is too large to store as one batch", { bytes }));
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.enqueue({ kind: "append", input, records, bytes, resolve, reject });
    });
  }

  setRetention(tenantId: string, streamId: string, retention: Retention): Promise<StreamInfo> {
    try {
      checkId("tenant_id", tenantId);
      checkId("stream_id", streamId);
      checkRetention(retention);
    } catch (error) {
      return rejected(error);
    }
    const retentionOnly = {
      max_age_seconds: retention.max_age_seconds,
      max_count: retention.max_count,
      truncate_before: retention.truncate_before,
    };
    // The stream's document is rewritten with it: count its current size in the queue's bytes.
    const current = this.index.getStream(tenantId, streamId)?.metadata;
    const bytes = current ? Buffer.byteLength(JSON.stringify(current), "utf8") : 0;
    return this.queueMeta(tenantId, streamId, { type: "retention", retention: retentionOnly }, "info", bytes);
  }

  deleteStream(tenantId: string, streamId: string, options?: DeleteStreamOptions): Promise<StreamInfo> {
    try {
      checkId("tenant_id", tenantId);
      checkId("stream_id", streamId);
      requireExpectedRevision(options?.expected_revision ?? "any");
    } catch (error) {
      return rejected(error);
    }
    const request = {
      type: "delete",
      expected: options?.expected_revision ?? "any",
      tombstone: options?.tombstone === true,
    } as const;
    return this.queueMeta(tenantId, streamId, request, "info", 0);
  }

  setMetadata(input: SetMetadataInput): Promise<StreamMetadata> {
    let bytes: number;
    try {
      checkId("tenant_id", input.tenant_id);
      checkId("stream_id", input.stream_id);
      const metadata = requireMetadataDocument(input.metadata);
      requireExpectedMetadataRevision(input.expected_metadata_revision);
      bytes = Buffer.byteLength(JSON.stringify(metadata), "utf8");
    } catch (error) {
      return rejected(error);
    }
    const request = {
      type: "metadata",
      metadata: input.metadata,
      expected: input.expected_metadata_revision,
    } as const;
    return this.queueMeta(input.tenant_id, input.stream_id, request, "metadata", bytes);
  }

  /** Queues one of the engine's own metadata records (scavenge's marks), without the checks. */
  writeMeta(tenantId: string, streamId: string, body: StreamMetaBody): Promise<StreamInfo> {
    return this.queueMeta(tenantId, streamId, { type: "mark", body }, "info", 0);
  }

  private queueMeta(
    tenantId: string,
    streamId: string,
    request: MetaRequest,
    answer: "info",
    documentBytes: number,
  ): Promise<StreamInfo>;
  private queueMeta(
    tenantId: string,
    streamId: string,
    request: MetaRequest,
    answer: "metadata",
    documentBytes: number,
  ): Promise<StreamMetadata>;
  private queueMeta(
    tenantId: string,
    streamId: string,
    request: MetaRequest,
    answer: "info" | "metadata",
    documentBytes: number,
  ): Promise<StreamInfo | StreamMetadata> {
    const bytes = META_OP_BYTES + documentBytes;
    return new Promise<StreamInfo | StreamMetadata>((resolve, reject) => {
      this.enqueue({ kind: "meta", tenantId, streamId, request, answer, bytes, resolve, reject });
    });
  }

  private enqueue(op: WriterOp): void {
    if (this.ctx.closing) return op.reject(unavailable("the storage engine is shutting down"));
    if (!this.writable)
      return op.reject(unavailable("storage is not writable after a disk error; restart to recover"));
    if (
      this.queue.length >= limits.writerQueueAppendsMax ||
      this.queuedBytes + op.bytes > limits.writerQueueBytesMax
    ) {
      return op.reject(unavailable("too many appends are waiting for the disk; retry later"));
    }
    this.queuedBytes += op.bytes;
    this.queue.push(op);
    if (!this.writing) void this.runWriter();
  }

  private async runWriter(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0 && this.writable) {
        // Requests arrive in separate socket callbacks of one event-loop turn; waiting for the
        // turn's end lets them all join this group. Without it, an fdatasync run on the loop
        // would commit each request alone, one sync per append under load.
        await endOfTurn();
        if (this.queue.length === 0 || !this.writable) break;
        const take = groupTake(this.queue, this.groupBytesMax);
        const group = this.queue.slice(0, take.count);
        this.queue = this.queue.slice(take.count);
        this.queuedBytes -= take.bytes;
        try {
          await this.commitGroup(group);
        } catch (error) {
          // A bug or an unexpected I/O failure: nothing of the group may stay unanswered, and
          // with the state unknown the engine stops taking writes.
          for (const op of group) op.reject(unavailable("internal storage error; restart to recover"));
          throw error;
        }
      }
    } catch (error) {
      this.log.error("writer failed unexpectedly", { error: String(error) });
      this.writable = false;
    } finally {
      this.writing = false;
      if (!this.writable) {
        const failed = this.queue;
        this.queue = [];
        this.queuedBytes = 0;
        for (const op of failed)
          op.reject(unavailable("storage is not writable after a disk error; restart to recover"));
      }
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  // ---------------------------------------------------------------- writing a group

  private async commitGroup(group: WriterOp[]): Promise<void> {
    const planned = this.planner.plan(group);
    let total = 0;
    for (const p of planned) for (const r of p.records) total += r.totalBytes;
    if (total === 0) {
      this.applyGroup(planned, this.store.active!, 0);
      return;
    }
    let segment = this.store.active!;
    if (segment.size + total > this.segmentBytesMax) {
      const next = this.rollOrFail(segment, planned);
      if (next === null) return;
      segment = next;
    }
    const buf = Buffer.allocUnsafe(total);
    let at = 0;
    for (const p of planned) for (const r of p.records) at = encodeRecord(buf, at, r);
    const offset = segment.size;
    this.store.reserve(segment, offset + total, this.segmentBytesMax);
    try {
      await this.store.write(segment, buf, total, offset);
    } catch (error) {
      this.failWrite(segment, offset, planned, error);
      return;
    }
    const syncStarted = this.observer === null ? 0 : performance.now();
    try {
      await this.syncGroup(segment);
      this.stats.fsyncs++;
    } catch (error) {
      this.failSync(segment, planned, error);
      return;
    }
    this.observer?.committed("log", planned.length, (performance.now() - syncStarted) / 1000);
    segment.size = offset + total;
    this.store.noteWritten(segment, offset, buf, total);
    this.stats.batches++;
    this.applyGroup(planned, segment, offset);
  }

  /** Makes a written group durable, on the event loop or the thread pool (see FsyncPlacement). */
  private syncGroup(segment: Segment): Promise<void> {
    if (!this.fsyncPlace.inline()) return this.store.fdatasync(segment);
    const started = performance.now();
    this.store.fdatasyncNow(segment);
    this.fsyncPlace.timed((performance.now() - started) * 1000);
    return Promise.resolve();
  }

  private failWrite(segment: Segment, offset: number, planned: Planned[], error: unknown): void {
    const message = `the disk refused the write (${describeIoError(error)}); nothing of this append was stored`;
    this.log.error("segment write failed; the partial write is cut", {
      segment: segment.name,
      error: describeIoError(error),
    });
    try {
      this.store.truncateTo(segment, offset);
    } catch (cutError) {
      this.writable = false;
      this.log.error("could not cut a failed write: storage stops taking writes", {
        error: describeIoError(cutError),
      });
    }
    for (const p of planned) p.op.reject(new EssError("UNAVAILABLE", message));
  }

  private failSync(segment: Segment, planned: Planned[], error: unknown): void {
    this.writable = false;
    this.log.error("fdatasync failed: storage stops taking writes until it is reopened", {
      segment: segment.name,
      error: describeIoError(error),
    });
    const e = unavailable(
      `the disk failed to make the append durable (${describeIoError(error)}); storage is read-only until restart`,
    );
    for (const p of planned) p.op.reject(e);
  }

  /** The new active segment, or null when it could not be made (the group is refused). */
  private rollOrFail(segment: Segment, planned: Planned[]): Segment | null {
    try {
      return this.roll(segment);
    } catch (error) {
      segment.sealed = false;
      const fatal = (error as { segmentPhase?: string }).segmentPhase === "fsync";
      if (fatal) this.writable = false;
      this.log.error("could not start a new segment", { error: describeIoError(error), fatal });
      const e = unavailable(
        `the disk refused a new segment (${describeIoError(error)}); nothing of this append was stored`,
      );
      for (const p of planned) p.op.reject(e);
      return null;
    }
  }

  private roll(current: Segment): Segment {
    current.sealed = true;
    try {
      this.store.trimRoom(current);
    } catch (error) {
      // The cut may have happened without being durable: like a failed fsync, stop writing.
      throw Object.assign(error as Error, { segmentPhase: "fsync" });
    }
    const next = this.store.createSegment(current.segmentNo + 1, this.index.nextPosition);
    const sealed = this.activeIndex;
    this.activeIndex = this.index.startSegment(next.segmentNo, next.generation, next.basePosition);
    this.indexFiles.persistSealed(current, sealed);
    return next;
  }

  // ---------------------------------------------------------------- after the write

  /** Puts a durable group into the index, answers its operations, then tells the listeners. */
  private applyGroup(planned: Planned[], segment: Segment, startOffset: number): void {
    let offset = startOffset;
    const notices: AppendNotice[] = [];
    for (const p of planned) {
      if (p.op.kind === "append") {
        const s = this.index.getOrCreateStream(
          p.tenant,
          p.stream,
          p.records[0]?.fields.createdAtMs ?? this.now(),
        );
        const fingerprints = fingerprintsOf(p.op);
        for (let i = 0; i < p.records.length; i++) {
          const r = p.records[i]!;
          const f = r.fields;
          this.index.addEvent(
            this.activeIndex,
            s,
            f.revision,
            f.position,
            f.createdAtMs,
            offset,
            r.totalBytes,
            fingerprints[2 * i]!,
            fingerprints[2 * i + 1]!,
            (f.flags & FLAG_BATCH_END) !== 0,
          );
          offset += r.totalBytes;
          segment.records++;
        }
        if (p.records.length > 0) {
          this.stats.events += p.records.length;
          const result = p.result!;
          notices.push({
            tenant_id: p.tenant,
            stream_id: p.stream,
            first_revision: result.first_revision,
            last_revision: result.last_revision,
            first_position: result.position - result.count + 1,
            last_position: result.position,
          });
        }
        p.op.resolve(p.result!);
      } else {
        const s = this.index.getOrCreateStream(
          p.tenant,
          p.stream,
          p.records[0]?.fields.createdAtMs ?? this.now(),
        );
        for (const r of p.records) {
          const f = r.fields;
          this.index.addMeta(this.activeIndex, s, f.revision, f.createdAtMs, partText(f.data));
          offset += r.totalBytes;
        }
        p.op.resolve(p.op.answer === "metadata" ? streamMetadataOf(s) : this.reader.info(s));
      }
    }
    this.tell(notices);
  }

  private tell(notices: AppendNotice[]): void {
    for (const n of notices) {
      for (const listener of this.listeners) {
        try {
          listener(n);
        } catch (error) {
          this.log.error("an append listener threw", { error: String(error) });
        }
      }
    }
  }
}

/** Resolves after the I/O callbacks already due in this event-loop turn have run. */
function endOfTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The log engine's write side: appends and stream-metadata records (retention, delete, the marks
 * of scavenge) wait in one bounded queue; one loop takes what waits as a group, plans it against
 * the index, writes it with one write, and hands it to the fdatasync pipeline (sync-pipeline.ts),
 * which applies it to the index (applyGroup, here) and answers once an fdatasync begun after that
 * write returns (docs/log-engine.md, "Writing: the group-commit writer").
 *
 * While an fdatasync runs on the thread pool, the loop goes on taking groups, planning them
 * against the index plus the groups still in flight (GroupPlanner.carry) and writing them behind
 * (SyncPipeline.writtenEnd); the next fdatasync covers every group written meanwhile. With the
 * fdatasync on the event loop nothing can run beside it, and each group is written and synced in
 * turn.
 *
 * Invariants (where each is enforced):
 * - an append resolves only after its records, and every byte before them, were written and
 *   fdatasync'd; the index (and so every reader) sees a group only after that, all of it at
 *   once, and groups reach the index in write order: SyncPipeline.settle, the only caller of
 *   applyGroup;
 * - this is the only code that assigns revisions and positions, one group at a time, in queue
 *   order, validating each operation against the index, the groups in flight and the earlier
 *   ones of its group: commitGroup, one at a time from runWriter, through GroupPlanner.plan;
 * - one fdatasync in flight at a time, begun only after the previous one succeeded: each
 *   success covers its own groups, and no group is answered on a later sync's success after
 *   an earlier one failed (Linux reports a writeback error to one fdatasync only): SyncPipeline;
 * - a group never spans two segments: a group that does not fit the active segment waits
 *   until nothing is in flight, then rolls to a new one (commitGroup);
 * - after an fdatasync error no more writes are taken (the kernel may have dropped the dirty
 *   pages, so retrying could acknowledge lost data), and every group written behind the failed
 *   sync fails with it (SyncPipeline.failSync): `writable` stays false until the store is opened
 *   again and recovers from what is on disk; enqueue and commitGroup check it.
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
  DeleteStreamOptions,
  SetMetadataInput,
} from "../engine.js";
import { describeIoError } from "../io-error.js";
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
import {
  GroupPlanner,
  recordFingerprint,
  type MetaRequest,
  type Planned,
  type WriterOp,
} from "./group-plan.js";
import { SyncPipeline } from "./sync-pipeline.js";
import { groupTake } from "./writer-groups.js";

/** Queue bytes counted for a metadata record (its JSON body is small). */
const META_OP_BYTES = 512;

const NO_BYTES: Buffer = Buffer.alloc(0);

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
  /** Wakes the writer loop while it waits for an operation or the fdatasync in flight. */
  private wake: (() => void) | null = null;
  private readonly groupBytesMax: number;
  // The context's members the append path uses, held here to save a lookup each.
  private readonly index: LogIndex;
  private readonly store: SegmentStore;
  private readonly log: Logger;
  private readonly now: () => number;

  private readonly planner: GroupPlanner;
  /** The written groups until they are durable, applied and answered. */
  private readonly pipeline: SyncPipeline;

  constructor(
    private readonly ctx: LogContext,
    /** Answers a metadata operation with the stream's info (LogReader.info). */
    private readonly reader: LogReader,
    private readonly indexFiles: IndexFileWriter,
    private readonly segmentBytesMax: number,
    inlineFsyncMicrosMax: number,
  ) {
    this.index = ctx.index;
    this.store = ctx.store;
    this.log = ctx.log;
    this.now = ctx.now;
    this.planner = new GroupPlanner(ctx.index, ctx.store, reader, ctx.now);
    this.pipeline = new SyncPipeline(
      ctx.store,
      this.planner,
      ctx.log,
      ctx.commitObserver,
      this.stats,
      {
        apply: (g) => this.applyGroup(g.planned, g.segment, g.offset),
        stop: () => {
          this.writable = false;
        },
        wake: () => this.poke(),
      },
      inlineFsyncMicrosMax,
    );
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
    else this.poke();
  }

  /** Wakes the writer loop if it waits (a new operation, a finished fdatasync). */
  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Resolves at the next poke(). */
  private nextPoke(): Promise<void> {
    return new Promise<void>((resolve) => (this.wake = resolve));
  }

  private async runWriter(): Promise<void> {
    this.writing = true;
    try {
      for (;;) {
        if (this.queue.length > 0 && this.writable) {
          // Requests arrive in separate socket callbacks of one event-loop turn; waiting for the
          // turn's end lets them all join this group. Without it, an fdatasync run on the loop
          // would commit each request alone, one sync per append under load.
          await endOfTurn();
          if (this.queue.length === 0 || !this.writable) continue;
          await this.takeGroup();
          continue;
        }
        // The loop lives while an fdatasync is in flight: what arrives meanwhile is written
        // behind it, and close() waits for it through drained().
        if (this.pipeline.idle) break;
        await this.nextPoke();
      }
    } catch (error) {
      this.log.error("writer failed unexpectedly", { error: String(error) });
      this.writable = false;
      while (!this.pipeline.idle) await this.nextPoke();
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

  /** Takes what waits in the queue (up to a group's bytes) and commits it. */
  private async takeGroup(): Promise<void> {
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

  // ---------------------------------------------------------------- writing a group

  /** Plans a group, writes it behind the groups in flight and hands it to the fdatasyncs. */
  private async commitGroup(group: WriterOp[]): Promise<void> {
    const { planned, plan } = this.planner.plan(group);
    let total = 0;
    for (const p of planned) for (const r of p.records) total += r.totalBytes;
    let segment = this.store.active!;
    if (total > 0 && this.pipeline.writtenEnd(segment) + total > this.segmentBytesMax) {
      // Sealing cuts the file at its durable end and writes the segment's index from the
      // applied groups: wait until nothing is in flight. (The plan stays right: the groups it
      // was made on are now in the index, or they failed and the engine takes no more writes.)
      while (!this.pipeline.idle) await this.nextPoke();
      if (!this.writable) return this.refuseBehind(planned);
      const next = await this.rollOrFail(segment, planned);
      if (next === null) return;
      segment = next;
    }
    const offset = this.pipeline.writtenEnd(segment);
    let buf: Buffer = NO_BYTES;
    if (total > 0) {
      buf = this.pipeline.groupBuffer(total);
      let at = 0;
      for (const p of planned) for (const r of p.records) at = encodeRecord(buf, at, r);
      this.store.reserve(segment, offset + total, this.segmentBytesMax);
      try {
        await this.store.write(segment, buf, total, offset);
      } catch (error) {
        this.failWrite(segment, offset, planned, error);
        return;
      }
    }
    // An fdatasync that failed while this group was being written leaves it behind a gap.
    if (!this.writable) return this.refuseBehind(planned);
    this.pipeline.enlist({ planned, plan, segment, offset, buf, bytes: total });
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
      // The cut's own fdatasync may have taken a writeback error meant for the groups in
      // flight: they fail with it.
      this.pipeline.failAfterCut(
        unavailable(
          `the disk failed while cutting a failed write (${describeIoError(cutError)}); storage is read-only until restart`,
        ),
      );
    }
    for (const p of planned) p.op.reject(new EssError("UNAVAILABLE", message));
  }

  /** A group planned or written after a fatal failure: refused with that failure. */
  private refuseBehind(planned: Planned[]): void {
    const e =
      this.pipeline.failure ?? unavailable("storage is not writable after a disk error; restart to recover");
    for (const p of planned) p.op.reject(e);
  }

  /** The new active segment, or null when it could not be made (the group is refused). */
  private async rollOrFail(segment: Segment, planned: Planned[]): Promise<Segment | null> {
    try {
      return await this.roll(segment);
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

  private async roll(current: Segment): Promise<Segment> {
    current.sealed = true;
    try {
      await this.store.trimRoom(current);
    } catch (error) {
      // The cut may have happened without being durable: like a failed fsync, stop writing.
      throw Object.assign(error as Error, { segmentPhase: "fsync" });
    }
    const next = this.store.createSegment(current.segmentNo + 1, this.index.nextPosition);
    const sealed = this.activeIndex;
    // Sized like the segment sealed: growing its tables step by step (the fingerprint table
    // rehashed at each doubling) cost ~3% of an append's CPU (BENCHMARKS.md, issue 30).
    this.activeIndex = this.index.startSegment(
      next.segmentNo,
      next.generation,
      next.basePosition,
      sealed.span(),
    );
    this.indexFiles.persistSealed(current, sealed);
    return next;
  }

  // ---------------------------------------------------------------- after the write

  /**
   * Puts a durable group into the index, answers its operations, then tells the listeners
   * (called by SyncPipeline.settle only, in write order).
   */
  private applyGroup(planned: Planned[], segment: Segment, startOffset: number): void {
    let offset = startOffset;
    // Notices are made only for listeners to tell.
    const notices: AppendNotice[] | null = this.listeners.size > 0 ? [] : null;
    for (const p of planned) {
      if (p.op.kind === "append") {
        const s = this.index.getOrCreateStream(
          p.tenant,
          p.stream,
          p.records[0]?.fields.createdAtMs ?? this.now(),
          p.key,
        );
        for (let i = 0; i < p.records.length; i++) {
          const r = p.records[i]!;
          const f = r.fields;
          recordFingerprint(r);
          this.index.addEvent(
            this.activeIndex,
            s,
            f.revision,
            f.position,
            f.createdAtMs,
            offset,
            r.totalBytes,
            r.fingerprintLow,
            r.fingerprintHigh,
            (f.flags & FLAG_BATCH_END) !== 0,
          );
          offset += r.totalBytes;
          segment.records++;
        }
        if (p.records.length > 0) {
          this.stats.events += p.records.length;
          const result = p.result!;
          notices?.push({
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
          p.key,
        );
        for (const r of p.records) {
          const f = r.fields;
          this.index.addMeta(this.activeIndex, s, f.revision, f.createdAtMs, partText(f.data));
          offset += r.totalBytes;
        }
        p.op.resolve(p.op.answer === "metadata" ? streamMetadataOf(s) : this.reader.info(s));
      }
    }
    if (notices !== null) this.tell(notices);
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

/**
 * The log writer's fdatasync pipeline (docs/log-engine.md, "The pipeline"): the groups the
 * writer (log-writer.ts) has written wait here until an fdatasync begun after their write
 * returns; then, in write order, they are applied to the index and answered (settle).
 *
 * While an fdatasync runs on the thread pool the writer goes on writing groups behind it
 * (`unsynced`); the next fdatasync starts when the one in flight returns and covers all of them.
 * With the fdatasync on the event loop nothing runs beside it: each group is synced and settled
 * in turn.
 *
 * Invariants kept here:
 * - a group is settled (in the index, answered) only after an fdatasync begun after its write
 *   succeeded, and groups settle in write order: settle() is reached only from a successful
 *   sync (syncOnLoop, synced) or, for a group with nothing to write, right behind the groups it
 *   rests on (enlist);
 * - one fdatasync in flight at a time (`syncing`), the next begun only in synced(), after the
 *   previous one succeeded: no group is answered on a later sync's success after an earlier one
 *   failed (Linux reports a writeback error to one fdatasync only);
 * - a failed fdatasync fails its groups and every group written behind it (failSync), and the
 *   writer is stopped (`stop`): it takes no more writes until the store is opened again and
 *   recovers from what is on disk. `failure` stays set, so a sync still in flight and a group
 *   still being written fail with it.
 */
import { EssError, unavailable } from "../../errors.js";
import type { Logger } from "../../logger.js";
import type { CommitObserver } from "../engine.js";
import { describeIoError } from "../io-error.js";
import { FsyncPlacement } from "./fsync-placement.js";
import type { GroupPlan, GroupPlanner, Planned } from "./group-plan.js";
import type { Segment, SegmentStore } from "./segment-store.js";

/** A group written to the active segment (or with nothing to write), waiting to be durable. */
export interface WrittenGroup {
  planned: Planned[];
  plan: GroupPlan;
  segment: Segment;
  offset: number;
  /** The encoded records, copied into the block cache once durable (SegmentStore.noteWritten). */
  buf: Buffer;
  bytes: number;
}

/** What the pipeline needs of the writer that owns it. */
export interface SyncPipelineHost {
  /** Puts a durable group into the index and answers it (LogWriter.applyGroup). */
  apply(g: WrittenGroup): void;
  /** A failed fdatasync: the writer takes no more writes (LogWriter.writable = false). */
  stop(): void;
  /** An fdatasync on the thread pool returned: wakes the writer loop if it waits for it. */
  wake(): void;
}

/** Smallest group buffer made: a group of single small appends fits one and reuses it. */
const GROUP_BUFFER_BYTES_MIN = 64 * 1024;
/** Group buffers kept for reuse (one per group in flight in the pipeline is enough). */
const SPARE_BUFFERS_MAX = 4;

export class SyncPipeline {
  /** Groups written since the fdatasync in flight began: the next one covers them. */
  private unsynced: WrittenGroup[] = [];
  /** The groups the fdatasync in flight covers; null while none is in flight. */
  private syncing: WrittenGroup[] | null = null;
  /** Set by a failed fdatasync (or a failed cut, which syncs too): every group in flight fails. */
  private syncFailure: EssError | null = null;
  private readonly fsyncPlace: FsyncPlacement;
  /**
   * Group buffers of settled groups, for the next ones: a new buffer per group (an ArrayBuffer
   * each, tens of KiB) cost allocation and garbage collection on every group.
   */
  private readonly spareBuffers: Buffer[] = [];

  constructor(
    private readonly store: SegmentStore,
    private readonly planner: GroupPlanner,
    private readonly log: Logger,
    private readonly observer: CommitObserver | null,
    /** The writer's counters: `fsyncs` and `batches` are counted here. */
    private readonly stats: { batches: number; fsyncs: number },
    private readonly host: SyncPipelineHost,
    inlineFsyncMicrosMax: number,
  ) {
    this.fsyncPlace = new FsyncPlacement(inlineFsyncMicrosMax);
  }

  /** No fdatasync in flight (a segment roll and the writer's exit wait for this). */
  get idle(): boolean {
    return this.syncing === null;
  }

  /** The error of a failed fdatasync (or cut), which every later group fails with; else null. */
  get failure(): EssError | null {
    return this.syncFailure;
  }

  /** A buffer of at least `bytes` for a group's records: a spare one, or a new one. */
  groupBuffer(bytes: number): Buffer {
    const spare = this.spareBuffers.pop();
    if (spare !== undefined && spare.length >= bytes) return spare;
    return Buffer.allocUnsafeSlow(Math.max(bytes, GROUP_BUFFER_BYTES_MIN));
  }

  /** Where the next group goes in the active segment: after its durable end and the groups in flight. */
  writtenEnd(segment: Segment): number {
    const last = this.unsynced.at(-1) ?? this.syncing?.at(-1);
    return last === undefined || last.segment !== segment ? segment.size : last.offset + last.bytes;
  }

  /**
   * Takes a written group: the planner carries its plan until it settles, and it is queued for
   * the next fdatasync (starting one unless one is in flight).
   */
  enlist(g: WrittenGroup): void {
    this.planner.carry(g.plan);
    if (g.bytes === 0) {
      // Nothing to write (repeats, no-ops), but its answers may rest on groups in flight: it is
      // answered right after them, or at once when none is.
      const ahead = this.unsynced.length > 0 ? this.unsynced : this.syncing;
      if (ahead === null) return this.settle([g], 0);
      ahead.push(g);
      return;
    }
    this.unsynced.push(g);
    if (this.syncing === null) this.startSync();
  }

  /**
   * A failed write whose cut failed too: the cut's own fdatasync may have taken a writeback
   * error meant for the groups in flight. They fail too, when their sync returns (syncOnPool),
   * or now if not yet synced. The writer has stopped itself.
   */
  failAfterCut(e: EssError): void {
    this.syncFailure = e;
    this.failUnsynced(e);
  }

  /** Starts the fdatasync of the groups written since the last one, on the loop or the pool. */
  private startSync(): void {
    const batch = this.unsynced;
    this.unsynced = [];
    if (this.fsyncPlace.inline()) this.syncOnLoop(batch);
    else this.syncOnPool(batch);
  }

  /** An fdatasync on the event loop: nothing else runs meanwhile, so nothing is written behind. */
  private syncOnLoop(batch: WrittenGroup[]): void {
    const segment = batch[0]!.segment;
    const started = performance.now();
    try {
      this.store.fdatasyncNow(segment);
    } catch (error) {
      this.failSync(segment, batch, error);
      return;
    }
    this.fsyncPlace.timed((performance.now() - started) * 1000);
    this.stats.fsyncs++;
    this.settle(batch, started);
  }

  /** An fdatasync on the thread pool: the writer writes the next groups meanwhile. */
  private syncOnPool(batch: WrittenGroup[]): void {
    const segment = batch[0]!.segment;
    const started = performance.now();
    this.syncing = batch;
    const done = (error: unknown): void => {
      this.syncing = null;
      // A cut of a failed write synced the same file meanwhile and failed: the writeback
      // error it saw may have been this sync's (Linux reports one to one caller only).
      const failure = error ?? this.syncFailure;
      if (failure !== null) this.failSync(segment, batch, failure);
      else this.synced(batch, started);
      this.host.wake();
    };
    let sync: Promise<void>;
    try {
      sync = this.store.fdatasync(segment);
    } catch (error) {
      // Thrown at the call (not reported by it): still answered through done(), which clears
      // `syncing`, so the writer waiting for it is not left hanging.
      sync = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    sync.then(
      () => done(null),
      (error: unknown) => done(error ?? new Error("fdatasync failed")),
    );
  }

  /** The fdatasync of `batch` succeeded: the next one starts, and the batch is applied. */
  private synced(batch: WrittenGroup[], started: number): void {
    this.stats.fsyncs++;
    if (this.unsynced.length === 0) return this.settle(batch, started);
    // On the pool the next sync starts first, so the disk works while this batch is applied;
    // on the loop it would block before this batch's answers, so it waits for them (batches
    // are applied in write order).
    const next = this.unsynced;
    this.unsynced = [];
    if (this.fsyncPlace.inline()) {
      this.settle(batch, started);
      this.syncOnLoop(next);
    } else {
      this.syncOnPool(next);
      this.settle(batch, started);
    }
  }

  /** Makes durable groups readable, in write order, and answers them. */
  private settle(batch: WrittenGroup[], started: number): void {
    for (const g of batch) {
      this.planner.settle(g.plan);
      if (g.bytes > 0) {
        this.observer?.committed("log", g.planned.length, (performance.now() - started) / 1000);
        g.segment.size = g.offset + g.bytes;
        this.store.noteWritten(g.segment, g.offset, g.buf, g.bytes);
        // noteWritten copied what it keeps: the buffer is free for a later group.
        if (this.spareBuffers.length < SPARE_BUFFERS_MAX) this.spareBuffers.push(g.buf);
        this.stats.batches++;
      }
      this.host.apply(g);
    }
  }

  /**
   * A failed fdatasync: its groups fail, and so does every group written behind it (their own
   * sync could succeed without the lost bytes before them). Nothing of them reached the index.
   */
  private failSync(segment: Segment, batch: WrittenGroup[], error: unknown): void {
    this.host.stop();
    this.log.error("fdatasync failed: storage stops taking writes until it is reopened", {
      segment: segment.name,
      error: describeIoError(error),
    });
    const e =
      error instanceof EssError
        ? error
        : unavailable(
            `the disk failed to make the append durable (${describeIoError(error)}); storage is read-only until restart`,
          );
    this.syncFailure ??= e;
    for (const g of batch) for (const p of g.planned) p.op.reject(e);
    this.failUnsynced(e);
  }

  /** Fails the groups written but not yet covered by an fdatasync; the plans on them go too. */
  private failUnsynced(e: EssError): void {
    const behind = this.unsynced;
    this.unsynced = [];
    for (const g of behind) for (const p of g.planned) p.op.reject(e);
    if (this.syncing === null) this.planner.dropCarried();
  }
}

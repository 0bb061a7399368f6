/**
 * The log engine's maintenance: verify and scavenge, run one at a time, and the storage status.
 *
 * Invariants:
 * - verify and scavenge never run at once (exclusive), so verify never sees a segment swap;
 * - one real scavenge at a time (SCAVENGE_IN_PROGRESS otherwise); a dry run plans only, and may
 *   run beside it;
 * - what a scavenge plans to remove is hidden at once and marked durably (a "scavenged" metadata
 *   record through the writer) before any segment is rewritten, so it never reappears, and the
 *   index rebuilt from the log still knows each stream's revision count and creation time;
 * - a real run answers only after the rewritten segments' index files are written.
 */
import { EssError, unavailable } from "../../errors.js";
import type {
  LastScavenge,
  ScavengeResult,
  StorageStatus,
  StreamInfo,
  VerifyResult,
} from "../../contract/bodies.js";
import type { ScavengeOptions, VerifyProgress } from "../engine.js";
import { describeIoError } from "../io-error.js";
import type { IndexFileWriter } from "./index-file-writer.js";
import { saveLastScavenge } from "./last-scavenge.js";
import { rejected, type LogContext } from "./log-context.js";
import type { LogWriter } from "./log-writer.js";
import {
  installRewrittenSegment,
  planScavenge,
  swapToRewrittenSegment,
  writeRewrittenSegment,
  type ScavengePlan,
} from "./scavenge.js";
import { verifyLog } from "./verify.js";

/** Test-only: awaited by a real scavenge before it rewrites each segment (LogEngineOptions). */
export type BeforeScavengeSegment = (ctx: { segment: string; index: number; total: number }) => Promise<void>;

export class LogMaintenance {
  /** The last real scavenge's result (loaded from last-scavenge.json at start-up). */
  lastScavenge: LastScavenge | null = null;
  /** The verify or scavenge running, chained: the next one starts after it. */
  private running: Promise<void> = Promise.resolve();
  private scavenging = false;

  constructor(
    private readonly ctx: LogContext,
    private readonly writer: LogWriter,
    private readonly indexFiles: IndexFileWriter,
    private readonly beforeScavengeSegment: BeforeScavengeSegment | undefined,
  ) {}

  /** Resolves once the verify or scavenge running now (if any) has finished. */
  idle(): Promise<void> {
    return this.running;
  }

  /**
   * Runs maintenance (verify, scavenge) one at a time, so verify never sees a segment swap. A run
   * still waiting its turn when the engine starts closing is not run (UNAVAILABLE): close waits
   * for the one running, not for a queue of them (jobs can queue several, src/operations/jobs.ts).
   */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.running.then(() =>
      this.ctx.closing ? rejected(unavailable("the storage engine is shutting down")) : fn(),
    );
    this.running = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  verify(onProgress?: (progress: VerifyProgress) => void): Promise<VerifyResult> {
    const { ctx } = this;
    if (ctx.closed) return rejected(unavailable("the storage engine is closed"));
    return this.exclusive(() => verifyLog(ctx.store, ctx.index, ctx.recordBytesMax, onProgress));
  }

  scavenge(options: ScavengeOptions): Promise<ScavengeResult> {
    const { ctx } = this;
    if (ctx.closed || ctx.closing) return rejected(unavailable("the storage engine is shutting down"));
    const started = Date.now();
    if (options.dry_run) {
      options.onAdmitted?.();
      // Planning is one synchronous pass over the streams: progress can only be its two ends.
      const streamCount = ctx.index.streams.length;
      options.onProgress?.({ done: 0, total: streamCount, unit: "streams" });
      const plan = planScavenge(ctx.index, ctx.store, ctx.now());
      options.onProgress?.({ done: streamCount, total: streamCount, unit: "streams" });
      return Promise.resolve({
        dry_run: true,
        events_removed: plan.events,
        bytes_reclaimed: plan.bytes,
        segments_rewritten: plan.bySegment.size,
        streams_affected: plan.streamsAffected,
        duration_ms: Date.now() - started,
        streams: plan.listed.list(),
      });
    }
    if (!this.writer.writable) return rejected(unavailable("storage is not writable; restart to recover"));
    if (this.scavenging)
      return rejected(new EssError("SCAVENGE_IN_PROGRESS", "a scavenge is already running"));
    this.scavenging = true;
    options.onAdmitted?.();
    return this.exclusive(() => this.runScavenge(started, options.onProgress)).finally(() => {
      this.scavenging = false;
    });
  }

  private async runScavenge(
    started: number,
    onProgress: ScavengeOptions["onProgress"],
  ): Promise<ScavengeResult> {
    const plan = planScavenge(this.ctx.index, this.ctx.store, this.ctx.now());
    // Progress counts the segments to rewrite; the run has begun once it has its plan.
    onProgress?.({ done: 0, total: plan.bySegment.size, unit: "segments" });
    await this.hideAndMark(plan);
    const rewrite = await this.rewriteSegments(plan, onProgress);
    const result: ScavengeResult = {
      dry_run: false,
      events_removed: rewrite.removed,
      bytes_reclaimed: rewrite.reclaimed,
      segments_rewritten: rewrite.rewritten,
      streams_affected: plan.streamsAffected,
      duration_ms: Date.now() - started,
    };
    this.saveResult(result);
    // The rewritten segments' index files, before the run answers.
    await this.indexFiles.settled();
    this.ctx.log.info("scavenge finished", { ...result });
    return result;
  }

  /**
   * Hides the planned events at once: what a scavenge removes never reappears, even if a later
   * retention change would make it readable again. Then every stream about to lose events gets
   * a durable mark, so the index built from the log still knows its revision count (the events
   * that carried it may all be going away) and when it was created (its first events may be
   * going away).
   */
  private async hideAndMark(plan: ScavengePlan): Promise<void> {
    for (const [s, bound] of plan.streams) if (bound > s.scavengedBefore) s.scavengedBefore = bound;
    const marks: Promise<StreamInfo>[] = [];
    for (const [s, bound] of plan.streams) {
      marks.push(
        this.writer.writeMeta(s.tenant.tenantId, s.streamId, {
          op: "scavenged",
          before: bound,
          created_at: s.createdAtMs,
        }),
      );
    }
    await Promise.all(marks);
  }

  /** Rewrites each sealed segment of the plan without its removed events, oldest first. */
  private async rewriteSegments(
    plan: ScavengePlan,
    onProgress: ScavengeOptions["onProgress"],
  ): Promise<{ removed: number; reclaimed: number; rewritten: number }> {
    const { store, index, recordBytesMax, log } = this.ctx;
    let removed = 0;
    let reclaimed = 0;
    let rewritten = 0;
    const segmentNos = [...plan.bySegment.keys()].sort((a, b) => a - b);
    const total = segmentNos.length;
    for (const [i, segmentNo] of segmentNos.entries()) {
      const segment = store.segments.get(segmentNo);
      if (!segment || !segment.sealed) {
        onProgress?.({ done: i + 1, total, unit: "segments" });
        continue;
      }
      if (this.beforeScavengeSegment)
        await this.beforeScavengeSegment({ segment: segment.name, index: i, total: segmentNos.length });
      const before = segment.size;
      const r = await writeRewrittenSegment(store, segment, plan.bySegment.get(segmentNo)!);
      await installRewrittenSegment(store, r);
      const rebuilt = swapToRewrittenSegment(store, index, r, recordBytesMax, log);
      this.indexFiles.persistSealed(segment, rebuilt);
      removed += r.dropped.length;
      reclaimed += before - r.newSize;
      rewritten++;
      onProgress?.({ done: i + 1, total, unit: "segments" });
    }
    return { removed, reclaimed, rewritten };
  }

  private saveResult(result: ScavengeResult): void {
    this.lastScavenge = { ...result, finished_at: new Date(this.ctx.now()).toISOString() };
    try {
      saveLastScavenge(this.ctx.dataDir, this.lastScavenge);
    } catch (error) {
      // The scavenge itself is done and durable; only its report may be missing after a restart.
      this.ctx.log.error("could not save the last scavenge's result", { error: describeIoError(error) });
    }
  }

  status(): StorageStatus {
    const { store, index } = this.ctx;
    const segments = store.ordered();
    const memory = index.memoryBytes();
    const events = index.eventsStored;
    const stats = this.writer.stats;
    let liveStreams = 0;
    for (const t of index.tenants.values()) liveStreams += t.liveStreams;
    return {
      engine: "log",
      events_total: events,
      streams_total: liveStreams,
      bytes_total: segments.reduce((sum, s) => sum + s.size, 0),
      last_position: index.nextPosition - 1,
      last_scavenge: this.lastScavenge,
      data_dir: this.ctx.dataDir,
      segments: segments.map((s) => ({
        name: s.name,
        base_position: s.basePosition,
        records: s.records,
        bytes: s.size,
        sealed: s.sealed,
      })),
      writer: {
        batches: stats.batches,
        fsyncs: stats.fsyncs,
        avg_batch_events: stats.batches > 0 ? stats.events / stats.batches : 0,
        queue_depth: this.writer.queueDepth,
      },
      index: {
        entries: events,
        memory_bytes: memory,
        bytes_per_event: events > 0 ? memory / events : 0,
        checkpoint_position: this.indexFiles.indexedPosition,
        id_check_false_hits: index.idCheckFalseHits,
      },
    };
  }
}

/**
 * The index files written while the engine runs: a sealed segment's (after the writer rolls to a
 * new segment, after scavenge rewrites one, after a damaged block forced a rebuild), the active
 * segment's at a clean close, and index-state.json (the tenants' read counters) beside them.
 *
 * Invariants: sealed segments' index files are written one at a time, in the order asked, in
 * the background; until a file is written and opened again, the in-memory index of its segment
 * serves reads, so a failed write costs memory until restart (the next start-up rebuilds the
 * file from the log), never an answer. A file is swapped in only if its segment's index is still
 * the one it was made from (a scavenge may have replaced it meanwhile).
 */
import { describeIoError } from "../io-error.js";
import { saveIndexState } from "./index-state.js";
import type { LogContext } from "./log-context.js";
import { rebuilderOf } from "./recovery.js";
import { encodeSegmentIndex, writeSegmentIndexFile } from "./index-file-encoding.js";
import { indexFilePath } from "./index-file-format.js";
import { FileSegmentIndex, openSegmentIndexFile, type IndexBlockCache } from "./segment-index-file.js";
import type { MemorySegmentIndex, SegmentIndex } from "./segment-index.js";
import type { Segment } from "./segment-store.js";

export class IndexFileWriter {
  /** Index files of sealed segments being written, chained so they land in order. */
  private writes: Promise<void> = Promise.resolve();
  /** Last position whose index is in an index file (storage status `checkpoint_position`). */
  indexedPosition = 0;

  /**
   * `canWrite` says whether the engine still takes writes (no fatal disk error, not closing):
   * a damaged index file is written again only then.
   */
  constructor(
    private readonly ctx: LogContext,
    private readonly cache: IndexBlockCache,
    private readonly canWrite: () => boolean,
  ) {}

  /** Resolves once every index file asked for so far is written (or has failed, logged). */
  settled(): Promise<void> {
    return this.writes;
  }

  /**
   * Logs a sealed segment's index falling back to a rebuild from the log (a damaged block), and
   * writes its index file again from that rebuild.
   */
  watch(seg: SegmentIndex): void {
    if (!(seg instanceof FileSegmentIndex)) return;
    seg.onRebuilt = (reason, rebuilt) => {
      this.ctx.log.error("a segment index file is damaged; its index was rebuilt from the log in memory", {
        segment: seg.segmentNo,
        reason,
      });
      const segment = this.ctx.store.segments.get(seg.segmentNo);
      if (segment && this.canWrite()) this.persistSealed(segment, rebuilt);
    };
  }

  /**
   * Writes a sealed segment's index file in the background and then reads that segment's index
   * from it, dropping the in-memory tables. Until then (and if writing fails: the next start-up
   * rebuilds the file from the log) the in-memory index serves reads. Also saves the tenants'
   * read counters, which live in memory otherwise.
   */
  persistSealed(segment: Segment, seg: MemorySegmentIndex): void {
    const { ctx } = this;
    const file = encodeSegmentIndex(seg, segment.size);
    const filePath = indexFilePath(ctx.dataDir, segment.name);
    const expect = {
      segmentNo: segment.segmentNo,
      generation: segment.generation,
      segmentBytes: segment.size,
    };
    const run = this.writes.then(async () => {
      await writeSegmentIndexFile(ctx.dataDir, segment.name, file);
      // A scavenge may have rewritten the segment meanwhile: its own index replaced this one.
      if (ctx.index.segment(segment.segmentNo) !== seg || ctx.closed) return;
      const opened = openSegmentIndexFile(
        filePath,
        expect,
        this.cache,
        rebuilderOf(segment, ctx.recordBytesMax, ctx.log),
      );
      if (!opened.index) throw new Error(opened.reason);
      ctx.index.replaceSegment(seg, opened.index);
      this.watch(opened.index);
      this.indexedPosition = Math.max(this.indexedPosition, seg.basePosition + seg.span() - 1);
      this.saveState();
    });
    this.writes = run.catch((error: unknown) => {
      ctx.log.error("writing a segment index file failed; its index stays in memory until restart", {
        segment: segment.name,
        error: describeIoError(error),
      });
    });
  }

  /**
   * At a clean close, the active segment's index too, so the next start-up reads only what is
   * appended after it. A failure only costs that start-up a read of the segment.
   */
  async persistActive(segment: Segment, seg: MemorySegmentIndex): Promise<void> {
    try {
      await writeSegmentIndexFile(this.ctx.dataDir, segment.name, encodeSegmentIndex(seg, segment.size));
    } catch (error) {
      this.ctx.log.warn("could not save the active segment's index; the next start-up reads the segment", {
        error: describeIoError(error),
      });
    }
  }

  /** Saves index-state.json (the tenants' read counters). */
  saveState(): void {
    try {
      saveIndexState(this.ctx.dataDir, this.ctx.index.tenants.values());
    } catch (error) {
      this.ctx.log.warn("could not save index-state.json", { error: describeIoError(error) });
    }
  }
}

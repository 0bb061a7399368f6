/**
 * The embedded log storage engine: one append-only log of segment files, an in-memory index,
 * and a group-commit writer. This class is the StorageEngine the service sees; it opens the data
 * directory, hands each call to the part that does it, and closes in order:
 *
 * - LogWriter (log-writer.ts): append, retention, delete; the group-commit queue and segment rolls,
 *   with its fdatasync pipeline (SyncPipeline, sync-pipeline.ts);
 * - LogReader (log-reader.ts): reads, read-all, stream info, listings, tenant usage;
 * - LogMaintenance (log-maintenance.ts): verify, scavenge, status;
 * - IndexFileWriter (index-file-writer.ts): the index files written while running.
 *
 * Invariants (each part's module holds its own):
 * - an append resolves only after its records were written and fdatasync'd; the index (and so
 *   every reader) sees a batch only after that, all of it at once;
 * - the writer is the only code that assigns revisions and positions, one group at a time, in
 *   queue order, validating each append against the index plus the earlier appends of its group;
 * - a group is one write and one fdatasync, and never spans two segments;
 * - after an fdatasync error the engine takes no more writes (the kernel may have dropped the
 *   dirty pages, so retrying could acknowledge lost data): isWritable() is false until the
 *   store is opened again and recovers from what is on disk;
 * - one engine per data directory (DirectoryLock), held from open to the end of close.
 */
import fs from "node:fs";
import path from "node:path";
import { invalidArgument } from "../../errors.js";
import { limits } from "../../limits.js";
import { logger as rootLogger, type Logger } from "../../logger.js";
import type {
  AppendResult,
  ReadStreamResult,
  Retention,
  ScavengeResult,
  StorageStatus,
  StreamInfo,
  StreamList,
  StreamMetadata,
  StreamSummary,
  TenantList,
  TenantUsage,
  VerifyResult,
} from "../../contract/bodies.js";
import type {
  AppendInput,
  AppendListener,
  DeleteStreamOptions,
  EngineOptions,
  ListStreamsInput,
  ListTenantsInput,
  ReadAllInput,
  ReadAllPage,
  ReadStreamInput,
  ScavengeOptions,
  SetMetadataInput,
  StorageEngine,
  VerifyProgress,
} from "../engine.js";
import { describeIoError } from "../io-error.js";
import { LogAuthStore } from "./auth-store.js";
import { DirectoryLock } from "./dir-lock.js";
import { IndexFileWriter } from "./index-file-writer.js";
import { loadIndexState, type IndexState } from "./index-state.js";
import { loadLastScavenge } from "./last-scavenge.js";
import { rejected, type LogContext } from "./log-context.js";
import { LogIndex } from "./log-index.js";
import { LogMaintenance, type BeforeScavengeSegment } from "./log-maintenance.js";
import { LogReader } from "./log-reader.js";
import { LogWriter } from "./log-writer.js";
import { RECORD_HEADER_BYTES, SEGMENT_HEADER_BYTES } from "./record-codec.js";
import { openAndReplay, type ReplayStats } from "./recovery.js";
import { FileSegmentIndex, IndexBlockCache } from "./segment-index-file.js";
import type { MemorySegmentIndex } from "./segment-index.js";
import { SegmentStore, type LogFaults } from "./segment-store.js";

export interface LogEngineOptions extends EngineOptions {
  /** Directory of the segment and index files, lock and auth.json; created if missing. */
  dataDir: string;
  /** Bytes of one segment file before it is sealed. Default limits.segmentBytesMax (64 MiB). */
  segmentBytesMax?: number;
  /** Bytes of segment blocks cached for reads. Default limits.logBlockCacheBytes. */
  blockCacheBytes?: number;
  /** Bytes of index-file blocks cached for reads. Default limits.logIndexCacheBytes. */
  indexCacheBytes?: number;
  /**
   * Opens without changing anything on disk (for `ess verify`): a torn tail is reported, not
   * cut; no segment, index or temp file is written or removed; appends are refused.
   */
  readOnly?: boolean;
  /** Injected disk faults, for tests. */
  faults?: LogFaults;
  /**
   * fdatasyncs run on the event loop while the disk's recent ones took at most this many µs
   * (src/storage/log/fsync-placement.ts). Default limits.inlineFsyncMicrosMax; 0 puts every
   * fdatasync on the thread pool, where the writer overlaps the next group with it.
   */
  inlineFsyncMicrosMax?: number;
  /**
   * Test-only, off (undefined) by default: awaited by a real scavenge before it rewrites each
   * segment (after planning and the durable "scavenged" marks), so a test can hold a run at a
   * known point, act while it is going (a second run, a dry run), then let it finish. It must
   * resolve eventually: the run, and close(), wait for it.
   */
  beforeScavengeSegment?: BeforeScavengeSegment;
  logger?: Logger;
}

/** The whole-index checkpoint of versions before index files; removed at the first start-up. */
const LEGACY_CHECKPOINT_FILE = "index.ckpt";

export class LogEngine implements StorageEngine {
  readonly kind = "log" as const;
  readonly auth: LogAuthStore;
  readonly dataDir: string;
  /** Bytes after the last whole batch found at start-up (cut, unless opened read-only). */
  tornTailBytes = 0;
  private readonly ctx: LogContext;
  private readonly reader: LogReader;
  private readonly writer: LogWriter;
  private readonly maintenance: LogMaintenance;
  private readonly indexFiles: IndexFileWriter;
  /** The fingerprint set being filled after start-up (LogIndex.fillFingerprints). */
  private fingerprintFill: Promise<void> = Promise.resolve();
  private closePromise: Promise<void> | null = null;

  private constructor(
    options: LogEngineOptions,
    readonly index: LogIndex,
    readonly store: SegmentStore,
    indexCache: IndexBlockCache,
    private readonly lock: DirectoryLock,
    log: Logger,
  ) {
    this.dataDir = options.dataDir;
    const segmentBytesMax = options.segmentBytesMax ?? limits.segmentBytesMax;
    this.ctx = {
      dataDir: options.dataDir,
      index,
      store,
      log,
      now: options.now ?? Date.now,
      commitObserver: options.commitObserver ?? null,
      recordBytesMax: Math.max(limits.recordBytesMax, segmentBytesMax),
      closing: false,
      closed: false,
    };
    this.auth = new LogAuthStore(options.dataDir);
    this.reader = new LogReader(this.ctx);
    this.indexFiles = new IndexFileWriter(this.ctx, indexCache, () => this.isWritable());
    this.writer = new LogWriter(
      this.ctx,
      this.reader,
      this.indexFiles,
      segmentBytesMax,
      options.inlineFsyncMicrosMax ?? limits.inlineFsyncMicrosMax,
    );
    this.maintenance = new LogMaintenance(
      this.ctx,
      this.writer,
      this.indexFiles,
      options.beforeScavengeSegment,
    );
  }

  static open(options: LogEngineOptions): Promise<LogEngine> {
    return Promise.resolve().then(() => LogEngine.openSync(options));
  }

  private static openSync(options: LogEngineOptions): LogEngine {
    const dir = path.resolve(options.dataDir);
    const log = (options.logger ?? rootLogger).child({ component: "log-engine", data_dir: dir });
    const segmentBytesMax = options.segmentBytesMax ?? limits.segmentBytesMax;
    const readOnly = options.readOnly === true;
    prepareDataDirectory(dir, segmentBytesMax, readOnly);
    const lock = DirectoryLock.acquire(dir);
    try {
      if (!readOnly) removeTempFiles(dir);
      const recordBytesMax = Math.max(limits.recordBytesMax, segmentBytesMax);
      const store = new SegmentStore(
        dir,
        options.blockCacheBytes ?? limits.logBlockCacheBytes,
        recordBytesMax,
        options.faults,
        log,
      );
      const started = Date.now();
      const index = new LogIndex();
      const indexCache = new IndexBlockCache(options.indexCacheBytes ?? limits.logIndexCacheBytes);
      const state = loadIndexState(dir);
      if (state.problem !== null) {
        log.warn("index-state.json not used; reads_total starts at 0", { reason: state.problem });
      }
      const { stats, active } = openAndReplay(store, index, recordBytesMax, log, indexCache, readOnly);
      let activeIndex = active;
      if (!store.active && !readOnly) {
        const segment = store.createSegment(1, index.nextPosition);
        activeIndex = index.startSegment(segment.segmentNo, segment.generation, segment.basePosition);
      }
      const engine = new LogEngine({ ...options, dataDir: dir }, index, store, indexCache, lock, log);
      engine.start(stats, activeIndex, state.value, readOnly);
      log.info("log engine opened", {
        segments: store.segments.size,
        events: index.eventsStored,
        index_files_used: stats.indexFilesUsed,
        index_files_built: stats.indexFilesBuilt,
        segments_read: stats.segmentsRead,
        records_replayed: stats.recordsApplied,
        bytes_cut: stats.bytesCut,
        ms: Date.now() - started,
      });
      return engine;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /** Puts what start-up found (recovery, the saved state files) into the parts. */
  private start(
    stats: ReplayStats,
    activeIndex: MemorySegmentIndex | null,
    state: IndexState,
    readOnly: boolean,
  ): void {
    const { dataDir, index, log } = this.ctx;
    if (activeIndex) this.writer.activeIndex = activeIndex;
    this.indexFiles.indexedPosition = activeIndex ? activeIndex.basePosition - 1 : index.nextPosition - 1;
    for (const seg of index.segments) this.indexFiles.watch(seg);
    const saved = loadLastScavenge(dataDir);
    if (saved.problem !== null) {
      log.warn("last-scavenge.json not used; storage status reports no last scavenge", {
        reason: saved.problem,
      });
    }
    this.maintenance.lastScavenge = saved.value;
    for (const [tenantId, count] of state.reads) {
      const t = index.tenants.get(tenantId);
      if (t) t.readsTotal = count;
    }
    if (!readOnly && fs.existsSync(path.join(dataDir, LEGACY_CHECKPOINT_FILE))) {
      // Written by versions before index files: the index files built above replace it.
      fs.unlinkSync(path.join(dataDir, LEGACY_CHECKPOINT_FILE));
      log.info(
        "removed the old whole-index checkpoint; the index is now kept in one file per sealed segment",
      );
    }
    if (!readOnly) this.fillFingerprints();
    this.tornTailBytes = stats.bytesCut;
    // Records skipped as damaged (logged by the replay) are events no read can serve.
    if (stats.corruptRecords > 0) this.reader.damaged = true;
    if (readOnly) this.writer.writable = false;
  }

  /** Fills the index's fingerprint set in the background; logged when done. */
  private fillFingerprints(): void {
    const { index, log } = this.ctx;
    const started = Date.now();
    this.fingerprintFill = index
      .fillFingerprints(() => this.ctx.closing)
      .then(() => {
        if (index.fingerprintsReady) {
          log.info("event-id fingerprints loaded", {
            fingerprints: index.fingerprints.size,
            ms: Date.now() - started,
          });
        }
      })
      .catch((error: unknown) => {
        // The set stays not ready: idempotency looks every id up in the segments' indexes.
        log.error("filling the event-id fingerprints failed", { error: describeIoError(error) });
      });
  }

  // ---------------------------------------------------------------- writes (LogWriter)

  append(input: AppendInput): Promise<AppendResult> {
    return this.writer.append(input);
  }

  setRetention(tenantId: string, streamId: string, retention: Retention): Promise<StreamInfo> {
    return this.writer.setRetention(tenantId, streamId, retention);
  }

  deleteStream(tenantId: string, streamId: string, options?: DeleteStreamOptions): Promise<StreamInfo> {
    return this.writer.deleteStream(tenantId, streamId, options);
  }

  setStreamMetadata(input: SetMetadataInput): Promise<StreamMetadata> {
    return this.writer.setMetadata(input);
  }

  onAppend(listener: AppendListener): () => void {
    return this.writer.onAppend(listener);
  }

  isWritable(): boolean {
    return this.writer.writable && !this.ctx.closing;
  }

  // ---------------------------------------------------------------- reads (LogReader)
  // The reader answers synchronously and throws; these turn that into the promise the contract
  // asks for (engine methods never throw synchronously).

  readStream(input: ReadStreamInput): Promise<ReadStreamResult> {
    try {
      return Promise.resolve(this.reader.readStream(input));
    } catch (error) {
      return rejected(error);
    }
  }

  readAll(input: ReadAllInput): Promise<ReadAllPage> {
    try {
      return Promise.resolve(this.reader.readAll(input));
    } catch (error) {
      return rejected(error);
    }
  }

  getStreamInfo(tenantId: string, streamId: string): Promise<StreamInfo | null> {
    try {
      return Promise.resolve(this.reader.getStreamInfo(tenantId, streamId));
    } catch (error) {
      return rejected(error);
    }
  }

  getStreamMetadata(tenantId: string, streamId: string): Promise<StreamMetadata> {
    try {
      return Promise.resolve(this.reader.getStreamMetadata(tenantId, streamId));
    } catch (error) {
      return rejected(error);
    }
  }

  listStreams(input: ListStreamsInput): Promise<StreamList> {
    try {
      return Promise.resolve(this.reader.listStreams(input));
    } catch (error) {
      return rejected(error);
    }
  }

  getTenantUsage(tenantId: string): Promise<TenantUsage | null> {
    return Promise.resolve(this.reader.getTenantUsage(tenantId));
  }

  listTenants(input: ListTenantsInput): Promise<TenantList> {
    try {
      return Promise.resolve(this.reader.listTenants(input));
    } catch (error) {
      return rejected(error);
    }
  }

  largestStreams(tenantId: string, count: number): Promise<StreamSummary[]> {
    return Promise.resolve(this.reader.largestStreams(tenantId, count));
  }

  isDamaged(): boolean {
    return this.reader.damaged;
  }

  // ---------------------------------------------------------------- maintenance (LogMaintenance)

  verify(onProgress?: (progress: VerifyProgress) => void): Promise<VerifyResult> {
    return this.maintenance.verify(onProgress);
  }

  scavenge(options: ScavengeOptions): Promise<ScavengeResult> {
    return this.maintenance.scavenge(options);
  }

  status(): Promise<StorageStatus> {
    return Promise.resolve(this.maintenance.status());
  }

  // ---------------------------------------------------------------- close

  close(): Promise<void> {
    this.closePromise ??= this.closeOnce();
    return this.closePromise;
  }

  /**
   * Stops taking writes, waits for the writer, maintenance and the fingerprint fill, then cuts
   * the active segment's unused room and saves what the next start-up reads first (the index
   * files, the active segment's index, index-state.json), and releases the files and the lock.
   */
  private async closeOnce(): Promise<void> {
    const { ctx, store } = this;
    ctx.closing = true;
    await this.writer.drained();
    await this.maintenance.idle();
    await this.fingerprintFill;
    ctx.closed = true;
    // No zero write may land after the cut below, nor after the files are closed.
    await store.stopRoomFill();
    const active = store.active;
    if (this.writer.writable && active) {
      try {
        await store.trimRoom(active);
      } catch (error) {
        // The next start reads the room as zeros, so nothing is lost: only say so.
        ctx.log.warn("could not cut the active segment's unused room at close", {
          segment: active.name,
          error: describeIoError(error),
        });
      }
    }
    await this.indexFiles.settled();
    if (this.writer.writable) {
      // The active segment's index too, so the next start-up reads only what is appended after.
      if (active) await this.indexFiles.persistActive(active, this.writer.activeIndex);
      this.indexFiles.saveState();
    }
    for (const seg of this.index.segments) if (seg instanceof FileSegmentIndex) seg.close();
    store.closeAll();
    this.lock.release();
  }
}

export function openLogEngine(options: LogEngineOptions): Promise<LogEngine> {
  return LogEngine.open(options);
}

/** Checks the options and the directory before the lock is taken; creates it unless read-only. */
function prepareDataDirectory(dir: string, segmentBytesMax: number, readOnly: boolean): void {
  if (segmentBytesMax < SEGMENT_HEADER_BYTES + RECORD_HEADER_BYTES + 1024) {
    throw invalidArgument("segmentBytesMax is too small");
  }
  if (readOnly && !fs.existsSync(dir)) throw invalidArgument(`data directory ${dir} does not exist`);
  // mkdir on a file says "EEXIST: file already exists", which reads as if all were well.
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) {
    throw invalidArgument(`${dir} is not a directory`);
  }
  if (!readOnly) fs.mkdirSync(dir, { recursive: true });
}

/** Removes the temp files of writes a crash interrupted (index files, auth.json, scavenge). */
function removeTempFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith(".tmp")) fs.unlinkSync(path.join(dir, name));
  }
}

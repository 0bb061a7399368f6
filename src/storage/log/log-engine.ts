/**
 * The embedded log storage engine: one append-only log of segment files, an in-memory index,
 * and a group-commit writer.
 *
 * Invariants:
 * - an append resolves only after its records were written and fdatasync'd; the index (and so
 *   every reader) sees a batch only after that, all of it at once;
 * - the writer is the only code that assigns revisions and positions, one group at a time, in
 *   queue order, validating each append against the index plus the earlier appends of its group;
 * - a group is one write and one fdatasync, and never spans two segments;
 * - after an fdatasync error the engine takes no more writes (the kernel may have dropped the
 *   dirty pages, so retrying could acknowledge lost data): isWritable() is false until the
 *   store is opened again and recovers from what is on disk.
 */
import fs from "node:fs";
import path from "node:path";
import {
  dataCorrupted,
  EssError,
  invalidArgument,
  payloadTooLarge,
  streamNotFound,
  unavailable,
  wrongExpectedRevision,
} from "../../errors.js";
import { limits } from "../../limits.js";
import { logger as rootLogger, type Logger } from "../../logger.js";
import type {
  AppendResult,
  EventRecord,
  LastScavenge,
  ReadAllResult,
  ReadStreamResult,
  Retention,
  ScavengeResult,
  StorageStatus,
  StreamInfo,
  StreamList,
  StreamSummary,
  TenantList,
  TenantUsage,
  VerifyResult,
} from "../../contract/bodies.js";
import type {
  AppendInput,
  AppendListener,
  AppendNotice,
  EngineOptions,
  ListStreamsInput,
  ListTenantsInput,
  ReadAllInput,
  ReadStreamInput,
  StorageEngine,
  VerifyProgress,
} from "../engine.js";
import { RepeatedText, type SlicingBuffer } from "../../buffer-text.js";
import { describeIoError } from "../io-error.js";
import { pageBytesMax } from "../read-page.js";
import { isoFromMs, StoredEventRecord } from "../stored-event.js";
import { LogAuthStore } from "./auth-store.js";
import { DirectoryLock } from "./dir-lock.js";
import { loadLastScavenge, saveLastScavenge } from "./last-scavenge.js";
import { eventFingerprint } from "./fingerprint-set.js";
import { LogIndex, NO_OFFSET, type StreamMetaBody, type StreamState, type TenantState } from "./log-index.js";
import {
  encodeRecord,
  FLAG_BATCH_END,
  KIND_EVENT,
  KIND_STREAM_META,
  measureRecord,
  RECORD_HEADER_BYTES,
  SEGMENT_HEADER_BYTES,
  type MeasuredRecord,
} from "./record-codec.js";
import { openAndReplay, rebuilderOf } from "./recovery.js";
import {
  encodeSegmentIndex,
  FileSegmentIndex,
  IndexBlockCache,
  indexFilePath,
  openSegmentIndexFile,
  writeSegmentIndexFile,
} from "./segment-index-file.js";
import type { MemorySegmentIndex, SegmentIndex } from "./segment-index.js";
import { loadIndexState, saveIndexState } from "./index-state.js";
import { FsyncPlacement } from "./fsync-placement.js";
import {
  DamagedRecordError,
  isRecordChecked,
  markRecordChecked,
  SegmentStore,
  type LogFaults,
  type Segment,
} from "./segment-store.js";
import { crc32c } from "./crc32c.js";
import { checkAppendInput, checkId, checkRetention } from "../validate-input.js";
import { groupTake } from "./writer-groups.js";
import { verifyLog } from "./verify.js";
import {
  installRewrittenSegment,
  planScavenge,
  swapToRewrittenSegment,
  writeRewrittenSegment,
} from "./scavenge.js";

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
   * Test-only, off (undefined) by default: awaited by a real scavenge before it rewrites each
   * segment (after planning and the durable "scavenged" marks), so a test can hold a run at a
   * known point, act while it is going (a second run, a dry run), then let it finish. It must
   * resolve eventually: the run, and close(), wait for it.
   */
  beforeScavengeSegment?: (ctx: { segment: string; index: number; total: number }) => Promise<void>;
  logger?: Logger;
}

type Outcome<T> = { resolve: (value: T) => void; reject: (error: unknown) => void };

interface AppendOp extends Outcome<AppendResult> {
  kind: "append";
  input: AppendInput;
  records: MeasuredRecord[];
  bytes: number;
  /** The events' event-id fingerprints, once computed (fingerprintsOf). */
  fingerprints?: Uint32Array;
}

interface MetaOp extends Outcome<StreamInfo> {
  kind: "meta";
  tenantId: string;
  streamId: string;
  body: StreamMetaBody | null;
  bytes: number;
}

type WriterOp = AppendOp | MetaOp;

/** A read page being filled: its events, and the bytes of their data and metadata so far. */
interface PageFill {
  events: EventRecord[];
  bytes: number;
  bytesMax: number;
}

/** What the group has done to a stream so far, before it is durable. */
interface Overlay {
  count: number;
  deleted: boolean;
  exists: boolean;
  ids: Map<string, { revision: number; position: number }>;
}

interface Planned {
  op: WriterOp;
  stream: string;
  tenant: string;
  /** Records to write (empty for an idempotent repeat or a no-op). */
  records: MeasuredRecord[];
  result: AppendResult | null;
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

/** A rejected promise for a synchronous failure (engine methods never throw synchronously). */
/** The whole-index checkpoint of versions before index files; removed at the first start-up. */
const LEGACY_CHECKPOINT_FILE = "index.ckpt";

function rejected(error: unknown): Promise<never> {
  return Promise.reject(error instanceof Error ? error : new Error(String(error)));
}

function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > limits.readPageMax) {
    throw invalidArgument(`limit must be between 1 and ${limits.readPageMax}`, { field: "limit" });
  }
}

export class LogEngine implements StorageEngine {
  readonly kind = "log" as const;
  readonly auth: LogAuthStore;
  readonly dataDir: string;
  private readonly now: () => number;
  private readonly beforeScavengeSegment: LogEngineOptions["beforeScavengeSegment"];
  private readonly segmentBytesMax: number;
  private readonly groupBytesMax: number;
  private readonly log: Logger;
  private readonly listeners = new Set<AppendListener>();
  private queue: WriterOp[] = [];
  /** Bytes of the records waiting in `queue` (bounded by limits.writerQueueBytesMax). */
  private queuedBytes = 0;
  private writing = false;
  private writable = true;
  /** Bytes after the last whole batch found at start-up (cut, unless opened read-only). */
  tornTailBytes = 0;
  private closing = false;
  private closed = false;
  private drainWaiters: (() => void)[] = [];
  private stats = { batches: 0, fsyncs: 0, events: 0 };
  private readonly fsyncPlace = new FsyncPlacement(limits.inlineFsyncMicrosMax);
  private sortedStreams: StreamState[] | null = null;
  lastScavenge: LastScavenge | null = null;
  /** The index of the active segment (the sealed ones are in index files). */
  private activeIndex!: MemorySegmentIndex;
  /** The fingerprint set being filled after start-up (LogIndex.fillFingerprints). */
  private fingerprintFill: Promise<void> = Promise.resolve();
  /** Index files of sealed segments being written, chained so they land in order. */
  private indexWrites: Promise<void> = Promise.resolve();
  /** Last position whose index is in an index file (storage status `checkpoint_position`). */
  indexedPosition = 0;
  private maintenance: Promise<void> = Promise.resolve();
  private scavenging = false;
  private closePromise: Promise<void> | null = null;
  private readonly recordBytesMax: number;
  /**
   * Set once stored bytes were found damaged (a read, or start-up): health says "degraded"
   * until the damage is dealt with and the service restarted.
   */
  private damaged = false;
  /** Addresses ("segment:offset") of damaged records already logged: one line per record. */
  private readonly damagedLogged = new Set<string>();

  private constructor(
    options: LogEngineOptions,
    readonly index: LogIndex,
    readonly store: SegmentStore,
    private readonly indexCache: IndexBlockCache,
    private readonly lock: DirectoryLock,
    log: Logger,
  ) {
    this.dataDir = options.dataDir;
    this.now = options.now ?? Date.now;
    this.segmentBytesMax = options.segmentBytesMax ?? limits.segmentBytesMax;
    this.beforeScavengeSegment = options.beforeScavengeSegment;
    this.groupBytesMax = Math.min(limits.writerGroupBytesMax, this.segmentBytesMax - SEGMENT_HEADER_BYTES);
    this.log = log;
    this.recordBytesMax = Math.max(limits.recordBytesMax, this.segmentBytesMax);
    this.auth = new LogAuthStore(options.dataDir);
  }

  static open(options: LogEngineOptions): Promise<LogEngine> {
    return Promise.resolve().then(() => LogEngine.openSync(options));
  }

  private static openSync(options: LogEngineOptions): LogEngine {
    const dir = path.resolve(options.dataDir);
    const log = (options.logger ?? rootLogger).child({ component: "log-engine", data_dir: dir });
    const segmentBytesMax = options.segmentBytesMax ?? limits.segmentBytesMax;
    if (segmentBytesMax < SEGMENT_HEADER_BYTES + RECORD_HEADER_BYTES + 1024) {
      throw invalidArgument("segmentBytesMax is too small");
    }
    if (options.readOnly) {
      if (!fs.existsSync(dir)) throw invalidArgument(`data directory ${dir} does not exist`);
    }
    // mkdir on a file says "EEXIST: file already exists", which reads as if all were well.
    if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) {
      throw invalidArgument(`${dir} is not a directory`);
    }
    if (!options.readOnly) {
      fs.mkdirSync(dir, { recursive: true });
    }
    const lock = DirectoryLock.acquire(dir);
    try {
      const readOnly = options.readOnly === true;
      if (!readOnly) {
        for (const name of fs.readdirSync(dir)) {
          if (name.endsWith(".tmp")) fs.unlinkSync(path.join(dir, name));
        }
      }
      const recordBytesMax = Math.max(limits.recordBytesMax, segmentBytesMax);
      const store = new SegmentStore(
        dir,
        options.blockCacheBytes ?? limits.logBlockCacheBytes,
        recordBytesMax,
        options.faults,
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
      if (activeIndex) engine.activeIndex = activeIndex;
      engine.indexedPosition = activeIndex ? activeIndex.basePosition - 1 : index.nextPosition - 1;
      for (const seg of index.segments) engine.watchIndexFile(seg);
      const saved = loadLastScavenge(dir);
      if (saved.problem !== null) {
        log.warn("last-scavenge.json not used; storage status reports no last scavenge", {
          reason: saved.problem,
        });
      }
      engine.lastScavenge = saved.value;
      for (const [tenantId, count] of state.value.reads) {
        const t = index.tenants.get(tenantId);
        if (t) t.readsTotal = count;
      }
      if (!readOnly && fs.existsSync(path.join(dir, LEGACY_CHECKPOINT_FILE))) {
        // Written by versions before index files: the index files built above replace it.
        fs.unlinkSync(path.join(dir, LEGACY_CHECKPOINT_FILE));
        log.info(
          "removed the old whole-index checkpoint; the index is now kept in one file per sealed segment",
        );
      }
      if (!readOnly) engine.fillFingerprints();
      engine.tornTailBytes = stats.bytesCut;
      // Records skipped as damaged (logged by the replay) are events no read can serve.
      if (stats.corruptRecords > 0) engine.damaged = true;
      if (readOnly) engine.writable = false;
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

  /** Fills the index's fingerprint set in the background; logged when done. */
  private fillFingerprints(): void {
    const started = Date.now();
    this.fingerprintFill = this.index
      .fillFingerprints(() => this.closing)
      .then(() => {
        if (this.index.fingerprintsReady) {
          this.log.info("event-id fingerprints loaded", {
            fingerprints: this.index.fingerprints.size,
            ms: Date.now() - started,
          });
        }
      })
      .catch((error: unknown) => {
        // The set stays not ready: idempotency looks every id up in the segments' indexes.
        this.log.error("filling the event-id fingerprints failed", { error: describeIoError(error) });
      });
  }

  /** Saves index-state.json (the tenants' read counters). */
  private saveState(): void {
    try {
      saveIndexState(this.dataDir, this.index.tenants.values());
    } catch (error) {
      this.log.warn("could not save index-state.json", { error: describeIoError(error) });
    }
  }

  /**
   * Logs a sealed segment's index falling back to a rebuild from the log (a damaged block), and
   * writes its index file again from that rebuild.
   */
  private watchIndexFile(seg: SegmentIndex): void {
    if (!(seg instanceof FileSegmentIndex)) return;
    seg.onRebuilt = (reason, rebuilt) => {
      this.log.error("a segment index file is damaged; its index was rebuilt from the log in memory", {
        segment: seg.segmentNo,
        reason,
      });
      const segment = this.store.segments.get(seg.segmentNo);
      if (segment && this.writable && !this.closing) this.persistSealedIndex(segment, rebuilt);
    };
  }

  /**
   * Writes a sealed segment's index file in the background and then reads that segment's index
   * from it, dropping the in-memory tables. Until then (and if writing fails: the next start-up
   * rebuilds the file from the log) the in-memory index serves reads. Also saves the tenants'
   * read counters, which live in memory otherwise.
   */
  private persistSealedIndex(segment: Segment, seg: MemorySegmentIndex): void {
    const file = encodeSegmentIndex(seg, segment.size);
    const filePath = indexFilePath(this.dataDir, segment.name);
    const expect = {
      segmentNo: segment.segmentNo,
      generation: segment.generation,
      segmentBytes: segment.size,
    };
    const run = this.indexWrites.then(async () => {
      await writeSegmentIndexFile(this.dataDir, segment.name, file);
      // A scavenge may have rewritten the segment meanwhile: its own index replaced this one.
      if (this.index.segment(segment.segmentNo) !== seg || this.closed) return;
      const opened = openSegmentIndexFile(
        filePath,
        expect,
        this.indexCache,
        rebuilderOf(segment, this.recordBytesMax, this.log),
      );
      if (!opened.index) throw new Error(opened.reason);
      this.index.replaceSegment(seg, opened.index);
      this.watchIndexFile(opened.index);
      this.indexedPosition = Math.max(this.indexedPosition, seg.basePosition + seg.span() - 1);
      this.saveState();
    });
    this.indexWrites = run.catch((error: unknown) => {
      this.log.error("writing a segment index file failed; its index stays in memory until restart", {
        segment: segment.name,
        error: describeIoError(error),
      });
    });
  }

  // ---------------------------------------------------------------- writes

  append(input: AppendInput): Promise<AppendResult> {
    try {
      checkAppendInput(input);
    } catch (error) {
      return rejected(error);
    }
    const records: MeasuredRecord[] = [];
    let bytes = 0;
    for (const e of input.events) {
      const m = measureRecord({
        kind: KIND_EVENT,
        flags: 0,
        tenant: input.tenant_id,
        stream: input.stream_id,
        eventType: e.event_type,
        position: 0,
        revision: 0,
        createdAtMs: 0,
        eventId: e.event_id,
        metadata: e.metadata,
        data: e.data,
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
    const body: StreamMetaBody = {
      op: "retention",
      retention: {
        max_age_seconds: retention.max_age_seconds,
        max_count: retention.max_count,
        truncate_before: retention.truncate_before,
      },
    };
    return new Promise<StreamInfo>((resolve, reject) => {
      this.enqueue({ kind: "meta", tenantId, streamId, body, bytes: 512, resolve, reject });
    });
  }

  deleteStream(tenantId: string, streamId: string): Promise<StreamInfo> {
    try {
      checkId("tenant_id", tenantId);
      checkId("stream_id", streamId);
    } catch (error) {
      return rejected(error);
    }
    return new Promise<StreamInfo>((resolve, reject) => {
      this.enqueue({ kind: "meta", tenantId, streamId, body: null, bytes: 512, resolve, reject });
    });
  }

  private enqueue(op: WriterOp): void {
    if (this.closing) return op.reject(unavailable("the storage engine is shutting down"));
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

  /** Validates each op in order against the index plus the group so far. */
  private planGroup(group: WriterOp[]): Planned[] {
    const planned: Planned[] = [];
    const overlays = new Map<string, Overlay>();
    let nextPosition = this.index.nextPosition;
    let createdAt = Math.max(this.now(), this.index.lastCreatedAtMs);
    const overlayFor = (tenantId: string, streamId: string): Overlay => {
      const key = LogIndex.key(tenantId, streamId);
      let o = overlays.get(key);
      if (!o) {
        const s = this.index.getStream(tenantId, streamId);
        o = { count: s?.count ?? 0, deleted: s?.deleted ?? false, exists: s !== undefined, ids: new Map() };
        overlays.set(key, o);
      }
      return o;
    };
    for (const op of group) {
      try {
        if (op.kind === "append") {
          const { tenant_id: tenantId, stream_id: streamId, events, expected_revision: expected } = op.input;
          const o = overlayFor(tenantId, streamId);
          const repeat = this.findRepeat(tenantId, streamId, o, op);
          if (repeat) {
            planned.push({ op, tenant: tenantId, stream: streamId, records: [], result: repeat });
            continue;
          }
          // A soft-deleted stream counts as no stream for no_stream / stream_exists (reads
          // answer STREAM_NOT_FOUND); an exact revision compares with its real last revision.
          const live = o.count > 0 && !o.deleted;
          const last = o.count - 1;
          if (expected === "no_stream" && live) throw wrongExpectedRevision(streamId, expected, last);
          if (expected === "stream_exists" && !live) {
            throw wrongExpectedRevision(streamId, expected, o.count > 0 ? last : null);
          }
          if (typeof expected === "number" && expected !== last) {
            throw wrongExpectedRevision(streamId, expected, o.count > 0 ? last : null);
          }
          const first = o.count;
          for (let i = 0; i < events.length; i++) {
            const f = op.records[i]!.fields;
            f.revision = first + i;
            f.position = nextPosition++;
            f.createdAtMs = createdAt;
            f.flags = i === events.length - 1 ? FLAG_BATCH_END : 0;
            o.ids.set(f.eventId, { revision: f.revision, position: f.position });
          }
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
          planned.push({ op, tenant: tenantId, stream: streamId, records: op.records, result });
        } else {
          const o = overlayFor(op.tenantId, op.streamId);
          const internal = op.body !== null && op.body.op === "scavenged";
          if (!internal && (!o.exists || (o.deleted && op.body !== null))) throw streamNotFound(op.streamId);
          if (op.body === null) {
            if (o.deleted) {
              planned.push({ op, tenant: op.tenantId, stream: op.streamId, records: [], result: null });
              continue;
            }
            op.body = { op: "delete", before: o.count };
            o.deleted = true;
          }
          createdAt = Math.max(createdAt, this.now());
          const m = measureRecord({
            kind: KIND_STREAM_META,
            flags: FLAG_BATCH_END,
            tenant: op.tenantId,
            stream: op.streamId,
            eventType: "",
            position: 0,
            revision: o.count,
            createdAtMs: createdAt,
            eventId: "",
            metadata: "",
            data: JSON.stringify(op.body),
          });
          planned.push({ op, tenant: op.tenantId, stream: op.streamId, records: [m], result: null });
        }
      } catch (error) {
        op.reject(error);
      }
    }
    return planned;
  }

  /**
   * An append whose events already sit in the stream, in the same order, is a repeat: its
   * original result comes back and nothing is written. Some but not all: WRONG_EXPECTED_REVISION.
   */
  private findRepeat(tenantId: string, streamId: string, o: Overlay, op: AppendOp): AppendResult | null {
    if (!o.exists) return null;
    const s = this.index.getStream(tenantId, streamId);
    const events = op.input.events;
    let firstRevision = -1;
    let lastPosition = -1;
    let matched = 0;
    for (let i = 0; i < events.length; i++) {
      const id = events[i]!.event_id;
      const found = o.ids.get(id) ?? (s ? this.lookupEventId(s, id, fingerprintsOf(op)[i]!) : null);
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
   * Where an event id sits in stream `s`, or null. The resident fingerprint set answers "not
   * there" for almost every new id without a disk read; a fingerprint it holds is looked up in
   * the indexes of the segments the stream has events in (newest first) and confirmed against
   * the stored record.
   */
  private lookupEventId(
    s: StreamState,
    eventId: string,
    fp: number,
  ): { revision: number; position: number } | null {
    // Until the set is filled after start-up, every id is looked up in the segments' indexes.
    if (this.index.fingerprintsReady && !this.index.fingerprints.has(fp)) return null;
    let found: { revision: number; position: number } | null = null;
    const visited = new Set<number>();
    for (let i = s.runs.length - 1; i >= 0 && found === null; i--) {
      const segmentNo = s.runs[i]!.segmentNo;
      if (visited.has(segmentNo)) continue;
      visited.add(segmentNo);
      const seg = this.index.segment(segmentNo)!;
      seg.findFingerprint(fp, (position) => {
        const slot = seg.slotOf(position);
        if (slot < 0 || seg.streams[slot] !== s) return false;
        const buf = this.readChecked(segmentNo, seg.offsetOf(position));
        // The revision of a repeat comes from the stored record: a damaged one cannot answer.
        if (buf === null) throw dataCorrupted(s.streamId, this.index.revisionAt(s, position), position);
        const o = this.store.recordOffset;
        if (buf.toString("latin1", o + 48, o + 84) !== eventId) return false;
        found = { revision: buf.readDoubleLE(o + 24), position };
        return true;
      });
    }
    return found;
  }

  /** Makes a written group durable, on the event loop or the thread pool (see FsyncPlacement). */
  private syncGroup(segment: Segment): Promise<void> {
    if (!this.fsyncPlace.inline()) return this.store.fdatasync(segment);
    const started = performance.now();
    this.store.fdatasyncNow(segment);
    this.fsyncPlace.timed((performance.now() - started) * 1000);
    return Promise.resolve();
  }

  private async commitGroup(group: WriterOp[]): Promise<void> {
    const planned = this.planGroup(group);
    let total = 0;
    for (const p of planned) for (const r of p.records) total += r.totalBytes;
    if (total > 0) {
      let segment = this.store.active!;
      if (segment.size + total > this.segmentBytesMax) {
        try {
          segment = this.roll(segment);
        } catch (error) {
          segment.sealed = false;
          const fatal = (error as { segmentPhase?: string }).segmentPhase === "fsync";
          if (fatal) this.writable = false;
          this.log.error("could not start a new segment", { error: describeIoError(error), fatal });
          const e = unavailable(
            `the disk refused a new segment (${describeIoError(error)}); nothing of this append was stored`,
          );
          for (const p of planned) p.op.reject(e);
          return;
        }
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
      try {
        await this.syncGroup(segment);
        this.stats.fsyncs++;
      } catch (error) {
        this.writable = false;
        this.log.error("fdatasync failed: storage stops taking writes until it is reopened", {
          segment: segment.name,
          error: describeIoError(error),
        });
        const e = unavailable(
          `the disk failed to make the append durable (${describeIoError(error)}); storage is read-only until restart`,
        );
        for (const p of planned) p.op.reject(e);
        return;
      }
      segment.size = offset + total;
      this.store.noteWritten(segment, offset, buf, total);
      this.stats.batches++;
      this.applyGroup(planned, segment, offset);
    } else {
      this.applyGroup(planned, this.store.active!, 0);
    }
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
    this.persistSealedIndex(current, sealed);
    return next;
  }

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
        if (s.count === 0 && p.records.length > 0) s.createdAtMs = p.records[0]!.fields.createdAtMs;
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
            fingerprints[i]!,
            f.flags === FLAG_BATCH_END,
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
          this.index.addMeta(this.activeIndex, s, f.revision, f.createdAtMs, f.data);
          offset += r.totalBytes;
        }
        p.op.resolve(this.info(s));
      }
    }
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

  // ---------------------------------------------------------------- reads

  /**
   * Adds the event at `position` to a read page, decoded straight from the cached segment bytes:
   * strings are sliced from the record (data and metadata are never parsed), and only the
   * position is re-read as a check that the index and the record agree. With `storedBytes`
   * nothing is decoded: the record keeps the buffer and where its fields are (a
   * StoredEventRecord, for the gRPC codecs); the buffer never changes below the record's end
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
    const metadataBytes = buf.readUInt32LE(o + 40);
    const dataBytes = buf.readUInt32LE(o + 44);
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
    const typeStart = o + RECORD_HEADER_BYTES + buf.readUInt16LE(o + 10) + buf.readUInt16LE(o + 12);
    const metadataStart = typeStart + buf.readUInt16LE(o + 14);
    const dataStart = metadataStart + metadataBytes;
    const dataEnd = dataStart + dataBytes;
    if (storedBytes) {
      return new StoredEventRecord(
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
      );
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
    };
  }

  /**
   * The last event type and metadata text read (RepeatedText; the record bytes it keeps never
   * change, SegmentStore.readRecord).
   */
  private readonly eventTypes = new RepeatedText();
  private readonly metadataTexts = new RepeatedText();

  readStream(input: ReadStreamInput): Promise<ReadStreamResult> {
    try {
      return Promise.resolve(this.readStreamSync(input));
    } catch (error) {
      return rejected(error);
    }
  }

  private readStreamSync(input: ReadStreamInput): ReadStreamResult {
    if (this.closed) throw unavailable("the storage engine is closed");
    checkId("tenant_id", input.tenant_id);
    checkId("stream_id", input.stream_id);
    checkLimit(input.limit);
    const from = input.from_revision;
    if (from !== null && (!Number.isSafeInteger(from) || from < 0)) {
      throw invalidArgument("from_revision must be a whole number >= 0", { field: "from_revision" });
    }
    const s = this.index.getStream(input.tenant_id, input.stream_id);
    if (!s || s.deleted) throw streamNotFound(input.stream_id);
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

  readAll(input: ReadAllInput): Promise<ReadAllResult> {
    try {
      return Promise.resolve(this.readAllSync(input));
    } catch (error) {
      return rejected(error);
    }
  }

  private readAllSync(input: ReadAllInput): ReadAllResult {
    if (this.closed) throw unavailable("the storage engine is closed");
    checkId("tenant_id", input.tenant_id);
    checkLimit(input.limit);
    const page: PageFill = { events: [], bytes: 0, bytesMax: pageBytesMax(input.bytes_max) };
    if (!Number.isSafeInteger(input.from_position) || input.from_position < 0) {
      throw invalidArgument("from_position must be a whole number >= 0", { field: "from_position" });
    }
    const tenant = this.index.tenants.get(input.tenant_id);
    if (!tenant) return { events: [], next_position: null, is_end: true };
    tenant.readsTotal++;
    const nowMs = this.now();
    const firstByStream = new Map<number, number>();
    // Bounded work per call: skipping unreadable events stops after this many.
    const scanMax = input.limit * 10 + 10_000;
    let scanned = 0;
    const storedBytes = input.stored_bytes === true;
    const segments = this.index.segments;
    const startSeg = this.index.segmentOf(input.from_position);
    let next: number | null = null;
    // The tenant's positions, segment by segment, from the one holding from_position.
    outer: for (let si = startSeg ? segments.indexOf(startSeg) : 0; si < segments.length; si++) {
      const seg = segments[si]!;
      const tenantSlot = seg.tenants.findIndex((t) => t.tenantId === input.tenant_id);
      if (tenantSlot < 0) continue;
      const count = seg.tenantCount(tenantSlot);
      let i = lowerBound(seg, tenantSlot, count, input.from_position);
      while (i < count) {
        const chunk = seg.tenantPositions(tenantSlot, i, Math.min(count, i + 1024));
        for (let c = 0; c < chunk.length; c++, i++) {
          const pos = chunk[c]!;
          if (page.events.length >= input.limit || scanned >= scanMax) {
            next = pos;
            break outer;
          }
          scanned++;
          const offset = seg.offsetOf(pos);
          if (offset === NO_OFFSET) continue;
          const s = seg.streams[seg.slotOf(pos)]!;
          let first = firstByStream.get(s.number);
          if (first === undefined) {
            first = s.firstReadable(nowMs);
            firstByStream.set(s.number, first);
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
          if (revision < first) continue;
          if (!this.addCheckedToPage(page, s, pos, revision, storedBytes, buf, o)) {
            next = pos;
            break outer;
          }
        }
      }
    }
    return { events: page.events, next_position: next, is_end: next === null };
  }

  private info(s: StreamState): StreamInfo {
    const first = s.firstReadable(this.now());
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
      retention: { ...s.retention },
    };
  }

  private summary(s: StreamState, nowMs: number): StreamSummary {
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

  getStreamInfo(tenantId: string, streamId: string): Promise<StreamInfo | null> {
    try {
      checkId("tenant_id", tenantId);
      checkId("stream_id", streamId);
    } catch (error) {
      return rejected(error);
    }
    const s = this.index.getStream(tenantId, streamId);
    return Promise.resolve(s ? this.info(s) : null);
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

  listStreams(input: ListStreamsInput): Promise<StreamList> {
    try {
      return Promise.resolve(this.listStreamsSync(input));
    } catch (error) {
      return rejected(error);
    }
  }

  private listStreamsSync(input: ListStreamsInput): StreamList {
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
      if (streams.length === input.limit) {
        more = true;
        break;
      }
      streams.push(this.summary(s, nowMs));
    }
    const lastReturned = streams[streams.length - 1];
    return {
      streams,
      next_cursor:
        more && lastReturned ? encodeCursor([lastReturned.tenant_id, lastReturned.stream_id]) : null,
    };
  }

  private usage(t: TenantState): TenantUsage {
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

  getTenantUsage(tenantId: string): Promise<TenantUsage | null> {
    const t = this.index.tenants.get(tenantId);
    return Promise.resolve(t ? this.usage(t) : null);
  }

  listTenants(input: ListTenantsInput): Promise<TenantList> {
    try {
      checkLimit(input.limit);
      const after = input.cursor === null ? null : decodeCursor(input.cursor, 1)[0]!;
      const ids = [...this.index.tenants.keys()].filter((id) => after === null || id > after).sort();
      const page = ids.slice(0, input.limit);
      const more = ids.length > input.limit;
      return Promise.resolve({
        tenants: page.map((id) => this.usage(this.index.tenants.get(id)!)),
        next_cursor: more ? encodeCursor([page[page.length - 1]!]) : null,
      });
    } catch (error) {
      return rejected(error);
    }
  }

  largestStreams(tenantId: string, count: number): Promise<StreamSummary[]> {
    const t = this.index.tenants.get(tenantId);
    if (!t) return Promise.resolve([]);
    const nowMs = this.now();
    const top = [...t.streams].sort((a, b) => b.bytes - a.bytes).slice(0, Math.max(0, count));
    return Promise.resolve(top.map((s) => this.summary(s, nowMs)));
  }

  // ---------------------------------------------------------------- operations

  /** Runs maintenance (verify, scavenge) one at a time, so verify never sees a segment swap. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.maintenance.then(fn);
    this.maintenance = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  verify(onProgress?: (progress: VerifyProgress) => void): Promise<VerifyResult> {
    if (this.closed) return rejected(unavailable("the storage engine is closed"));
    return this.exclusive(() => verifyLog(this.store, this.index, this.recordBytesMax, onProgress));
  }

  scavenge(options: { dry_run: boolean }): Promise<ScavengeResult> {
    if (this.closed || this.closing) return rejected(unavailable("the storage engine is shutting down"));
    const started = Date.now();
    if (options.dry_run) {
      const plan = planScavenge(this.index, this.store, this.now());
      return Promise.resolve({
        dry_run: true,
        events_removed: plan.events,
        bytes_reclaimed: plan.bytes,
        segments_rewritten: plan.bySegment.size,
        streams_affected: plan.streamsAffected,
        duration_ms: Date.now() - started,
      });
    }
    if (!this.writable) return rejected(unavailable("storage is not writable; restart to recover"));
    if (this.scavenging)
      return rejected(new EssError("SCAVENGE_IN_PROGRESS", "a scavenge is already running"));
    this.scavenging = true;
    return this.exclusive(() => this.runScavenge(started)).finally(() => {
      this.scavenging = false;
    });
  }

  private async runScavenge(started: number): Promise<ScavengeResult> {
    const plan = planScavenge(this.index, this.store, this.now());
    // Hide the planned events at once: what a scavenge removes never reappears, even if a
    // later retention change would make it readable again.
    for (const [s, bound] of plan.streams) if (bound > s.scavengedBefore) s.scavengedBefore = bound;
    // Every stream about to lose events gets a durable mark first, so the index built from the
    // log still knows its revision count (the events that carried it may all be going away) and
    // when it was created (its first events may be going away).
    const marks: Promise<StreamInfo>[] = [];
    for (const [s, bound] of plan.streams) {
      marks.push(
        new Promise<StreamInfo>((resolve, reject) => {
          const body: StreamMetaBody = { op: "scavenged", before: bound, created_at: s.createdAtMs };
          this.enqueue({
            kind: "meta",
            tenantId: s.tenant.tenantId,
            streamId: s.streamId,
            body,
            bytes: 512,
            resolve,
            reject,
          });
        }),
      );
    }
    await Promise.all(marks);
    let removed = 0;
    let reclaimed = 0;
    let rewritten = 0;
    const segmentNos = [...plan.bySegment.keys()].sort((a, b) => a - b);
    for (const [index, segmentNo] of segmentNos.entries()) {
      const segment = this.store.segments.get(segmentNo);
      if (!segment || !segment.sealed) continue;
      if (this.beforeScavengeSegment)
        await this.beforeScavengeSegment({ segment: segment.name, index, total: segmentNos.length });
      const before = segment.size;
      const r = await writeRewrittenSegment(this.store, segment, plan.bySegment.get(segmentNo)!);
      await installRewrittenSegment(this.store, r);
      const rebuilt = swapToRewrittenSegment(this.store, this.index, r, this.recordBytesMax, this.log);
      this.persistSealedIndex(segment, rebuilt);
      removed += r.dropped.length;
      reclaimed += before - r.newSize;
      rewritten++;
    }
    const result: ScavengeResult = {
      dry_run: false,
      events_removed: removed,
      bytes_reclaimed: reclaimed,
      segments_rewritten: rewritten,
      streams_affected: plan.streamsAffected,
      duration_ms: Date.now() - started,
    };
    this.lastScavenge = { ...result, finished_at: new Date(this.now()).toISOString() };
    try {
      saveLastScavenge(this.dataDir, this.lastScavenge);
    } catch (error) {
      // The scavenge itself is done and durable; only its report may be missing after a restart.
      this.log.error("could not save the last scavenge's result", { error: describeIoError(error) });
    }
    // The rewritten segments' index files, before the run answers.
    await this.indexWrites;
    this.log.info("scavenge finished", { ...result });
    return result;
  }

  status(): Promise<StorageStatus> {
    const segments = this.store.ordered();
    const memory = this.index.memoryBytes();
    const events = this.index.eventsStored;
    let liveStreams = 0;
    for (const t of this.index.tenants.values()) liveStreams += t.liveStreams;
    return Promise.resolve({
      engine: "log",
      events_total: events,
      streams_total: liveStreams,
      bytes_total: segments.reduce((sum, s) => sum + s.size, 0),
      last_position: this.index.nextPosition - 1,
      last_scavenge: this.lastScavenge,
      data_dir: this.dataDir,
      segments: segments.map((s) => ({
        name: s.name,
        base_position: s.basePosition,
        records: s.records,
        bytes: s.size,
        sealed: s.sealed,
      })),
      writer: {
        batches: this.stats.batches,
        fsyncs: this.stats.fsyncs,
        avg_batch_events: this.stats.batches > 0 ? this.stats.events / this.stats.batches : 0,
        queue_depth: this.queue.length,
      },
      index: {
        entries: events,
        memory_bytes: memory,
        bytes_per_event: events > 0 ? memory / events : 0,
        checkpoint_position: this.indexedPosition,
      },
    });
  }

  isWritable(): boolean {
    return this.writable && !this.closing;
  }

  isDamaged(): boolean {
    return this.damaged;
  }

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
  private readChecked(segmentNo: number, offset: number): Buffer | null {
    let buf: Buffer;
    try {
      buf = this.store.readRecord(segmentNo, offset);
    } catch (error) {
      if (!(error instanceof DamagedRecordError)) throw error;
      this.noteDamaged(segmentNo, offset, error.reason);
      return null;
    }
    const o = this.store.recordOffset;
    const block = this.store.recordBlock;
    // Checked once per read from the file: a cached block's bytes do not change.
    if (block !== null && isRecordChecked(block, o)) return buf;
    // readRecord bounded the length by the bytes in `buf`; the checksum covers [8, length).
    if (crc32c(buf, o + 8, o + buf.readUInt32LE(o)) !== buf.readUInt32LE(o + 4)) {
      this.noteDamaged(segmentNo, offset, "checksum");
      return null;
    }
    if (block !== null) markRecordChecked(block, o);
    return buf;
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

  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  close(): Promise<void> {
    this.closePromise ??= this.closeOnce();
    return this.closePromise;
  }

  private async closeOnce(): Promise<void> {
    this.closing = true;
    while (this.writing) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    await this.maintenance;
    await this.fingerprintFill;
    this.closed = true;
    if (this.writable) {
      const active = this.store.active;
      try {
        if (active) this.store.trimRoom(active);
      } catch (error) {
        // The next start reads the room as zeros, so nothing is lost: only say so.
        this.log.warn("could not cut the active segment's unused room at close", {
          segment: active?.name,
          error: describeIoError(error),
        });
      }
    }
    await this.indexWrites;
    if (this.writable) {
      // The active segment's index too, so the next start-up reads only what is appended after.
      const active = this.store.active;
      if (active) {
        try {
          await writeSegmentIndexFile(
            this.dataDir,
            active.name,
            encodeSegmentIndex(this.activeIndex, active.size),
          );
        } catch (error) {
          this.log.warn("could not save the active segment's index; the next start-up reads the segment", {
            error: describeIoError(error),
          });
        }
      }
      this.saveState();
    }
    for (const seg of this.index.segments) if (seg instanceof FileSegmentIndex) seg.close();
    this.store.closeAll();
    this.lock.release();
  }
}

export function openLogEngine(options: LogEngineOptions): Promise<LogEngine> {
  return LogEngine.open(options);
}

/**
 * The event-id fingerprints of an append's events, computed once: the id check (findRepeat)
 * and the index (applyGroup) both need them.
 */
function fingerprintsOf(op: AppendOp): Uint32Array {
  if (op.fingerprints === undefined) {
    const { tenant_id: tenantId, stream_id: streamId, events } = op.input;
    op.fingerprints = Uint32Array.from(events, (e) => eventFingerprint(tenantId, streamId, e.event_id));
  }
  return op.fingerprints;
}

/** The first of a tenant's `count` positions in `seg` at or after `position`. */
function lowerBound(seg: SegmentIndex, tenantSlot: number, count: number, position: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seg.tenantPositions(tenantSlot, mid, mid + 1)[0]! < position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Resolves after the I/O callbacks already due in this event-loop turn have run. */
function endOfTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

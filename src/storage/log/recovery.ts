/**
 * Start-up: the index of each segment, from its index file or from reading the segment, and the
 * replay of the last segment past what its saved index covers (whole batches only).
 *
 * Invariants: only the last segment can have a torn tail (a batch never spans segments, and a
 * new segment is created only after the previous one's last write was durable). In the last
 * segment, everything after the end of the last complete batch (FLAG_BATCH_END) is cut, and
 * one log line says how many bytes. A bad record inside a sealed segment is bit rot, not a
 * torn write: it is logged and skipped (verify reports it), and the rest of the log is kept.
 * A bad record in the last segment that cannot be a torn write (tornOrDamaged) is damage to
 * data that may have been acknowledged: start-up refuses to cut it and stops, naming it.
 */
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "../../logger.js";
import { writeFileAtomic } from "./auth-store.js";
import { eventFingerprint, type FingerprintPairs } from "./fingerprint-set.js";
import { changesUpdatedAt, type LogIndex, type StreamMetaBody } from "./log-index.js";
import {
  checkRecord,
  decodeRecord,
  decodeSegmentHeader,
  FLAG_BATCH_END,
  KIND_EVENT,
  KIND_STREAM_META,
  partText,
  RECORD_HEADER_BYTES,
  SEGMENT_HEADER_BYTES,
  type RecordFields,
} from "./record-codec.js";
import { encodeSegmentIndex } from "./index-file-encoding.js";
import { indexFileName, indexFilePath } from "./index-file-format.js";
import { openSegmentIndexFile, type IndexBlockCache } from "./segment-index-file.js";
import { MemorySegmentIndex } from "./segment-index.js";
import { parseSegmentFileName, readFully, Segment, type SegmentStore } from "./segment-store.js";

export interface ReplayStats {
  segmentsRead: number;
  recordsApplied: number;
  bytesCut: number;
  corruptRecords: number;
  /** Sealed segments whose index came from its file, and those rebuilt from the log. */
  indexFilesUsed: number;
  indexFilesBuilt: number;
  /** Of those rebuilt: files of another format version (an upgrade), logged once, not each. */
  indexFilesOfOtherFormat: number;
}

interface PendingRecord {
  fields: RecordFields;
  offset: number;
  length: number;
}

/**
 * Adds one whole record to the index of the segment it sits in. `fingerprint` is the caller's
 * room for one fingerprint pair, reused from record to record.
 */
function indexRecord(seg: MemorySegmentIndex, r: PendingRecord, fingerprint: FingerprintPairs): void {
  const f = r.fields;
  const slot = seg.slotFor(f.tenant, f.stream, f.createdAtMs);
  if (f.kind === KIND_EVENT) {
    eventFingerprint(f.tenant, f.stream, f.eventId, fingerprint, 0);
    seg.addEvent(
      slot,
      f.revision,
      f.position,
      f.createdAtMs,
      r.offset,
      r.length,
      fingerprint[0]!,
      fingerprint[1]!,
      (f.flags & FLAG_BATCH_END) !== 0,
    );
  } else if (f.kind === KIND_STREAM_META) {
    const body = partText(f.data);
    seg.addMeta(slot, f.revision, f.createdAtMs, body, changesUpdatedAt(JSON.parse(body) as StreamMetaBody));
  }
}

/** Whether an intact record closing a batch starts anywhere in `buf[from, end)`. */
function intactBatchEndAfter(buf: Buffer, from: number, end: number, recordBytesMax: number): boolean {
  for (let at = from; at + RECORD_HEADER_BYTES <= end; at++) {
    // Cheap tests first: almost every offset fails on its length or kind byte.
    const length = buf.readUInt32LE(at);
    if (length < RECORD_HEADER_BYTES || length > recordBytesMax || at + length > end) continue;
    const kind = buf[at + 8];
    if ((kind !== KIND_EVENT && kind !== KIND_STREAM_META) || (buf[at + 9]! & FLAG_BATCH_END) === 0) continue;
    if (checkRecord(buf, at, end, recordBytesMax).ok) return true;
  }
  return false;
}

/**
 * A record at `offset` of the last segment failed its check. A torn write (the process or the
 * machine stopped inside the last group's write) leaves a prefix of the group's bytes followed
 * by the zeros of the room kept ahead (SegmentStore.reserve) or the end of the file: so the
 * record is either short, or ends in a zero byte. An intact record ending in a non-zero byte
 * (every record ends with its JSON data, whose last byte is never 0) that fails its checksum,
 * or any bad record followed by an intact batch, is not: the bytes were damaged after they
 * were written, or (power lost, pages written out of order) the group was torn inside. Start-up
 * cannot tell whether such bytes were acknowledged (the writer fsyncs a group before it writes
 * the next), so it does not cut them. A damaged length field in the last record stays
 * indistinguishable from a tear, and is cut as one.
 */
function isDamageNotTear(
  buf: Buffer,
  offset: number,
  end: number,
  check: { reason: string; length: number },
  recordBytesMax: number,
): boolean {
  const whole = (check.reason === "checksum" || check.reason === "kind") && offset + check.length <= end;
  if (whole && buf[offset + check.length - 1] !== 0) return true;
  return intactBatchEndAfter(buf, offset + 1, end, recordBytesMax);
}

function isAllZero(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buf[i] !== 0) return false;
  return true;
}

/** Lists segment files, oldest first. */
export function listSegmentFiles(dir: string): { segmentNo: number; name: string }[] {
  const found: { segmentNo: number; name: string }[] = [];
  for (const name of fs.readdirSync(dir)) {
    const segmentNo = parseSegmentFileName(name);
    if (segmentNo !== null) found.push({ segmentNo, name });
  }
  return found.sort((a, b) => a.segmentNo - b.segmentNo);
}

function readWhole(fd: number, size: number): { buf: Buffer; got: number } {
  const buf = Buffer.allocUnsafe(size);
  return { buf, got: readFully(fd, buf, 0) };
}

/**
 * Builds a sealed segment's index from its bytes (a missing or stale index file, or a damaged
 * block of one). Every whole record is indexed; a bad record is logged and skipped, as at
 * start-up (it is bit rot, not a torn write).
 */
export function indexSealedSegment(
  segment: Segment,
  recordBytesMax: number,
  log: Logger,
  stats?: { corruptRecords: number },
): MemorySegmentIndex {
  const { buf, got } = readWhole(segment.fd, segment.size);
  const seg = new MemorySegmentIndex(segment.segmentNo, segment.generation, segment.basePosition);
  const fingerprint: FingerprintPairs = new Uint32Array(2);
  let offset = SEGMENT_HEADER_BYTES;
  while (offset < got) {
    const check = checkRecord(buf, offset, got, recordBytesMax);
    if (!check.ok) {
      log.error("corrupt record in a sealed segment skipped (run ess verify)", {
        segment: segment.name,
        offset,
        reason: check.reason,
      });
      if (stats) stats.corruptRecords++;
      if (check.reason === "checksum" && check.length > 0) {
        offset += check.length;
        continue;
      }
      break;
    }
    indexRecord(seg, { fields: decodeRecord(buf, offset), offset, length: check.length }, fingerprint);
    offset += check.length;
  }
  return seg;
}

/**
 * A function that builds `segment`'s index from its bytes (for a FileSegmentIndex whose block
 * fails its checksum). Made apart, so the closure keeps only what it needs: one made where an
 * in-memory index is in scope would keep that alive as long as the file's index lives.
 */
export function rebuilderOf(segment: Segment, recordBytesMax: number, log: Logger): () => MemorySegmentIndex {
  return () => indexSealedSegment(segment, recordBytesMax, log);
}

/** What the start-up works with and counts, handed to each of its steps. */
interface Replay {
  store: SegmentStore;
  index: LogIndex;
  recordBytesMax: number;
  log: Logger;
  cache: IndexBlockCache;
  readOnly: boolean;
  stats: ReplayStats;
}

/**
 * Opens every segment file into `store` and builds `index`: a sealed segment from its index
 * file when that file describes the segment as it is on disk, otherwise by reading the segment
 * (and, unless read-only, writing its index file); the last segment always by reading it, with
 * the torn-tail rules above. Returns the active segment's index (null when there is no segment).
 */
export function openAndReplay(
  store: SegmentStore,
  index: LogIndex,
  recordBytesMax: number,
  log: Logger,
  cache: IndexBlockCache,
  readOnly = false,
): { stats: ReplayStats; active: MemorySegmentIndex | null } {
  const stats: ReplayStats = {
    segmentsRead: 0,
    recordsApplied: 0,
    bytesCut: 0,
    corruptRecords: 0,
    indexFilesUsed: 0,
    indexFilesBuilt: 0,
    indexFilesOfOtherFormat: 0,
  };
  const replay: Replay = { store, index, recordBytesMax, log, cache, readOnly, stats };
  let active: MemorySegmentIndex | null = null;
  const files = listSegmentFiles(store.dir);
  for (let i = 0; i < files.length; i++) {
    const isLast = i === files.length - 1;
    const segment = openSegment(replay, files[i]!, isLast);
    if (segment === null) continue;
    if (isLast) active = replayLastSegment(replay, segment);
    else indexSealed(replay, segment);
  }
  index.finishAttaching();
  if (stats.indexFilesOfOtherFormat > 0) {
    // An upgrade (docs/log-engine.md, "Upgrading"): one line, not a warning per segment.
    log.info("segments read: their index files were of another format version", {
      segments: stats.indexFilesOfOtherFormat,
    });
  }
  return { stats, active };
}

/**
 * Opens a segment file and checks its header, adding it to the store. null for a last segment
 * whose creation was torn (removed, unless read-only); a bad header anywhere else stops start-up.
 */
function openSegment(
  replay: Replay,
  file: { segmentNo: number; name: string },
  isLast: boolean,
): Segment | null {
  const { store, index, readOnly, stats, log } = replay;
  const { segmentNo, name } = file;
  const filePath = path.join(store.dir, name);
  const fd = fs.openSync(filePath, readOnly ? "r" : "r+");
  const size = fs.fstatSync(fd).size;
  const headerBuf = Buffer.alloc(SEGMENT_HEADER_BYTES);
  fs.readSync(fd, headerBuf, 0, SEGMENT_HEADER_BYTES, 0);
  const header = decodeSegmentHeader(headerBuf);
  if (!header || header.segmentNo !== segmentNo) {
    if (isLast && size <= SEGMENT_HEADER_BYTES && !readOnly) {
      // A segment whose creation was torn: it never held a record.
      fs.closeSync(fd);
      fs.unlinkSync(filePath);
      stats.bytesCut += size;
      log.warn("removed a segment whose header was never completed", { segment: name, bytes_cut: size });
      return null;
    }
    fs.closeSync(fd);
    throw new Error(
      `segment ${name} has a corrupt header; the data directory needs an operator (run ess verify)`,
    );
  }
  const segment = new Segment(segmentNo, header.generation, header.basePosition, name, filePath, fd, size);
  segment.sealed = !isLast;
  store.add(segment);
  if (header.basePosition > index.nextPosition) index.nextPosition = header.basePosition;
  return segment;
}

/**
 * A sealed segment's index: from its index file when that describes the segment as it is,
 * otherwise read from the segment (and, unless read-only, written to its index file, which then
 * serves it).
 */
function indexSealed(replay: Replay, segment: Segment): void {
  const { store, index, recordBytesMax, log, cache, readOnly, stats } = replay;
  const { segmentNo, generation, name, size } = segment;
  const rebuild = rebuilderOf(segment, recordBytesMax, log);
  const idxPath = indexFilePath(store.dir, name);
  const expect = { segmentNo, generation, segmentBytes: size };
  const opened = openSegmentIndexFile(idxPath, expect, cache, rebuild);
  if (opened.index) {
    index.attach(opened.index);
    segment.records = opened.index.events;
    stats.indexFilesUsed++;
    return;
  }
  if (opened.otherFormat) stats.indexFilesOfOtherFormat++;
  else if (opened.reason !== "no index file")
    log.warn("segment index file rebuilt from the log", { segment: name, reason: opened.reason });
  stats.segmentsRead++;
  const built = indexSealedSegment(segment, recordBytesMax, log, stats);
  if (opened.otherFormat) built.keepAppendsOf(opened.otherFormat);
  stats.recordsApplied += built.events + built.metas.length;
  index.attach(built);
  segment.records = built.events;
  if (readOnly) return;
  writeFileAtomic(store.dir, indexFileName(name), encodeSegmentIndex(built, size));
  stats.indexFilesBuilt++;
  const reopened = openSegmentIndexFile(idxPath, expect, cache, rebuild);
  if (reopened.index) index.replaceSegment(built, reopened.index);
}

/**
 * The last segment: its index as saved at the last clean close (if any), then every whole batch
 * after it, then the torn-tail rules. Returns its index, attached as the active one.
 */
function replayLastSegment(replay: Replay, segment: Segment): MemorySegmentIndex {
  const { index, stats } = replay;
  stats.segmentsRead++;
  const { seg, start } = savedActiveIndex(replay, segment);
  const size = segment.size;
  const { buf, got } = readWhole(segment.fd, size);
  const end = replayBatches(replay, segment, seg, buf, got, start);
  if (end < size && isAllZero(buf, end, got)) {
    // Unused room the writer kept ahead of the end (SegmentStore.reserve): not a torn tail.
    segment.fileBytes = size;
  } else if (end < size) {
    cutTornTail(replay, segment, end);
  }
  segment.size = end;
  segment.records = seg.events;
  index.attach(seg);
  return seg;
}

/**
 * The active segment's index as it was at the last clean close, and the offset the log after
 * it starts at: only that is read. An empty index from the segment's header when none is saved.
 */
function savedActiveIndex(replay: Replay, segment: Segment): { seg: MemorySegmentIndex; start: number } {
  const { segmentNo, generation, basePosition } = segment;
  const saved = openSegmentIndexFile(
    indexFilePath(replay.store.dir, segment.name),
    { segmentNo, generation, segmentBytes: segment.size, prefix: true },
    replay.cache,
    () => new MemorySegmentIndex(segmentNo, generation, basePosition),
  );
  if (saved.index) {
    const loaded = MemorySegmentIndex.fromFile(saved.index);
    saved.index.close();
    if (loaded) return { seg: loaded, start: saved.index.segmentBytes };
  }
  return { seg: new MemorySegmentIndex(segmentNo, generation, basePosition), start: SEGMENT_HEADER_BYTES };
}

/**
 * Indexes the whole batches of `buf[start, got)` into `seg` and returns the end of the last one.
 * A bad record stops the replay there (a torn tail), unless it cannot be a tear
 * (isDamageNotTear): then start-up stops, or, read-only (ess verify), it is reported and what
 * can be framed after it stays in view.
 */
function replayBatches(
  replay: Replay,
  segment: Segment,
  seg: MemorySegmentIndex,
  buf: Buffer,
  got: number,
  start: number,
): number {
  const { recordBytesMax, log, readOnly, stats } = replay;
  const name = segment.name;
  let offset = start;
  let batchEnd = start;
  let pending: PendingRecord[] = [];
  let damagedInLast = false;
  const fingerprint: FingerprintPairs = new Uint32Array(2);
  while (offset < got) {
    const check = checkRecord(buf, offset, got, recordBytesMax);
    if (!check.ok) {
      if (!isDamageNotTear(buf, offset, got, check, recordBytesMax)) break;
      if (!readOnly) {
        fs.closeSync(segment.fd);
        log.error("damaged record before the end of the log; start-up does not cut it", {
          segment: name,
          offset,
          reason: check.reason,
        });
        throw new Error(
          `segment ${name} has a damaged record at offset ${offset} (${check.reason}) that may hold ` +
            `acknowledged events, so start-up does not cut it; the data directory needs an operator ` +
            `(run ess verify; see docs/log-engine.md, "Damaged records")`,
        );
      }
      // Read-only (ess verify): report and go on, changing nothing.
      damagedInLast = true;
      stats.corruptRecords++;
      log.error("damaged record before the end of the log (service start-up will refuse to cut it)", {
        segment: name,
        offset,
        reason: check.reason,
      });
      if (check.reason === "checksum" && check.length > 0) {
        offset += check.length;
        continue;
      }
      break;
    }
    pending.push({ fields: decodeRecord(buf, offset), offset, length: check.length });
    offset += check.length;
    if ((buf[offset - check.length + 9]! & FLAG_BATCH_END) !== 0) {
      for (const r of pending) indexRecord(seg, r, fingerprint);
      stats.recordsApplied += pending.length;
      pending = [];
      batchEnd = offset;
    }
  }
  if (damagedInLast && pending.length > 0) {
    for (const r of pending) indexRecord(seg, r, fingerprint);
    stats.recordsApplied += pending.length;
    batchEnd = offset;
  }
  // Read-only past a damaged record: what was framed stays in view, for verify to report.
  if (damagedInLast) batchEnd = Math.max(batchEnd, offset);
  return batchEnd;
}

/** Cuts the last segment after its last whole batch; read-only, only reports the torn bytes. */
function cutTornTail(replay: Replay, segment: Segment, batchEnd: number): void {
  const cut = segment.size - batchEnd;
  replay.stats.bytesCut += cut;
  if (replay.readOnly) {
    // Offline tools change nothing: the torn bytes stay and are only reported.
    replay.log.warn("the log has a torn tail (start-up of the service will cut it)", {
      segment: segment.name,
      offset: batchEnd,
      bytes_torn: cut,
    });
    return;
  }
  fs.ftruncateSync(segment.fd, batchEnd);
  fs.fdatasyncSync(segment.fd);
  segment.fileBytes = batchEnd;
  replay.log.warn("cut a torn tail at start-up", { segment: segment.name, offset: batchEnd, bytes_cut: cut });
}

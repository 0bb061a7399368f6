/**
 * Start-up replay: reads segment files from a starting address (the checkpoint's, or the
 * beginning) and applies every whole batch to the index.
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
import { eventIdFingerprint, type LogIndex, type StreamState } from "./log-index.js";
import {
  checkRecord,
  decodeRecord,
  decodeSegmentHeader,
  FLAG_BATCH_END,
  KIND_EVENT,
  KIND_STREAM_META,
  RECORD_HEADER_BYTES,
  SEGMENT_HEADER_BYTES,
  type RecordFields,
} from "./record-codec.js";
import { parseSegmentFileName, Segment, type SegmentStore } from "./segment-store.js";

/** Body of a stream-metadata record (JSON in the record's data field). */
export type StreamMetaBody =
  | {
      op: "retention";
      retention: { max_age_seconds: number | null; max_count: number | null; truncate_before: number | null };
    }
  | { op: "delete"; before: number }
  /** Written by scavenge before it removes every event of a stream. */
  | { op: "scavenged"; before: number };

export function applyStreamMeta(index: LogIndex, s: StreamState, body: StreamMetaBody, atMs: number): void {
  if (body.op === "retention") {
    s.retention = { ...body.retention };
    s.updatedAtMs = atMs;
  } else if (body.op === "delete") {
    index.setDeleted(s, body.before, atMs);
  } else {
    if (body.before > s.count) s.count = body.before;
    if (body.before > s.scavengedBefore) s.scavengedBefore = body.before;
  }
}

export interface ReplayStats {
  segmentsRead: number;
  recordsApplied: number;
  bytesCut: number;
  corruptRecords: number;
}

interface PendingRecord {
  fields: RecordFields;
  offset: number;
  length: number;
}

function applyRecord(index: LogIndex, segment: Segment, r: PendingRecord): void {
  const f = r.fields;
  if (f.createdAtMs > index.lastCreatedAtMs) index.lastCreatedAtMs = f.createdAtMs;
  if (f.kind === KIND_EVENT) {
    const s = index.getOrCreateStream(f.tenant, f.stream, f.createdAtMs);
    if (s.storedEvents === 0 && s.count === 0) s.createdAtMs = f.createdAtMs;
    index.addEvent(
      s,
      f.revision,
      f.position,
      f.createdAtMs,
      segment.segmentNo,
      r.offset,
      r.length,
      eventIdFingerprint(f.eventId),
    );
    segment.records++;
    if ((f.flags & FLAG_BATCH_END) !== 0) {
      s.tenant.appendsTotal++;
      s.tenant.lastAppendAtMs = f.createdAtMs;
    }
  } else if (f.kind === KIND_STREAM_META) {
    const s = index.getOrCreateStream(f.tenant, f.stream, f.createdAtMs);
    // A meta record carries the stream's revision count when written: keeps revisions going
    // even when scavenge removed the events themselves.
    if (f.revision > s.count) s.count = f.revision;
    applyStreamMeta(index, s, JSON.parse(f.data) as StreamMetaBody, f.createdAtMs);
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

/** Reads the generation of a segment file's header, or null when the header is bad. */
export function readSegmentGeneration(filePath: string): { generation: number; size: number } | null {
  const fd = fs.openSync(filePath, "r");
  try {
    const buf = Buffer.alloc(SEGMENT_HEADER_BYTES);
    fs.readSync(fd, buf, 0, SEGMENT_HEADER_BYTES, 0);
    const header = decodeSegmentHeader(buf);
    return header ? { generation: header.generation, size: fs.fstatSync(fd).size } : null;
  } finally {
    fs.closeSync(fd);
  }
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

/**
 * Opens every segment file into `store` and replays records at or after
 * (`fromSegmentNo`, `fromOffset`) into `index`. Segments before the start are opened only
 * (their sizes are taken from the file; they were covered by the checkpoint).
 */
export function openAndReplay(
  store: SegmentStore,
  index: LogIndex,
  fromSegmentNo: number,
  fromOffset: number,
  recordBytesMax: number,
  log: Logger,
  recordsBySegment: Map<number, number> = new Map(),
  readOnly = false,
): ReplayStats {
  const stats: ReplayStats = { segmentsRead: 0, recordsApplied: 0, bytesCut: 0, corruptRecords: 0 };
  const files = listSegmentFiles(store.dir);
  for (let i = 0; i < files.length; i++) {
    const { segmentNo, name } = files[i]!;
    const isLast = i === files.length - 1;
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
        continue;
      }
      fs.closeSync(fd);
      throw new Error(
        `segment ${name} has a corrupt header; the data directory needs an operator (run ess verify)`,
      );
    }
    const segment = new Segment(segmentNo, header.generation, header.basePosition, name, filePath, fd, size);
    segment.sealed = !isLast;
    segment.records = recordsBySegment.get(segmentNo) ?? 0;
    store.add(segment);
    if (header.basePosition > index.nextPosition) index.nextPosition = header.basePosition;
    if (segmentNo < fromSegmentNo) continue;
    const start =
      segmentNo === fromSegmentNo ? Math.max(fromOffset, SEGMENT_HEADER_BYTES) : SEGMENT_HEADER_BYTES;
    stats.segmentsRead++;
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = fs.readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    let offset = start;
    let batchEnd = start;
    let pending: PendingRecord[] = [];
    let damagedInLast = false;
    while (offset < got) {
      const check = checkRecord(buf, offset, got, recordBytesMax);
      if (!check.ok) {
        if (isLast && !isDamageNotTear(buf, offset, got, check, recordBytesMax)) break;
        if (isLast && !readOnly) {
          fs.closeSync(fd);
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
        // Read-only (ess verify): report and go on as in a sealed segment, changing nothing.
        damagedInLast ||= isLast;
        stats.corruptRecords++;
        const what = isLast
          ? "damaged record before the end of the log (service start-up will refuse to cut it)"
          : "corrupt record in a sealed segment skipped (run ess verify)";
        log.error(what, {
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
        for (const r of pending) applyRecord(index, segment, r);
        stats.recordsApplied += pending.length;
        pending = [];
        batchEnd = offset;
      }
    }
    if ((!isLast || damagedInLast) && pending.length > 0) {
      // A sealed segment is never torn, but a scavenge may leave a batch whose end was
      // corrupted: keep the whole records we have.
      for (const r of pending) applyRecord(index, segment, r);
      stats.recordsApplied += pending.length;
      batchEnd = offset;
    }
    // Read-only past a damaged record: what was framed stays in view, for verify to report.
    if (damagedInLast) batchEnd = Math.max(batchEnd, offset);
    if (isLast && batchEnd < size && isAllZero(buf, batchEnd, got)) {
      // Unused room the writer kept ahead of the end (SegmentStore.reserve): not a torn tail.
      segment.fileBytes = size;
    } else if (isLast && batchEnd < size) {
      const cut = size - batchEnd;
      stats.bytesCut += cut;
      if (readOnly) {
        // Offline tools change nothing: the torn bytes stay and are only reported.
        log.warn("the log has a torn tail (start-up of the service will cut it)", {
          segment: name,
          offset: batchEnd,
          bytes_torn: cut,
        });
      } else {
        fs.ftruncateSync(fd, batchEnd);
        fs.fdatasyncSync(fd);
        segment.fileBytes = batchEnd;
        log.warn("cut a torn tail at start-up", { segment: name, offset: batchEnd, bytes_cut: cut });
      }
    }
    segment.size = isLast ? batchEnd : size;
  }
  return stats;
}

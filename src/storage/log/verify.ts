/**
 * Verify: re-reads every record of every segment, checks every header, length and CRC32C, and
 * checks that the index and the log agree in both directions (every event record is where the
 * index says its position is, and every position the index knows is found in the log).
 *
 * It runs online: the caller keeps scavenge out while it runs (segment files then only grow at
 * the end of the active segment), and each segment is checked up to the durable size it had
 * when its turn came, in one synchronous step, so appends cannot change what it compares.
 * Errors are bounded (errorsMax); each names the segment file and the byte offset.
 */
import type { VerifyError, VerifyResult } from "../../contract/bodies.js";
import type { VerifyProgress } from "../engine.js";
import type { LogIndex } from "./log-index.js";
import {
  checkRecord,
  decodeSegmentHeader,
  KIND_EVENT,
  RECORD_HEADER_BYTES,
  SEGMENT_HEADER_BYTES,
  type FrameCheck,
} from "./record-codec.js";
import { readFully, type Segment, type SegmentStore } from "./segment-store.js";

export const verifyErrorsMax = 1000;

/** What one verify run has found so far. */
class Findings {
  readonly errors: VerifyError[] = [];
  /** Positions found in the log where the index says they are (1 at their position). */
  readonly seen: Uint8Array;
  /** Addresses ("segment:offset") of records that failed their own check (not reported again as missing). */
  readonly failedAddresses = new Set<string>();
  recordsChecked = 0;

  /** `lastPosition`: the index's next position when the run started. */
  constructor(readonly lastPosition: number) {
    this.seen = new Uint8Array(lastPosition);
  }

  report(e: VerifyError): void {
    if (this.errors.length < verifyErrorsMax) this.errors.push(e);
  }
}

function readSegment(segment: Segment, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  const got = readFully(segment.fd, buf, 0);
  return got === size ? buf : buf.subarray(0, got);
}

export async function verifyLog(
  store: SegmentStore,
  index: LogIndex,
  recordBytesMax: number,
  onProgress?: (progress: VerifyProgress) => void,
): Promise<VerifyResult> {
  const started = Date.now();
  const segments = store.ordered();
  const bytesTotal = segments.reduce((sum, s) => sum + s.size, 0);
  const found = new Findings(index.nextPosition);
  let bytesChecked = 0;
  let segmentsChecked = 0;
  onProgress?.({ bytes_checked: 0, bytes_total: bytesTotal });
  for (const segment of segments) {
    // One synchronous step per segment: appends cannot interleave with the comparison.
    const size = segment.size;
    checkSegment(found, segment, size, index, recordBytesMax);
    segmentsChecked++;
    bytesChecked += size;
    onProgress?.({ bytes_checked: bytesChecked, bytes_total: bytesTotal });
    // Let appends and reads run between segments.
    await new Promise((resolve) => setImmediate(resolve));
  }
  checkIndexedPositionsFound(found, store, index);
  return {
    ok: found.errors.length === 0,
    segments_checked: segmentsChecked,
    records_checked: found.recordsChecked,
    bytes_checked: bytesChecked,
    errors: found.errors,
    duration_ms: Date.now() - started,
  };
}

/** Checks one segment's first `size` bytes: its header, then every record, one after another. */
function checkSegment(
  found: Findings,
  segment: Segment,
  size: number,
  index: LogIndex,
  recordBytesMax: number,
): void {
  const buf = readSegment(segment, size);
  const name = segment.name;
  if (buf.length < size) {
    found.report({
      segment: name,
      offset: buf.length,
      kind: "short_file",
      message: `the file ends at ${buf.length}, expected ${size} bytes`,
    });
  }
  const header = decodeSegmentHeader(buf);
  if (!header || header.segmentNo !== segment.segmentNo) {
    found.report({
      segment: name,
      offset: 0,
      kind: "header",
      message: "the segment header is missing or corrupt",
    });
  }
  let offset = SEGMENT_HEADER_BYTES;
  let previousPosition = 0;
  while (offset < buf.length) {
    const check = checkRecord(buf, offset, buf.length, recordBytesMax);
    if (!check.ok) {
      found.report({ segment: name, offset, kind: check.reason, message: frameFailureMessage(check) });
      found.failedAddresses.add(`${segment.segmentNo}:${offset}`);
      if (check.reason === "checksum" || check.reason === "kind") {
        offset += check.length;
        continue;
      }
      // The length cannot be trusted: nothing after it in this segment can be framed.
      break;
    }
    found.recordsChecked++;
    if (buf[offset + 8] === KIND_EVENT) {
      const position = buf.readDoubleLE(offset + 16);
      if (position <= previousPosition) {
        found.report({
          segment: name,
          offset,
          kind: "position_order",
          message: `position ${position} after ${previousPosition}`,
        });
      }
      previousPosition = position;
      checkEventIndexed(found, index, segment, buf, offset);
    }
    offset += check.length;
  }
}

function frameFailureMessage(check: FrameCheck & { ok: false }): string {
  switch (check.reason) {
    case "checksum":
      return "the record's CRC32C does not match its bytes";
    case "short":
      return "the segment ends inside a record";
    case "kind":
      return "unknown record kind";
    case "length":
      return `impossible record length ${check.length}`;
  }
}

/**
 * Checks that the index has the event record at `buf[offset]` where it is: its position in this
 * segment at this offset, under the record's stream and revision.
 */
function checkEventIndexed(
  found: Findings,
  index: LogIndex,
  segment: Segment,
  buf: Buffer,
  offset: number,
): void {
  const name = segment.name;
  const position = buf.readDoubleLE(offset + 16);
  const revision = buf.readDoubleLE(offset + 24);
  if (position >= index.nextPosition || position < 1 || !Number.isSafeInteger(position)) {
    found.report({
      segment: name,
      offset,
      kind: "not_indexed",
      message: `position ${position} is not in the index`,
    });
    return;
  }
  if (position < found.lastPosition) found.seen[position] = 1;
  const located = index.locate(position);
  if (!located || index.foundSegmentNo !== segment.segmentNo || index.foundOffset !== offset) {
    found.report({
      segment: name,
      offset,
      kind: "index_mismatch",
      message: located
        ? `position ${position}: the index points at segment ${index.foundSegmentNo} offset ${index.foundOffset}`
        : `position ${position}: the index has no event there`,
    });
    return;
  }
  const s = index.foundStream;
  const tenantBytes = buf.readUInt16LE(offset + 10);
  const streamBytes = buf.readUInt16LE(offset + 12);
  const p = offset + RECORD_HEADER_BYTES;
  const tenant = buf.toString("utf8", p, p + tenantBytes);
  const stream = buf.toString("utf8", p + tenantBytes, p + tenantBytes + streamBytes);
  if (
    !s ||
    s.tenant.tenantId !== tenant ||
    s.streamId !== stream ||
    index.positionOf(s, revision) !== position
  ) {
    found.report({
      segment: name,
      offset,
      kind: "index_mismatch",
      message: `position ${position} (${tenant}/${stream} revision ${revision}) is indexed under another stream or revision`,
    });
  }
}

/** The other direction: every position the index knows was found where it says. */
function checkIndexedPositionsFound(found: Findings, store: SegmentStore, index: LogIndex): void {
  for (let position = 1; position < found.lastPosition; position++) {
    if (found.seen[position] === 1 || !index.locate(position)) continue;
    const segmentNo = index.foundSegmentNo;
    const offset = index.foundOffset;
    if (found.failedAddresses.has(`${segmentNo}:${offset}`)) continue;
    const segment = store.segments.get(segmentNo);
    found.report({
      segment: segment?.name ?? `segment ${segmentNo}`,
      offset,
      kind: "missing_record",
      message: `the index has position ${position} here, but the log has no such record`,
    });
  }
}

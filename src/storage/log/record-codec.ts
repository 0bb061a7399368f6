/**
 * The on-disk record and segment-header formats (see docs/log-engine.md for the diagram).
 *
 * Invariants: every record starts with its total length and a CRC32C over everything after
 * the checksum field, so a reader can frame and check a record without knowing its kind;
 * numbers that can exceed 2^32 (position, revision, created_at) are little-endian IEEE 754
 * doubles holding integers below 2^53; strings are UTF-8 except the event id, which is the
 * 36 ASCII characters of the canonical UUID. The last record of each append batch carries
 * FLAG_BATCH_END: recovery keeps only whole batches. An event's data is UTF-8 JSON text unless
 * FLAG_BINARY_DATA is set (then it is bytes: content type application/octet-stream), and its
 * metadata likewise unless FLAG_BINARY_METADATA is set. Records written before those flags
 * existed have neither bit set, and read as the JSON events they are.
 *
 *  record:
 *   0        4        8    9    10       12       14       16            24            32
 *   +--------+--------+----+----+--------+--------+--------+-------------+-------------+
 *   | length | crc32c |kind|flag|tenantL |streamL | typeL  | position f64| revision f64|
 *   +--------+--------+----+----+--------+--------+--------+-------------+-------------+
 *   32            40       44       48                    84
 *   +-------------+--------+--------+---------------------+--------+--------+------+----------+------+
 *   | created f64 | metaL  | dataL  | event_id (36 ASCII) | tenant | stream | type | metadata | data |
 *   +-------------+--------+--------+---------------------+--------+--------+------+----------+------+
 *   crc32c covers bytes [8, length).
 */
import { crc32c } from "./crc32c.js";

export const RECORD_HEADER_BYTES = 84;
export const KIND_EVENT = 1;
/** A stream-metadata record: retention set or soft delete; `data` holds its JSON body. */
export const KIND_STREAM_META = 2;
export const FLAG_BATCH_END = 1;
/** The event's data is bytes (application/octet-stream), not JSON text. */
export const FLAG_BINARY_DATA = 2;
/** The event's metadata is bytes (appended as bytes), not JSON text. */
export const FLAG_BINARY_METADATA = 4;

/** The flags of an event's payload parts (FLAG_BINARY_DATA, FLAG_BINARY_METADATA) for its fields. */
export function payloadFlags(data: string | Buffer, metadata: string | Buffer): number {
  return (
    (typeof data === "string" ? 0 : FLAG_BINARY_DATA) |
    (typeof metadata === "string" ? 0 : FLAG_BINARY_METADATA)
  );
}

export const SEGMENT_HEADER_BYTES = 32;
export const SEGMENT_MAGIC = "ESSSEG01";

export interface RecordFields {
  kind: number;
  flags: number;
  tenant: string;
  stream: string;
  eventType: string;
  position: number;
  revision: number;
  createdAtMs: number;
  eventId: string;
  /** JSON text, or bytes when `flags` has FLAG_BINARY_METADATA. */
  metadata: string | Buffer;
  /** JSON text, or bytes when `flags` has FLAG_BINARY_DATA. */
  data: string | Buffer;
}

/** A part known to be text (a stream-metadata record's body) as a string. */
export function partText(part: string | Buffer): string {
  return typeof part === "string" ? part : part.toString("utf8");
}

function partBytes(part: string | Buffer): number {
  return typeof part === "string" ? Buffer.byteLength(part, "utf8") : part.length;
}

/** Up to this many characters, ASCII text is copied by a loop rather than a call into C++. */
const SHORT_TEXT_MAX = 48;

/** Writes `bytes` bytes of `text` as UTF-8 at `p` (buf has room); returns `bytes`. */
function writeText(buf: Buffer, p: number, text: string, bytes: number): number {
  // As many bytes as characters: all ASCII, one byte each (ids, types, "{}").
  if (bytes === text.length && bytes <= SHORT_TEXT_MAX) {
    for (let k = 0; k < bytes; k++) buf[p + k] = text.charCodeAt(k);
    return bytes;
  }
  return buf.write(text, p, bytes, "utf8");
}

function writePart(buf: Buffer, p: number, part: string | Buffer, bytes: number): number {
  return typeof part === "string" ? writeText(buf, p, part, bytes) : part.copy(buf, p);
}

/** Byte lengths measured once and reused by the encoder. */
export interface MeasuredRecord {
  fields: RecordFields;
  tenantBytes: number;
  streamBytes: number;
  typeBytes: number;
  metadataBytes: number;
  dataBytes: number;
  totalBytes: number;
  /**
   * An event's event-id fingerprint (fingerprint-set.ts), once the writer computed it (the id
   * check and the index both use it); 0 and 0 until then.
   */
  fingerprintLow: number;
  fingerprintHigh: number;
}

export function measureRecord(fields: RecordFields): MeasuredRecord {
  const tenantBytes = Buffer.byteLength(fields.tenant, "utf8");
  const streamBytes = Buffer.byteLength(fields.stream, "utf8");
  const typeBytes = Buffer.byteLength(fields.eventType, "utf8");
  const metadataBytes = partBytes(fields.metadata);
  const dataBytes = partBytes(fields.data);
  const totalBytes = RECORD_HEADER_BYTES + tenantBytes + streamBytes + typeBytes + metadataBytes + dataBytes;
  return {
    fields,
    tenantBytes,
    streamBytes,
    typeBytes,
    metadataBytes,
    dataBytes,
    totalBytes,
    fingerprintLow: 0,
    fingerprintHigh: 0,
  };
}

/** Writes the record at `offset` of `buf` (which must have room) and returns the offset after it. */
export function encodeRecord(buf: Buffer, offset: number, m: MeasuredRecord): number {
  const f = m.fields;
  const o = offset;
  buf.writeUInt32LE(m.totalBytes, o);
  buf[o + 8] = f.kind;
  buf[o + 9] = f.flags;
  buf.writeUInt16LE(m.tenantBytes, o + 10);
  buf.writeUInt16LE(m.streamBytes, o + 12);
  buf.writeUInt16LE(m.typeBytes, o + 14);
  buf.writeDoubleLE(f.position, o + 16);
  buf.writeDoubleLE(f.revision, o + 24);
  buf.writeDoubleLE(f.createdAtMs, o + 32);
  buf.writeUInt32LE(m.metadataBytes, o + 40);
  buf.writeUInt32LE(m.dataBytes, o + 44);
  const eventId = f.eventId;
  if (eventId.length === 36) {
    // latin1: the low byte of each code unit (an event id is checked ASCII before this).
    for (let k = 0; k < 36; k++) buf[o + 48 + k] = eventId.charCodeAt(k);
  } else {
    buf.fill(0, o + 48, o + 84);
  }
  let p = o + RECORD_HEADER_BYTES;
  p += writeText(buf, p, f.tenant, m.tenantBytes);
  p += writeText(buf, p, f.stream, m.streamBytes);
  p += writeText(buf, p, f.eventType, m.typeBytes);
  p += writePart(buf, p, f.metadata, m.metadataBytes);
  p += writePart(buf, p, f.data, m.dataBytes);
  buf.writeUInt32LE(crc32c(buf, o + 8, p), o + 4);
  return p;
}

export type FrameCheck =
  | { ok: true; length: number }
  | { ok: false; reason: "short" | "length" | "checksum" | "kind"; length: number };

/**
 * Frames and checks the record at `offset` of `buf`, where `end` is the end of valid bytes.
 * "short" means the bytes stop inside the record (a torn tail when at the end of the log).
 */
export function checkRecord(
  buf: Uint8Array,
  offset: number,
  end: number,
  recordBytesMax: number,
): FrameCheck {
  if (end - offset < RECORD_HEADER_BYTES) return { ok: false, reason: "short", length: 0 };
  const view = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const length = view.readUInt32LE(offset);
  if (length < RECORD_HEADER_BYTES || length > recordBytesMax) return { ok: false, reason: "length", length };
  if (offset + length > end) return { ok: false, reason: "short", length };
  const kind = view[offset + 8];
  if (kind !== KIND_EVENT && kind !== KIND_STREAM_META) return { ok: false, reason: "kind", length };
  const stored = view.readUInt32LE(offset + 4);
  if (crc32c(view, offset + 8, offset + length) !== stored) return { ok: false, reason: "checksum", length };
  const strings =
    view.readUInt16LE(offset + 10) +
    view.readUInt16LE(offset + 12) +
    view.readUInt16LE(offset + 14) +
    view.readUInt32LE(offset + 40) +
    view.readUInt32LE(offset + 44);
  if (RECORD_HEADER_BYTES + strings !== length) return { ok: false, reason: "length", length };
  return { ok: true, length };
}

/** Decodes every field (used by recovery, verify and scavenge; the read path decodes lazily). */
export function decodeRecord(buf: Buffer, o: number): RecordFields {
  const tenantBytes = buf.readUInt16LE(o + 10);
  const streamBytes = buf.readUInt16LE(o + 12);
  const typeBytes = buf.readUInt16LE(o + 14);
  const metadataBytes = buf.readUInt32LE(o + 40);
  const dataBytes = buf.readUInt32LE(o + 44);
  let p = o + RECORD_HEADER_BYTES;
  const tenant = buf.toString("utf8", p, (p += tenantBytes));
  const stream = buf.toString("utf8", p, (p += streamBytes));
  const eventType = buf.toString("utf8", p, (p += typeBytes));
  const flags = buf[o + 9] as number;
  const metadataEnd = p + metadataBytes;
  const metadata =
    (flags & FLAG_BINARY_METADATA) === 0
      ? buf.toString("utf8", p, metadataEnd)
      : Buffer.from(buf.subarray(p, metadataEnd));
  p = metadataEnd;
  const data =
    (flags & FLAG_BINARY_DATA) === 0
      ? buf.toString("utf8", p, p + dataBytes)
      : Buffer.from(buf.subarray(p, p + dataBytes));
  return {
    kind: buf[o + 8] as number,
    flags,
    tenant,
    stream,
    eventType,
    position: buf.readDoubleLE(o + 16),
    revision: buf.readDoubleLE(o + 24),
    createdAtMs: buf.readDoubleLE(o + 32),
    eventId: buf.toString("latin1", o + 48, o + 84),
    metadata,
    data,
  };
}

export interface SegmentHeader {
  segmentNo: number;
  generation: number;
  basePosition: number;
}

/**
 *  segment header (32 bytes):
 *   0            8        12           16               24         28       32
 *   +------------+--------+------------+----------------+----------+--------+
 *   | "ESSSEG01" | number | generation | base position  | reserved | crc32c |
 *   +------------+--------+------------+----------------+----------+--------+
 */
export function encodeSegmentHeader(h: SegmentHeader): Buffer {
  const buf = Buffer.alloc(SEGMENT_HEADER_BYTES);
  buf.write(SEGMENT_MAGIC, 0, 8, "latin1");
  buf.writeUInt32LE(h.segmentNo, 8);
  buf.writeUInt32LE(h.generation, 12);
  buf.writeDoubleLE(h.basePosition, 16);
  buf.writeUInt32LE(crc32c(buf, 0, 28), 28);
  return buf;
}

export function decodeSegmentHeader(buf: Buffer): SegmentHeader | null {
  if (buf.length < SEGMENT_HEADER_BYTES) return null;
  if (buf.toString("latin1", 0, 8) !== SEGMENT_MAGIC) return null;
  if (crc32c(buf, 0, 28) !== buf.readUInt32LE(28)) return null;
  return {
    segmentNo: buf.readUInt32LE(8),
    generation: buf.readUInt32LE(12),
    basePosition: buf.readDoubleLE(16),
  };
}

/**
 * The checksum stored with every event row: CRC-32 over the row's content, each field
 * length-prefixed so that moving bytes between fields changes the sum. Computed by the engine at
 * append and recomputed by verify; the position is not covered (it is assigned inside the append
 * statement) but verify checks positions separately (they grow with revision in every stream).
 * Data or metadata kept as bytes (a binary event's) is summed as its bytes with the top bit of its
 * length prefix set, so that the same bytes stored as text or as bytes give different sums; a JSON
 * event's sum is the one every earlier version wrote.
 */
import { crc32 } from "node:zlib";

export interface ChecksummedFields {
  tenant_id: string;
  stream_id: string;
  revision: number;
  event_id: string;
  event_type: string;
  /** JSON text, or bytes (data_bytes). */
  data: string | Buffer;
  /** JSON text, or bytes (metadata_bytes). */
  metadata: string | Buffer;
  created_at_ms: number;
}

/** The top bit of a field's length prefix: the field is bytes, not text (lengths stay far below). */
const BYTES_FIELD = 0x8000_0000;

/** Scratch space for one row's checksummed bytes; grows to the largest row seen. */
let scratch = Buffer.allocUnsafe(4096);

/** Writes a non-negative safe integer as a big-endian int64 (what BigInt64BE gives for it). */
function writeInt64BE(buf: Buffer, value: number, at: number): void {
  if (value >= 0 && Number.isSafeInteger(value)) {
    buf.writeUInt32BE(Math.floor(value / 0x1_0000_0000), at);
    buf.writeUInt32BE(value >>> 0, at + 4);
  } else {
    buf.writeBigInt64BE(BigInt(value), at);
  }
}

/**
 * One CRC-32 over the numbers and the length-prefixed fields laid out in one buffer: the same sum
 * as running it field by field (CRC-32 continued over the next bytes equals it over both), with
 * no allocation per row. Every read of an event checks its row with this.
 */
export function eventChecksum(f: ChecksummedFields): number {
  const fields = [f.tenant_id, f.stream_id, f.event_id, f.event_type, f.data, f.metadata];
  let size = 16;
  for (const field of fields)
    size += 4 + (typeof field === "string" ? Buffer.byteLength(field, "utf8") : field.length);
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  const buf = scratch;
  writeInt64BE(buf, f.revision, 0);
  writeInt64BE(buf, f.created_at_ms, 8);
  let at = 16;
  for (const field of fields) {
    if (typeof field === "string") {
      const written = buf.write(field, at + 4, "utf8");
      buf.writeUInt32BE(written, at);
      at += 4 + written;
    } else {
      buf.writeUInt32BE((BYTES_FIELD | field.length) >>> 0, at);
      at += 4 + field.copy(buf, at + 4);
    }
  }
  return crc32(buf.subarray(0, at));
}

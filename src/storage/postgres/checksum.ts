/**
 * The checksum stored with every event row: CRC-32 over the row's content, each field
 * length-prefixed so that moving bytes between fields changes the sum. Computed by the engine at
 * append and recomputed by verify; the position is not covered (it is assigned inside the append
 * statement) but verify checks positions separately (they grow with revision in every stream).
 */
import { crc32 } from "node:zlib";

export interface ChecksummedFields {
  tenant_id: string;
  stream_id: string;
  revision: number;
  event_id: string;
  event_type: string;
  data: string;
  metadata: string;
  created_at_ms: number;
}

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
  const texts = [f.tenant_id, f.stream_id, f.event_id, f.event_type, f.data, f.metadata];
  let size = 16;
  for (const text of texts) size += 4 + Buffer.byteLength(text, "utf8");
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  const buf = scratch;
  writeInt64BE(buf, f.revision, 0);
  writeInt64BE(buf, f.created_at_ms, 8);
  let at = 16;
  for (const text of texts) {
    const written = buf.write(text, at + 4, "utf8");
    buf.writeUInt32BE(written, at);
    at += 4 + written;
  }
  return crc32(buf.subarray(0, at));
}

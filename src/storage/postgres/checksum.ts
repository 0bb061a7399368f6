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

function field(value: string): Buffer {
  const body = Buffer.from(value, "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length, 0);
  return Buffer.concat([length, body]);
}

export function eventChecksum(f: ChecksummedFields): number {
  const numbers = Buffer.alloc(16);
  numbers.writeBigInt64BE(BigInt(f.revision), 0);
  numbers.writeBigInt64BE(BigInt(f.created_at_ms), 8);
  let sum = crc32(numbers);
  for (const text of [f.tenant_id, f.stream_id, f.event_id, f.event_type, f.data, f.metadata]) {
    sum = crc32(field(text), sum);
  }
  return sum;
}

/**
 * The writing helpers of the hand-written codecs (./wire.ts holds their invariants): varint and
 * field sizes, varint/text/bytes writers, and the room for a prefix before a message (a gRPC
 * frame's head, a session answer's field). Every encoder sizes its message first, then writes it
 * into one buffer of exactly that size.
 */
import { assert } from "../../errors.js";

/** Below this many UTF-16 units an ASCII string is copied by a JS loop (cheaper than a call into C++). */
const shortStringChars = 48;

// ---------------------------------------------------------------- writing

/** Bytes of the varint of a uint64 held in a JS number (a whole number in 0..2^53-1). */
export function varintBytes(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  if (value < 0x800000000) return 5;
  if (value < 0x40000000000) return 6;
  if (value < 0x2000000000000) return 7;
  return 8;
}

export function assertUint64(value: number, field: string): void {
  assert(Number.isSafeInteger(value) && value >= 0, `${field} is a whole number in 0..2^53-1`);
}

export function assertUint32(value: number, field: string): void {
  assert(
    Number.isInteger(value) && value >= 0 && value <= 0xffffffff,
    `${field} is a whole number in 0..2^32-1`,
  );
}

/** Writes a varint (value as in varintBytes); returns the position after it. */
export function writeVarint(buf: Buffer, pos: number, value: number): number {
  // Most varints written are a field's length below 128: one byte, no split.
  if (value < 0x80) {
    buf[pos] = value;
    return pos + 1;
  }
  // Split into 32-bit halves, as protobufjs's writeVarint64 does, so bit operations stay exact.
  const lo = value >>> 0;
  return writeVarintHalves(buf, pos, lo, ((value - lo) / 4294967296) >>> 0);
}

/** Writes the varint of the 64-bit value whose unsigned 32-bit halves are `lo` and `hi`. */
export function writeVarintHalves(buf: Buffer, pos: number, lo: number, hi: number): number {
  while (hi !== 0) {
    buf[pos++] = (lo & 127) | 128;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  while (lo > 127) {
    buf[pos++] = (lo & 127) | 128;
    lo >>>= 7;
  }
  buf[pos++] = lo;
  return pos;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Writes `text`, whose UTF-8 encoding is `byteCount` bytes, at `pos`; returns the position after it. */
function writeText(buf: Buffer, pos: number, text: string, byteCount: number): number {
  const chars = text.length;
  if (byteCount === chars) {
    // One byte per UTF-16 unit: the text is ASCII, and latin1 writes the same bytes, faster.
    if (chars < shortStringChars) {
      for (let i = 0; i < chars; i++) buf[pos + i] = text.charCodeAt(i);
      return pos + chars;
    }
    return pos + buf.write(text, pos, chars, "latin1");
  }
  return pos + buf.write(text, pos, byteCount, "utf8");
}

/** Below this many bytes a byte range is copied by a JS loop (cheaper than Buffer#copy's call). */
const shortCopyBytes = 64;

/** Copies source[start, end) to buf at `pos`; returns the position after it. */
function writeBytes(buf: Buffer, pos: number, source: Buffer, start: number, end: number): number {
  const n = end - start;
  if (n < shortCopyBytes) {
    for (let i = 0; i < n; i++) buf[pos + i] = source[start + i]!;
    return pos + n;
  }
  return pos + source.copy(buf, pos, start, end);
}

/** Whether source[start, end) is all ASCII (so its latin1 text encodes to the same bytes in UTF-8). */
export function isAscii(source: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (source[i]! >= 0x80) return false;
  return true;
}

/** Writes a length-delimited field with a one-byte key from source[start, end). */
export function writeBytesField(
  buf: Buffer,
  pos: number,
  key: number,
  source: Buffer,
  start: number,
  end: number,
): number {
  buf[pos++] = key;
  pos = writeVarint(buf, pos, end - start);
  return writeBytes(buf, pos, source, start, end);
}

/** Bytes of a length-delimited field (key, length, payload) with a one-byte key. */
export function delimitedFieldBytes(payloadBytes: number): number {
  return 1 + varintBytes(payloadBytes) + payloadBytes;
}

/** Writes a length-delimited string field with a one-byte key. */
export function writeTextField(
  buf: Buffer,
  pos: number,
  key: number,
  text: string,
  byteCount: number,
): number {
  buf[pos++] = key;
  pos = writeVarint(buf, pos, byteCount);
  return writeText(buf, pos, text, byteCount);
}

export function writeVarintField(buf: Buffer, pos: number, key: number, value: number): number {
  buf[pos++] = key;
  return writeVarint(buf, pos, value);
}

/**
 * Room for a prefix before an encoded message, so that a message embedded in another (a read
 * session's answer) is written in place instead of copied: `bytes(size)` is the prefix's length
 * for a message of `size` bytes, `write(buf, size)` writes it at the buffer's start.
 */
export interface MessagePrefix {
  bytes(size: number): number;
  write(buf: Buffer, size: number): void;
}

export function optionalTextFieldBytes(text: string | undefined): number {
  return text === undefined ? 0 : delimitedFieldBytes(utf8Bytes(text));
}

export function writeOptionalTextField(
  buf: Buffer,
  pos: number,
  key: number,
  text: string | undefined,
): number {
  return text === undefined ? pos : writeTextField(buf, pos, key, text, utf8Bytes(text));
}

/**
 * CRC32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven slicing-by-16.
 * Node 20 has no built-in CRC32C. Every read checks each record it serves with it, so it is on
 * the read path: sixteen 256-entry tables (in one flat Int32Array) let the main loop consume
 * sixteen bytes per step, read as four 32-bit words through an Int32Array view of the buffer
 * (kept per ArrayBuffer) instead of sixteen byte loads. The check value of "123456789" is
 * 0xE3069283.
 */

const POLY = 0x82f63b78;

/** Table t at [t * 256, t * 256 + 256): t0 is the byte table, t(n) advances t(n-1) by a byte. */
const F: Int32Array = (() => {
  const flat = new Int32Array(16 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    flat[n] = c;
  }
  for (let t = 1; t < 16; t++) {
    for (let n = 0; n < 256; n++) {
      const p = flat[(t - 1) * 256 + n]!;
      flat[t * 256 + n] = (p >>> 8) ^ flat[p & 0xff]!;
    }
  }
  return flat;
})();

/** Word loads read bytes in memory order as little-endian numbers only on little-endian hosts. */
const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Below this many bytes the word view is not worth looking up. */
const WORDS_MIN_BYTES = 32;

const wordViews = new WeakMap<ArrayBufferLike, Int32Array>();

function wordsOf(bytes: Uint8Array): Int32Array {
  const buffer = bytes.buffer;
  let words = wordViews.get(buffer);
  if (words === undefined) {
    words = new Int32Array(buffer, 0, buffer.byteLength >>> 2);
    wordViews.set(buffer, words);
  }
  return words;
}

/**
 * CRC32C of `bytes[start, end)`, continuing from `crc` (0 for a fresh checksum).
 * Returns an unsigned 32-bit value.
 */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  const f = F;
  let c = ~crc;
  let i = start;
  if (littleEndian && end - i >= WORDS_MIN_BYTES) {
    const base = bytes.byteOffset;
    // Bytes one at a time up to a 4-byte boundary of the underlying buffer.
    while (((base + i) & 3) !== 0) {
      c = f[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
      i++;
    }
    const w = wordsOf(bytes);
    const steps = (end - i) >>> 4;
    let k = (base + i) >>> 2;
    const stop = k + steps * 4;
    for (; k < stop; k += 4) {
      const a = c ^ w[k]!;
      const b = w[k + 1]!;
      const d = w[k + 2]!;
      const e = w[k + 3]!;
      c =
        f[3840 + (a & 0xff)]! ^
        f[3584 + ((a >>> 8) & 0xff)]! ^
        f[3328 + ((a >>> 16) & 0xff)]! ^
        f[3072 + (a >>> 24)]! ^
        f[2816 + (b & 0xff)]! ^
        f[2560 + ((b >>> 8) & 0xff)]! ^
        f[2304 + ((b >>> 16) & 0xff)]! ^
        f[2048 + (b >>> 24)]! ^
        f[1792 + (d & 0xff)]! ^
        f[1536 + ((d >>> 8) & 0xff)]! ^
        f[1280 + ((d >>> 16) & 0xff)]! ^
        f[1024 + (d >>> 24)]! ^
        f[768 + (e & 0xff)]! ^
        f[512 + ((e >>> 8) & 0xff)]! ^
        f[256 + ((e >>> 16) & 0xff)]! ^
        f[e >>> 24]!;
    }
    i += steps * 16;
  }
  while (i < end) {
    c = f[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
    i++;
  }
  return ~c >>> 0;
}

/**
 * Decoding HPACK's Huffman code (RFC 7541, Appendix B). The code is canonical, so the table is
 * kept as each symbol's code length only; the codes follow from the lengths (shorter codes first,
 * symbols in order within a length), and decoding walks one bit at a time through the first code
 * and count of each length. Header values on the unary path are short and rarely Huffman-coded
 * twice (the peer indexes what it repeats), so bit-at-a-time is fast enough.
 */

/** Code lengths in bits for the byte values 0-255, then EOS (256). */
const CODE_BITS =
  "13 23 28 28 28 28 28 28 28 24 30 28 28 30 28 28 28 28 28 28 28 28 30 28 28 28 28 28 28 28 28 28 " +
  "6 10 10 12 13 6 8 11 10 10 8 11 8 6 6 6 5 5 5 6 6 6 6 6 6 6 7 8 15 6 12 10 " +
  "13 6 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 8 7 8 13 19 13 14 6 " +
  "15 5 6 5 6 5 6 6 6 5 7 7 6 6 6 5 6 7 6 5 5 6 7 7 7 7 7 15 11 14 13 28 " +
  "20 22 20 20 22 22 22 23 22 23 23 23 23 23 24 23 24 24 22 23 24 23 23 23 23 21 22 23 22 23 23 24 " +
  "22 21 20 22 22 23 23 21 23 22 22 24 21 22 23 23 21 21 22 21 23 22 23 23 20 22 22 22 23 22 22 23 " +
  "26 26 20 19 22 23 22 25 26 26 26 27 27 26 24 25 19 21 26 27 27 26 27 24 21 21 26 26 28 27 27 27 " +
  "20 24 20 21 22 21 21 23 22 22 25 25 24 24 26 23 26 27 26 26 27 27 27 27 27 28 27 27 27 27 27 26 " +
  "30";

const EOS = 256;
const MAX_BITS = 30;

/** Symbols ordered by (code length, symbol): the order in which canonical codes are assigned. */
const symbolsByCode: number[] = [];
/** Per code length: the first code of that length, and where its symbols start in symbolsByCode. */
const firstCode = new Int32Array(MAX_BITS + 2);
const firstIndex = new Int32Array(MAX_BITS + 2);
const countOfLength = new Int32Array(MAX_BITS + 2);

(function buildTables() {
  const bits = CODE_BITS.split(" ").map(Number);
  if (bits.length !== 257) throw new Error("HPACK Huffman table: 257 code lengths expected");
  for (let length = 1; length <= MAX_BITS; length++) {
    firstIndex[length] = symbolsByCode.length;
    for (let symbol = 0; symbol < bits.length; symbol++) {
      if (bits[symbol] === length) symbolsByCode.push(symbol);
    }
    countOfLength[length] = symbolsByCode.length - firstIndex[length]!;
  }
  let code = 0;
  for (let length = 1; length <= MAX_BITS; length++) {
    firstCode[length] = code;
    code = (code + countOfLength[length]!) * 2;
  }
})();

export class HuffmanError extends Error {}

/** Decodes a Huffman-coded string (octets as latin1, one char per byte). */
export function decodeHuffman(buf: Buffer, start: number, end: number): string {
  const out: number[] = [];
  let code = 0;
  let length = 0;
  for (let i = start; i < end; i++) {
    const byte = buf.readUInt8(i);
    for (let bit = 7; bit >= 0; bit--) {
      code = code * 2 + ((byte >> bit) & 1);
      length++;
      const offset = code - firstCode[length]!;
      if (offset >= 0 && offset < countOfLength[length]!) {
        const symbol = symbolsByCode[firstIndex[length]! + offset]!;
        if (symbol === EOS) throw new HuffmanError("EOS inside a Huffman-coded string");
        out.push(symbol);
        code = 0;
        length = 0;
      } else if (length >= MAX_BITS) {
        throw new HuffmanError("an invalid Huffman code");
      }
    }
  }
  // What is left must be padding: fewer than 8 bits, all ones (the start of EOS).
  if (length > 7 || code !== 2 ** length - 1) throw new HuffmanError("invalid Huffman padding");
  return Buffer.from(out).toString("latin1");
}

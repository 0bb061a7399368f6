/**
 * HPACK (RFC 7541) for the load generator's HTTP/2 connection (./client-connection.ts).
 *
 * Decoding is complete: the static and dynamic tables, every representation, Huffman-coded
 * strings, table size updates. It must be, because the peer's encoder (nghttp2 in `ess serve`)
 * indexes what it repeats and Huffman-codes what it shortens, and one field decoded wrongly
 * would desynchronise every later header block on the connection.
 *
 * Encoding is the simplest valid form: literals without indexing (never indexed for
 * `authorization`), names from the static table where it has them, no Huffman. A client's
 * request header block is then the same bytes for every call with the same path and token,
 * built once and reused.
 */
import { decodeHuffman, HuffmanError } from "./huffman.js";

/** RFC 7541 Appendix A: index 1 is STATIC_TABLE[0]. */
const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
];

/** Per RFC 7541 4.1: an entry's size is its name and value octets plus 32. */
const ENTRY_OVERHEAD = 32;

export class HpackError extends Error {}

/** Decoded header fields: name → value, several values of one name joined by ", " (as Node does). */
export type HeaderFields = Record<string, string>;

export class HpackDecoder {
  /** Newest first, as HPACK indexes it. */
  private readonly dynamic: [string, string][] = [];
  private size = 0;
  private maxSize: number;

  /**
   * @param settingsMaxSize SETTINGS_HEADER_TABLE_SIZE this side announced: the peer's table
   *   size updates may not exceed it.
   * @param listBytesMax the most octets a decoded header list may hold (names + values + 32 each).
   */
  constructor(
    private readonly settingsMaxSize: number,
    private readonly listBytesMax: number,
  ) {
    this.maxSize = settingsMaxSize;
  }

  /** Decodes one complete header block. Throws HpackError (a connection error) on bad input. */
  decode(block: Buffer): HeaderFields {
    const fields: HeaderFields = {};
    let listBytes = 0;
    let at = 0;
    let fieldSeen = false;
    const add = (name: string, value: string): void => {
      listBytes += name.length + value.length + ENTRY_OVERHEAD;
      if (listBytes > this.listBytesMax) throw new HpackError("header list too large");
      const before = fields[name];
      fields[name] = before === undefined ? value : `${before}, ${value}`;
      fieldSeen = true;
    };
    const integer = (prefixBits: number): number => {
      if (at >= block.length) throw new HpackError("truncated integer");
      const mask = (1 << prefixBits) - 1;
      let value = block.readUInt8(at++) & mask;
      if (value < mask) return value;
      let shift = 0;
      for (;;) {
        if (at >= block.length) throw new HpackError("truncated integer");
        const byte = block.readUInt8(at++);
        value += (byte & 0x7f) * 2 ** shift;
        shift += 7;
        if ((byte & 0x80) === 0) return value;
        if (shift > 28) throw new HpackError("integer too large");
      }
    };
    const string = (): string => {
      if (at >= block.length) throw new HpackError("truncated string");
      const huffman = (block.readUInt8(at) & 0x80) !== 0;
      const length = integer(7);
      if (length > block.length - at) throw new HpackError("truncated string");
      const start = at;
      at += length;
      if (!huffman) return block.toString("latin1", start, at);
      try {
        return decodeHuffman(block, start, at);
      } catch (error) {
        if (error instanceof HuffmanError) throw new HpackError(error.message);
        throw error;
      }
    };
    while (at < block.length) {
      const first = block.readUInt8(at);
      if (first & 0x80) {
        const [name, value] = this.entry(integer(7));
        add(name, value);
      } else if (first & 0x40) {
        const index = integer(6);
        const name = index === 0 ? string() : this.entry(index)[0];
        const value = string();
        this.insert(name, value);
        add(name, value);
      } else if (first & 0x20) {
        // A table size update may only open a block (RFC 7541 4.2).
        if (fieldSeen) throw new HpackError("table size update after a field");
        const size = integer(5);
        if (size > this.settingsMaxSize) throw new HpackError("table size update above the setting");
        this.maxSize = size;
        this.evict(0);
      } else {
        // Literal without indexing (0000) or never indexed (0001): a 4-bit name index.
        const index = integer(4);
        const name = index === 0 ? string() : this.entry(index)[0];
        add(name, string());
      }
    }
    return fields;
  }

  private entry(index: number): readonly [string, string] {
    if (index === 0) throw new HpackError("index 0");
    const known = index <= STATIC_TABLE.length ? STATIC_TABLE[index - 1] : undefined;
    if (known !== undefined) return known;
    const entry = this.dynamic[index - STATIC_TABLE.length - 1];
    if (entry === undefined) throw new HpackError(`index ${index} is past the tables`);
    return entry;
  }

  private insert(name: string, value: string): void {
    const bytes = name.length + value.length + ENTRY_OVERHEAD;
    if (bytes > this.maxSize) {
      // An entry larger than the table empties it and is not added (RFC 7541 4.4).
      this.dynamic.length = 0;
      this.size = 0;
      return;
    }
    this.evict(bytes);
    this.dynamic.unshift([name, value]);
    this.size += bytes;
  }

  /** Evicts the oldest entries until `room` more octets fit. */
  private evict(room: number): void {
    while (this.size + room > this.maxSize && this.dynamic.length > 0) {
      const [name, value] = this.dynamic.pop() as [string, string];
      this.size -= name.length + value.length + ENTRY_OVERHEAD;
    }
  }
}

const staticNameIndex = new Map<string, number>();
STATIC_TABLE.forEach(([name], i) => {
  if (!staticNameIndex.has(name)) staticNameIndex.set(name, i + 1);
});
const staticFieldIndex = new Map<string, number>();
STATIC_TABLE.forEach(([name, value], i) => {
  if (value !== "") staticFieldIndex.set(`${name}\0${value}`, i + 1);
});

/** Names whose values are secrets: sent as never indexed (RFC 7541 7.1.3). */
const SENSITIVE = new Set(["authorization"]);

/**
 * One header block of literal fields (an exact static match goes as its index). Names must be
 * lower case; values are written as latin1 octets (header values are ASCII here).
 */
export function encodeHeaderBlock(fields: readonly (readonly [string, string])[]): Buffer {
  const parts: number[] = [];
  const integer = (value: number, prefixBits: number, firstBits: number): void => {
    const mask = (1 << prefixBits) - 1;
    if (value < mask) {
      parts.push(firstBits | value);
      return;
    }
    parts.push(firstBits | mask);
    let rest = value - mask;
    while (rest >= 0x80) {
      parts.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    parts.push(rest);
  };
  const string = (text: string): void => {
    const octets = Buffer.from(text, "latin1");
    integer(octets.length, 7, 0);
    for (const octet of octets) parts.push(octet);
  };
  for (const [name, value] of fields) {
    const exact = staticFieldIndex.get(`${name}\0${value}`);
    if (exact !== undefined) {
      integer(exact, 7, 0x80);
      continue;
    }
    const firstBits = SENSITIVE.has(name) ? 0x10 : 0x00;
    const nameIndex = staticNameIndex.get(name);
    if (nameIndex !== undefined) {
      integer(nameIndex, 4, firstBits);
    } else {
      parts.push(firstBits);
      string(name);
    }
    string(value);
  }
  return Buffer.from(parts);
}

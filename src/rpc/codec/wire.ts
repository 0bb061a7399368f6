/**
 * Hand-written protobuf codecs for the hot ess.v1 messages: `Streams.Append`, `Streams.Read` and
 * `Streams.ReadAll`, on the server and in the client (src/client/); every other message keeps
 * proto-loader's generic codec, which was about half of the server's CPU on a 100-event read
 * (docs/rpc.md, "Codecs"). This folder: ./wire.ts (this file: the wire primitives and
 * ProtoReader), ./writer.ts (writing), ./decoder.ts (decoders made from the .proto's
 * reflection, for the read requests and AppendResult), ./append.ts, ./read-requests.ts,
 * ./read-results.ts.
 *
 * Invariants (test/rpc/codec.test.ts checks them against the generic codec, and
 * test/rpc/codec-conformance.test.ts field by field against the .proto's reflection):
 * - The encoders write byte for byte what the generic encoder writes: fields in number order,
 *   every plain field (also at its default), a proto3 `optional` field only when set (not
 *   null/undefined), canonical varints.
 * - The decoders read any valid encoding (any field order, unknown fields skipped, the last value
 *   of a repeated scalar wins) and give what proto-loader's decode gives with ../proto.ts's
 *   options (uint64 as a JS number, as protobufjs rounds it; unset `optional` fields absent,
 *   without the `_field` oneof markers; `bytes` as a view into the message), except that a
 *   string whose bytes are not UTF-8 is refused with INVALID_ARGUMENT (../../contract/rules.ts).
 * - A message that is not valid protobuf throws an INVALID_ARGUMENT EssError saying what is wrong
 *   (ProtoReader below), never another error; groups nest at most limits.protobufGroupDepthMax
 *   deep. The server answers it with INVALID_ARGUMENT (../malformed-request.ts).
 * - Event data/metadata: the server copies a StoredEventRecord's bytes
 *   (../../contract/stored-event-record.ts) straight into the message, or encodes a plain
 *   record's JSON text; the client decodes them straight to text.
 *
 * Wire types: these messages use 0 (varint) and 2 (length-delimited); the decoders also skip 1,
 * 3-4 (groups, without recursion) and 5. A key is (field number << 3) | wire type.
 */
import { invalidArgument, type EssError } from "../../errors.js";
import { limits } from "../../limits.js";
import { requireUtf8 } from "../../contract/rules.js";
import type { RepeatedText, SlicingBuffer } from "../../buffer-text.js";

export const VARINT = 0;
export const LENGTH_DELIMITED = 2;

export function key(field: number, wireType: number): number {
  return (field << 3) | wireType;
}

// ---------------------------------------------------------------- reading

/** Bad input, not a bug: the caller's INVALID_ARGUMENT. */
function malformed(what: string): EssError {
  return invalidArgument(`malformed protobuf message: ${what}`);
}

const START_GROUP = 3;
const END_GROUP = 4;

/** Reads fields from buf[pos, end). */
export class ProtoReader {
  constructor(
    readonly buf: SlicingBuffer,
    public pos: number,
    /** Where the message being read ends; an embedded message narrows it while it is read. */
    public end: number,
  ) {}

  /** A varint's low 32 bits, as an unsigned number (keys, lengths, uint32, bool). */
  varint32(): number {
    const buf = this.buf;
    if (this.pos < this.end && buf[this.pos]! < 128) return buf[this.pos++]!;
    return this.varint64Parts(true);
  }

  /** A uint64 varint as a JS number: lo + hi * 2^32, rounded as protobufjs rounds (longs: Number). */
  uint64(): number {
    const buf = this.buf;
    if (this.pos < this.end && buf[this.pos]! < 128) return buf[this.pos++]!;
    return this.varint64Parts(false);
  }

  /**
   * Up to 10 bytes, 7 bits each, least significant first:
   *   bytes 1-4 -> lo bits 0-27; byte 5 -> lo bits 28-31 and hi bits 0-2; bytes 6-10 -> hi bits 3-31.
   */
  private varint64Parts(lowOnly: boolean): number {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw malformed("truncated varint");
      const b = buf[this.pos++]!;
      if (i < 4) lo |= (b & 127) << (7 * i);
      else if (i === 4) {
        lo |= (b & 127) << 28;
        hi |= (b & 127) >> 4;
      } else hi |= (b & 127) << (7 * i - 32);
      if (b < 128) return lowOnly ? lo >>> 0 : (lo >>> 0) + (hi >>> 0) * 4294967296;
    }
    throw malformed("varint longer than 10 bytes");
  }

  /** Reads a length prefix; returns where the payload ends (the payload starts at pos). */
  delimitedEnd(): number {
    // All 64 bits: a length of 2^32 + 3 is past any end, not 3.
    const length = this.uint64();
    if (length > this.end - this.pos) throw malformed("length past the end of the message");
    return this.pos + length;
  }

  /**
   * A string field. Bytes that are not valid UTF-8 (a surrogate's WTF-8 form ED A0 80, say) are
   * refused with INVALID_ARGUMENT naming `field`, never decoded with replacement characters.
   * utf8Slice decodes every invalid sequence to U+FFFD, so only text holding one has its bytes
   * checked: valid text costs a scan of the decoded string, not a view and a scan of the bytes
   * (a 100-event page's client decode spent 6 us a page in that).
   */
  string(field = "a text field"): string {
    const end = this.delimitedEnd();
    const start = this.pos;
    this.pos = end;
    if (start === end) return "";
    const text = this.buf.utf8Slice(start, end);
    if (text.includes("\uFFFD")) requireUtf8(this.buf.subarray(start, end), field);
    return text;
  }

  /**
   * A string field that often repeats the last value read through `last` (an event page's
   * stream id, event type, metadata, creation time): the same bytes give back the same string
   * (../buffer-text.ts). Longer fields are decoded each time. Bytes that are not valid UTF-8 are
   * refused as by `string`: utf8Slice decodes every invalid sequence to U+FFFD, so only text
   * holding one needs its bytes checked (the rest of a page's repeats cost a scan of a short string).
   */
  repeatedString(last: RepeatedText): string {
    const end = this.delimitedEnd();
    const start = this.pos;
    this.pos = end;
    const text = last.of(this.buf, start, end);
    if (text.includes("\uFFFD")) requireUtf8(this.buf.subarray(start, end), "a text field");
    return text;
  }

  /** A view into the message, as protobufjs's BufferReader gives. */
  bytes(): Buffer {
    const end = this.delimitedEnd();
    const start = this.pos;
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  /**
   * Skips the field whose key was just read (an unknown number, or a known number with an
   * unexpected wire type). A group is skipped in this loop, not by recursion, up to its matching
   * end-group, with the open groups' field numbers on a stack of at most
   * limits.protobufGroupDepthMax.
   */
  skip(fieldKey: number): void {
    let open: number[] | null = null;
    let key = fieldKey;
    for (;;) {
      const field = key >>> 3;
      if (field === 0) throw malformed("field number 0");
      switch (key & 7) {
        case 0:
          this.uint64();
          break;
        case 1:
          this.advance(8);
          break;
        case 2:
          this.pos = this.delimitedEnd();
          break;
        case START_GROUP:
          open ??= [];
          if (open.length === limits.protobufGroupDepthMax) {
            throw malformed(`groups nested deeper than ${limits.protobufGroupDepthMax}`);
          }
          open.push(field);
          break;
        case END_GROUP: {
          const start = open?.pop();
          if (start === undefined) throw malformed(`end-group of field ${field} without its start-group`);
          if (start !== field)
            throw malformed(`end-group of field ${field} closes the group of field ${start}`);
          break;
        }
        case 5:
          this.advance(4);
          break;
        default:
          throw malformed(`invalid wire type ${key & 7}`);
      }
      if (open === null || open.length === 0) return;
      if (this.pos >= this.end) throw malformed(`group of field ${open[open.length - 1]} not closed`);
      key = this.varint32();
    }
  }

  private advance(bytes: number): void {
    if (this.pos + bytes > this.end) throw malformed("fixed-width field past the end of the message");
    this.pos += bytes;
  }
}

export function readerFor(buf: Buffer): ProtoReader {
  return new ProtoReader(buf as SlicingBuffer, 0, buf.length);
}

/**
 * Checks a message's fields without its schema (keys, varints, lengths, groups; an embedded
 * message's bytes are not looked into): what the generic decoder's reader lets through, a
 * mismatched end-group, is refused here first. Throws as the decoders do.
 */
export function checkWireFormat(buf: Buffer): void {
  const r = readerFor(buf);
  while (r.pos < r.end) r.skip(r.varint32());
}

/** The default of a `bytes` field that was not sent (zero length, so it cannot be written to). */
export const emptyBytes = Buffer.alloc(0);

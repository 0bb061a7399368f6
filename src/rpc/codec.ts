/**
 * Hand-written protobuf codecs for the hot ess.v1 messages: `Streams.Append` (AppendRequest,
 * AppendResult), `Streams.Read` (ReadRequest, ReadResult with its EventRecords) and
 * `Streams.ReadAll` (ReadAllRequest, ReadAllResult, the same EventRecords). They replace
 * proto-loader's generic path (protobufjs `fromObject` + `encode` + `finish`, `decode` +
 * `toObject`) for these methods on the server and in the client (src/client/); every other message
 * keeps the generic codec. Why: on a 100-event read the generic path was about half of the
 * server's CPU (docs/performance-findings.md, "gRPC codecs").
 *
 * Invariants (test/rpc/codec.test.ts checks them against the generic codec, and
 * test/rpc/codec-conformance.test.ts field by field against the .proto's reflection):
 * - The wire format is exactly proto ess.v1 (proto/ess/v1/streams.proto, types.proto). The
 *   encoders write what the generic encoder writes for the objects the code used to build:
 *   fields in field-number order, every plain field (also when it holds its default), a proto3
 *   `optional` field only when it is set (null/undefined: unset), canonical varints. So the
 *   output is byte for byte the generic encoder's.
 * - The decoders read any valid encoding (fields in any order, unknown fields skipped, the last
 *   value of a repeated scalar wins) and give what proto-loader's decode gives with the options
 *   of ./proto.ts: uint64 as a JS number (lo + hi * 2^32, as protobufjs rounds), plain fields
 *   defaulted, unset `optional` fields absent (the synthetic `_field` oneof markers are left
 *   out: nothing reads them), `bytes` as a Buffer view into the message, strings decoded like
 *   Buffer#utf8Slice once their bytes are checked to be valid UTF-8 (INVALID_ARGUMENT
 *   otherwise, where protobufjs would decode with replacement characters: the service refuses
 *   text that is not UTF-8, ../contract/rules.ts).
 * - A message that is not valid protobuf throws an INVALID_ARGUMENT EssError saying what is wrong
 *   (ProtoReader below), never another error: a truncated varint, key, length or field, a varint
 *   over 10 bytes, a length past the end, wire type 6 or 7, field number 0, an end-group without
 *   its start-group or with another field number, a group not closed, groups nested deeper than
 *   limits.protobufGroupDepthMax. The server answers it with INVALID_ARGUMENT (./malformed-request.ts).
 * - Event data/metadata: the server copies the stored bytes of a StoredEventRecord (what the
 *   log engine hands out for the operations' reads, ../contract/stored-event-record.ts)
 *   straight into the message, or encodes a plain record's JSON text (no intermediate Buffer
 *   per field); the client decodes them straight to text.
 *
 * Wire types: these messages use 0 (varint) and 2 (length-delimited); the decoders also skip
 * unknown fields of types 1, 3-4 (groups, without recursion) and 5. A key is
 * (field number << 3) | wire type.
 */
import { assert, invalidArgument, type EssError } from "../errors.js";
import { limits } from "../limits.js";
import { requireUtf8 } from "../contract/rules.js";
import type { AppendResult, EventRecord, ReadAllResult, ReadStreamResult } from "../contract/bodies.js";
import { RepeatedText, type SlicingBuffer } from "../buffer-text.js";
import { StoredEventRecord } from "../contract/stored-event-record.js";
import type { AppendRequest__Output } from "./generated/ess/v1/AppendRequest.js";
import type { EventToAppend__Output } from "./generated/ess/v1/EventToAppend.js";
import type { ReadAllRequest__Output } from "./generated/ess/v1/ReadAllRequest.js";
import type { ReadRequest__Output } from "./generated/ess/v1/ReadRequest.js";

export const VARINT = 0;
export const LENGTH_DELIMITED = 2;

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

function assertUint64(value: number, field: string): void {
  assert(Number.isSafeInteger(value) && value >= 0, `${field} is a whole number in 0..2^53-1`);
}

function assertUint32(value: number, field: string): void {
  assert(
    Number.isInteger(value) && value >= 0 && value <= 0xffffffff,
    `${field} is a whole number in 0..2^32-1`,
  );
}

/** Writes a varint (value as in varintBytes); returns the position after it. */
export function writeVarint(buf: Buffer, pos: number, value: number): number {
  // Split into 32-bit halves, as protobufjs's writeVarint64 does, so bit operations stay exact.
  let lo = value >>> 0;
  let hi = ((value - lo) / 4294967296) >>> 0;
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

/** Bytes of a string's UTF-8 encoding. */
function utf8Bytes(text: string): number {
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
function isAscii(source: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (source[i]! >= 0x80) return false;
  return true;
}

/** Writes a length-delimited field with a one-byte key from source[start, end). */
function writeBytesField(
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
function delimitedFieldBytes(payloadBytes: number): number {
  return 1 + varintBytes(payloadBytes) + payloadBytes;
}

/** Writes a length-delimited string field with a one-byte key. */
function writeTextField(buf: Buffer, pos: number, key: number, text: string, byteCount: number): number {
  buf[pos++] = key;
  pos = writeVarint(buf, pos, byteCount);
  return writeText(buf, pos, text, byteCount);
}

function writeVarintField(buf: Buffer, pos: number, key: number, value: number): number {
  buf[pos++] = key;
  return writeVarint(buf, pos, value);
}

export function key(field: number, wireType: number): number {
  return (field << 3) | wireType;
}

// ---- AppendResult (server) ----

const appendResultKeys = {
  stream_id: key(1, LENGTH_DELIMITED),
  first_revision: key(2, VARINT),
  last_revision: key(3, VARINT),
  position: key(4, VARINT),
  count: key(5, VARINT),
};

/** AppendResult message from the operation's result. */
export function encodeAppendResult(result: AppendResult, prefix?: MessagePrefix): Buffer {
  const k = appendResultKeys;
  assertUint64(result.first_revision, "first_revision");
  assertUint64(result.last_revision, "last_revision");
  assertUint64(result.position, "position");
  assertUint64(result.count, "count");
  const streamIdBytes = utf8Bytes(result.stream_id);
  const size =
    delimitedFieldBytes(streamIdBytes) +
    4 +
    varintBytes(result.first_revision) +
    varintBytes(result.last_revision) +
    varintBytes(result.position) +
    varintBytes(result.count);
  const head = prefix === undefined ? 0 : prefix.bytes(size);
  const buf = Buffer.allocUnsafe(head + size);
  prefix?.write(buf, size);
  let pos = writeTextField(buf, head, k.stream_id, result.stream_id, streamIdBytes);
  pos = writeVarintField(buf, pos, k.first_revision, result.first_revision);
  pos = writeVarintField(buf, pos, k.last_revision, result.last_revision);
  pos = writeVarintField(buf, pos, k.position, result.position);
  pos = writeVarintField(buf, pos, k.count, result.count);
  assert(pos === head + size, "AppendResult: the bytes written are the bytes counted");
  return buf;
}

// ---- ReadResult (server) ----

const readResultKeys = {
  stream_id: key(1, LENGTH_DELIMITED),
  direction: key(2, LENGTH_DELIMITED),
  events: key(3, LENGTH_DELIMITED),
  next_revision: key(4, VARINT),
  is_end: key(5, VARINT),
};

const eventRecordKeys = {
  stream_id: key(1, LENGTH_DELIMITED),
  revision: key(2, VARINT),
  position: key(3, VARINT),
  event_id: key(4, LENGTH_DELIMITED),
  event_type: key(5, LENGTH_DELIMITED),
  data: key(6, LENGTH_DELIMITED),
  metadata: key(7, LENGTH_DELIMITED),
  created_at: key(8, LENGTH_DELIMITED),
};

/** UTF-8 byte counts per event, counted once in the sizing pass and used again when writing. */
const EVENT_SIZES = 8;
const SIZE_STREAM_ID = 0;
const SIZE_EVENT_ID = 1;
const SIZE_EVENT_TYPE = 2;
const SIZE_DATA = 3;
const SIZE_METADATA = 4;
const SIZE_CREATED_AT = 5;
const SIZE_MESSAGE = 6;
/** 1: the event's text fields are copied from its stored bytes (a StoredEventRecord); 0: encoded from its strings. */
const SIZE_FROM_BYTES = 7;

/**
 * Scratch space for those counts, reused by every encode (encoding is synchronous, so one at a
 * time). It grows to the largest page encoded, at most readPageMax events (64 KiB).
 */
let sizeScratch = new Float64Array(EVENT_SIZES * 128);

/**
 * Counts the bytes of each event (into sizeScratch) and returns the bytes of all event fields.
 * A StoredEventRecord's text fields are counted from its stored bytes, which are exactly the
 * UTF-8 of its strings (see ../contract/stored-event-record.ts); its event id is taken as bytes
 * only when ASCII, where latin1 and UTF-8 agree (always, for the UUIDs the engine stores).
 */
function sizeEvents(events: readonly EventRecord[]): number {
  if (sizeScratch.length < events.length * EVENT_SIZES) {
    sizeScratch = new Float64Array(events.length * EVENT_SIZES);
  }
  const sizes = sizeScratch;
  let total = 0;
  // Every event of a stream read carries the same stream id, and the events of one append batch
  // the same creation time (the same string, for stored records): count their bytes once.
  let lastStreamId: string | null = null;
  let lastStreamIdBytes = 0;
  let lastCreatedAt: string | null = null;
  let lastCreatedAtBytes = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    assertUint64(e.revision, "revision");
    assertUint64(e.position, "position");
    if (e.stream_id !== lastStreamId) {
      lastStreamId = e.stream_id;
      lastStreamIdBytes = utf8Bytes(e.stream_id);
    }
    let eventIdBytes: number;
    let eventTypeBytes: number;
    let dataBytes: number;
    let metadataBytes: number;
    let fromBytes = 0;
    if (e instanceof StoredEventRecord && isAscii(e.bytes, e.eventIdStart, e.eventIdEnd)) {
      fromBytes = 1;
      eventIdBytes = e.eventIdEnd - e.eventIdStart;
      eventTypeBytes = e.metadataStart - e.eventTypeStart;
      metadataBytes = e.dataStart - e.metadataStart;
      dataBytes = e.dataEnd - e.dataStart;
    } else {
      eventIdBytes = utf8Bytes(e.event_id);
      eventTypeBytes = utf8Bytes(e.event_type);
      dataBytes = utf8Bytes(e.data);
      metadataBytes = utf8Bytes(e.metadata);
    }
    const createdAt = e.created_at;
    if (createdAt !== lastCreatedAt) {
      lastCreatedAt = createdAt;
      lastCreatedAtBytes = utf8Bytes(createdAt);
    }
    const createdAtBytes = lastCreatedAtBytes;
    const messageBytes =
      delimitedFieldBytes(lastStreamIdBytes) +
      2 +
      varintBytes(e.revision) +
      varintBytes(e.position) +
      delimitedFieldBytes(eventIdBytes) +
      delimitedFieldBytes(eventTypeBytes) +
      delimitedFieldBytes(dataBytes) +
      delimitedFieldBytes(metadataBytes) +
      delimitedFieldBytes(createdAtBytes);
    const at = i * EVENT_SIZES;
    sizes[at + SIZE_STREAM_ID] = lastStreamIdBytes;
    sizes[at + SIZE_EVENT_ID] = eventIdBytes;
    sizes[at + SIZE_EVENT_TYPE] = eventTypeBytes;
    sizes[at + SIZE_DATA] = dataBytes;
    sizes[at + SIZE_METADATA] = metadataBytes;
    sizes[at + SIZE_CREATED_AT] = createdAtBytes;
    sizes[at + SIZE_MESSAGE] = messageBytes;
    sizes[at + SIZE_FROM_BYTES] = fromBytes;
    total += delimitedFieldBytes(messageBytes);
  }
  return total;
}

/** Writes the events counted by sizeEvents as repeated field `eventsKey`. */
function writeEvents(buf: Buffer, pos: number, eventsKey: number, events: readonly EventRecord[]): number {
  const k = eventRecordKeys;
  const sizes = sizeScratch;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const at = i * EVENT_SIZES;
    buf[pos++] = eventsKey;
    pos = writeVarint(buf, pos, sizes[at + SIZE_MESSAGE]!);
    pos = writeTextField(buf, pos, k.stream_id, e.stream_id, sizes[at + SIZE_STREAM_ID]!);
    pos = writeVarintField(buf, pos, k.revision, e.revision);
    pos = writeVarintField(buf, pos, k.position, e.position);
    if (sizes[at + SIZE_FROM_BYTES] === 1) {
      const stored = e as StoredEventRecord;
      const bytes = stored.bytes;
      pos = writeBytesField(buf, pos, k.event_id, bytes, stored.eventIdStart, stored.eventIdEnd);
      pos = writeBytesField(buf, pos, k.event_type, bytes, stored.eventTypeStart, stored.metadataStart);
      pos = writeBytesField(buf, pos, k.data, bytes, stored.dataStart, stored.dataEnd);
      pos = writeBytesField(buf, pos, k.metadata, bytes, stored.metadataStart, stored.dataStart);
    } else {
      pos = writeTextField(buf, pos, k.event_id, e.event_id, sizes[at + SIZE_EVENT_ID]!);
      pos = writeTextField(buf, pos, k.event_type, e.event_type, sizes[at + SIZE_EVENT_TYPE]!);
      pos = writeTextField(buf, pos, k.data, e.data, sizes[at + SIZE_DATA]!);
      pos = writeTextField(buf, pos, k.metadata, e.metadata, sizes[at + SIZE_METADATA]!);
    }
    pos = writeTextField(buf, pos, k.created_at, e.created_at, sizes[at + SIZE_CREATED_AT]!);
  }
  return pos;
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

/**
 * ReadResult message from the operation's result; data/metadata text goes in as its UTF-8 bytes.
 * With `prefix`, the buffer holds the prefix, then the message.
 */
export function encodeReadResult(result: ReadStreamResult, prefix?: MessagePrefix): Buffer {
  const k = readResultKeys;
  const streamIdBytes = utf8Bytes(result.stream_id);
  const directionBytes = utf8Bytes(result.direction);
  const nextRevision = result.next_revision;
  if (nextRevision !== null) assertUint64(nextRevision, "next_revision");
  const size =
    delimitedFieldBytes(streamIdBytes) +
    delimitedFieldBytes(directionBytes) +
    sizeEvents(result.events) +
    (nextRevision === null ? 0 : 1 + varintBytes(nextRevision)) +
    2;
  const head = prefix === undefined ? 0 : prefix.bytes(size);
  const buf = Buffer.allocUnsafe(head + size);
  prefix?.write(buf, size);
  let pos = writeTextField(buf, head, k.stream_id, result.stream_id, streamIdBytes);
  pos = writeTextField(buf, pos, k.direction, result.direction, directionBytes);
  pos = writeEvents(buf, pos, k.events, result.events);
  if (nextRevision !== null) pos = writeVarintField(buf, pos, k.next_revision, nextRevision);
  pos = writeVarintField(buf, pos, k.is_end, result.is_end ? 1 : 0);
  assert(pos === head + size, "ReadResult: the bytes written are the bytes counted");
  return buf;
}

// ---- ReadAllResult (server) ----

const readAllResultKeys = {
  events: key(1, LENGTH_DELIMITED),
  next_position: key(2, VARINT),
  is_end: key(3, VARINT),
};

/** ReadAllResult message from the operation's result (the events as in ReadResult). */
export function encodeReadAllResult(result: ReadAllResult, prefix?: MessagePrefix): Buffer {
  const k = readAllResultKeys;
  const nextPosition = result.next_position;
  if (nextPosition !== null) assertUint64(nextPosition, "next_position");
  const size = sizeEvents(result.events) + (nextPosition === null ? 0 : 1 + varintBytes(nextPosition)) + 2;
  const head = prefix === undefined ? 0 : prefix.bytes(size);
  const buf = Buffer.allocUnsafe(head + size);
  prefix?.write(buf, size);
  let pos = writeEvents(buf, head, k.events, result.events);
  if (nextPosition !== null) pos = writeVarintField(buf, pos, k.next_position, nextPosition);
  pos = writeVarintField(buf, pos, k.is_end, result.is_end ? 1 : 0);
  assert(pos === head + size, "ReadAllResult: the bytes written are the bytes counted");
  return buf;
}

// ---- AppendRequest, ReadRequest (client) ----

/**
 * An AppendRequest as the client builds it: event data/metadata as JSON text, sent as its UTF-8
 * bytes. An undefined optional field is left unset.
 */
export interface AppendRequestMessage {
  stream_id: string;
  tenant?: string | undefined;
  events: {
    event_type: string;
    data: string;
    metadata?: string | undefined;
    event_id?: string | undefined;
  }[];
  expected_revision?: string | undefined;
}

const appendRequestKeys = {
  stream_id: key(1, LENGTH_DELIMITED),
  tenant: key(2, LENGTH_DELIMITED),
  events: key(3, LENGTH_DELIMITED),
  expected_revision: key(4, LENGTH_DELIMITED),
};

const eventToAppendKeys = {
  event_type: key(1, LENGTH_DELIMITED),
  data: key(2, LENGTH_DELIMITED),
  metadata: key(3, LENGTH_DELIMITED),
  event_id: key(4, LENGTH_DELIMITED),
};

function optionalTextFieldBytes(text: string | undefined): number {
  return text === undefined ? 0 : delimitedFieldBytes(utf8Bytes(text));
}

function writeOptionalTextField(buf: Buffer, pos: number, key: number, text: string | undefined): number {
  return text === undefined ? pos : writeTextField(buf, pos, key, text, utf8Bytes(text));
}

export function encodeAppendRequest(message: AppendRequestMessage): Buffer {
  const k = appendRequestKeys;
  const ek = eventToAppendKeys;
  // An append is at most appendEventsMax events; their sizes are counted twice rather than kept.
  const eventBytes = (e: AppendRequestMessage["events"][number]): number =>
    delimitedFieldBytes(utf8Bytes(e.event_type)) +
    delimitedFieldBytes(utf8Bytes(e.data)) +
    optionalTextFieldBytes(e.metadata) +
    optionalTextFieldBytes(e.event_id);
  let size =
    delimitedFieldBytes(utf8Bytes(message.stream_id)) +
    optionalTextFieldBytes(message.tenant) +
    optionalTextFieldBytes(message.expected_revision);
  for (const e of message.events) size += delimitedFieldBytes(eventBytes(e));
  const buf = Buffer.allocUnsafe(size);
  let pos = writeTextField(buf, 0, k.stream_id, message.stream_id, utf8Bytes(message.stream_id));
  pos = writeOptionalTextField(buf, pos, k.tenant, message.tenant);
  for (const e of message.events) {
    buf[pos++] = k.events;
    pos = writeVarint(buf, pos, eventBytes(e));
    pos = writeTextField(buf, pos, ek.event_type, e.event_type, utf8Bytes(e.event_type));
    pos = writeTextField(buf, pos, ek.data, e.data, utf8Bytes(e.data));
    pos = writeOptionalTextField(buf, pos, ek.metadata, e.metadata);
    pos = writeOptionalTextField(buf, pos, ek.event_id, e.event_id);
  }
  pos = writeOptionalTextField(buf, pos, k.expected_revision, message.expected_revision);
  assert(pos === size, "AppendRequest: the bytes written are the bytes counted");
  return buf;
}

/** A ReadRequest as the client builds it; an undefined optional field is left unset. */
export interface ReadRequestMessage {
  stream_id: string;
  tenant?: string | undefined;
  from?: number | undefined;
  limit?: number | undefined;
  direction?: string | undefined;
}

const readRequestKeys = {
  stream_id: key(1, LENGTH_DELIMITED),
  tenant: key(2, LENGTH_DELIMITED),
  from: key(3, VARINT),
  limit: key(4, VARINT),
  direction: key(5, LENGTH_DELIMITED),
};

export function encodeReadRequest(message: ReadRequestMessage): Buffer {
  const k = readRequestKeys;
  const { from, limit } = message;
  if (from !== undefined) assertUint64(from, "from");
  if (limit !== undefined) assertUint32(limit, "limit");
  const streamIdBytes = utf8Bytes(message.stream_id);
  const size =
    delimitedFieldBytes(streamIdBytes) +
    optionalTextFieldBytes(message.tenant) +
    (from === undefined ? 0 : 1 + varintBytes(from)) +
    (limit === undefined ? 0 : 1 + varintBytes(limit)) +
    optionalTextFieldBytes(message.direction);
  const buf = Buffer.allocUnsafe(size);
  let pos = writeTextField(buf, 0, k.stream_id, message.stream_id, streamIdBytes);
  pos = writeOptionalTextField(buf, pos, k.tenant, message.tenant);
  if (from !== undefined) pos = writeVarintField(buf, pos, k.from, from);
  if (limit !== undefined) pos = writeVarintField(buf, pos, k.limit, limit);
  pos = writeOptionalTextField(buf, pos, k.direction, message.direction);
  assert(pos === size, "ReadRequest: the bytes written are the bytes counted");
  return buf;
}

/** A ReadAllRequest as the client builds it; an undefined optional field is left unset. */
export interface ReadAllRequestMessage {
  tenant?: string | undefined;
  from_position?: number | undefined;
  limit?: number | undefined;
}

const readAllRequestKeys = {
  tenant: key(1, LENGTH_DELIMITED),
  from_position: key(2, VARINT),
  limit: key(3, VARINT),
};

export function encodeReadAllRequest(message: ReadAllRequestMessage): Buffer {
  const k = readAllRequestKeys;
  const { from_position: from, limit } = message;
  if (from !== undefined) assertUint64(from, "from_position");
  if (limit !== undefined) assertUint32(limit, "limit");
  const size =
    optionalTextFieldBytes(message.tenant) +
    (from === undefined ? 0 : 1 + varintBytes(from)) +
    (limit === undefined ? 0 : 1 + varintBytes(limit));
  const buf = Buffer.allocUnsafe(size);
  let pos = writeOptionalTextField(buf, 0, k.tenant, message.tenant);
  if (from !== undefined) pos = writeVarintField(buf, pos, k.from_position, from);
  if (limit !== undefined) pos = writeVarintField(buf, pos, k.limit, limit);
  assert(pos === size, "ReadAllRequest: the bytes written are the bytes counted");
  return buf;
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
const emptyBytes = Buffer.alloc(0);

// ---- AppendRequest, ReadRequest (server) ----

function decodeEventToAppend(r: ProtoReader, end: number): EventToAppend__Output {
  const k = eventToAppendKeys;
  let eventType = "";
  let data: Buffer = emptyBytes;
  let metadata: Buffer | undefined;
  let eventId: string | undefined;
  const outer = r.end;
  r.end = end;
  while (r.pos < end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.event_type:
        eventType = r.string("event_type");
        break;
      case k.data:
        data = r.bytes();
        break;
      case k.metadata:
        metadata = r.bytes();
        break;
      case k.event_id:
        eventId = r.string("event_id");
        break;
      default:
        r.skip(fieldKey);
    }
  }
  r.end = outer;
  const event: EventToAppend__Output = { event_type: eventType, data };
  if (metadata !== undefined) event.metadata = metadata;
  if (eventId !== undefined) event.event_id = eventId;
  return event;
}

/** AppendRequest as proto-loader decodes it (the server's Append handler reads this shape). */
export function decodeAppendRequest(buf: Buffer): AppendRequest__Output {
  const k = appendRequestKeys;
  const r = readerFor(buf);
  let streamId = "";
  let tenant: string | undefined;
  const events: EventToAppend__Output[] = [];
  let expectedRevision: string | undefined;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.stream_id:
        streamId = r.string("stream_id");
        break;
      case k.tenant:
        tenant = r.string("tenant");
        break;
      case k.events: {
        const end = r.delimitedEnd();
        events.push(decodeEventToAppend(r, end));
        break;
      }
      case k.expected_revision:
        expectedRevision = r.string("expected_revision");
        break;
      default:
        r.skip(fieldKey);
    }
  }
  const request: AppendRequest__Output = { stream_id: streamId, events };
  if (tenant !== undefined) request.tenant = tenant;
  if (expectedRevision !== undefined) request.expected_revision = expectedRevision;
  return request;
}

/** ReadRequest as proto-loader decodes it. */
export function decodeReadRequest(buf: Buffer): ReadRequest__Output {
  const k = readRequestKeys;
  const r = readerFor(buf);
  let streamId = "";
  let tenant: string | undefined;
  let from: number | undefined;
  let limit: number | undefined;
  let direction: string | undefined;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.stream_id:
        streamId = r.string("stream_id");
        break;
      case k.tenant:
        tenant = r.string("tenant");
        break;
      case k.from:
        from = r.uint64();
        break;
      case k.limit:
        limit = r.varint32();
        break;
      case k.direction:
        direction = r.string("direction");
        break;
      default:
        r.skip(fieldKey);
    }
  }
  const request: ReadRequest__Output = { stream_id: streamId };
  if (tenant !== undefined) request.tenant = tenant;
  if (from !== undefined) request.from = from;
  if (limit !== undefined) request.limit = limit;
  if (direction !== undefined) request.direction = direction;
  return request;
}

/** ReadAllRequest as proto-loader decodes it. */
export function decodeReadAllRequest(buf: Buffer): ReadAllRequest__Output {
  const k = readAllRequestKeys;
  const r = readerFor(buf);
  let tenant: string | undefined;
  let from: number | undefined;
  let limit: number | undefined;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.tenant:
        tenant = r.string("tenant");
        break;
      case k.from_position:
        from = r.uint64();
        break;
      case k.limit:
        limit = r.varint32();
        break;
      default:
        r.skip(fieldKey);
    }
  }
  const request: ReadAllRequest__Output = {};
  if (tenant !== undefined) request.tenant = tenant;
  if (from !== undefined) request.from_position = from;
  if (limit !== undefined) request.limit = limit;
  return request;
}

// ---- AppendResult, ReadResult (client) ----

/** AppendResult straight to the contract's result (what convert.fromPbAppendResult gives). */
export function decodeAppendResult(buf: Buffer): AppendResult {
  const k = appendResultKeys;
  const r = readerFor(buf);
  let streamId = "";
  let firstRevision = 0;
  let lastRevision = 0;
  let position = 0;
  let count = 0;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.stream_id:
        streamId = r.string();
        break;
      case k.first_revision:
        firstRevision = r.uint64();
        break;
      case k.last_revision:
        lastRevision = r.uint64();
        break;
      case k.position:
        position = r.uint64();
        break;
      case k.count:
        count = r.uint64();
        break;
      default:
        r.skip(fieldKey);
    }
  }
  return {
    stream_id: streamId,
    first_revision: firstRevision,
    last_revision: lastRevision,
    position,
    count,
  };
}

/** The last stream id, event type, metadata and creation time of the event page being decoded. */
interface PageStrings {
  streamId: RepeatedText;
  eventType: RepeatedText;
  metadata: RepeatedText;
  createdAt: RepeatedText;
}

function pageStrings(): PageStrings {
  return {
    streamId: new RepeatedText(),
    eventType: new RepeatedText(),
    metadata: new RepeatedText(),
    createdAt: new RepeatedText(),
  };
}

function decodeEventRecord(r: ProtoReader, end: number, page: PageStrings): EventRecord {
  const k = eventRecordKeys;
  let streamId = "";
  let revision = 0;
  let position = 0;
  let eventId = "";
  let eventType = "";
  let data = "";
  let metadata = "";
  let createdAt = "";
  const outer = r.end;
  r.end = end;
  while (r.pos < end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.stream_id:
        streamId = r.repeatedString(page.streamId);
        break;
      case k.revision:
        revision = r.uint64();
        break;
      case k.position:
        position = r.uint64();
        break;
      case k.event_id:
        eventId = r.string();
        break;
      case k.event_type:
        eventType = r.repeatedString(page.eventType);
        break;
      case k.data:
        data = r.string();
        break;
      case k.metadata:
        metadata = r.repeatedString(page.metadata);
        break;
      case k.created_at:
        createdAt = r.repeatedString(page.createdAt);
        break;
      default:
        r.skip(fieldKey);
    }
  }
  r.end = outer;
  return {
    stream_id: streamId,
    revision,
    position,
    event_id: eventId,
    event_type: eventType,
    data,
    metadata,
    created_at: createdAt,
  };
}

/**
 * ReadResult straight to the contract's result (what convert.fromPbReadResult gives): event
 * data/metadata bytes become their text, any direction but "backward" reads as "forward".
 */
export function decodeReadResult(buf: Buffer): ReadStreamResult {
  const k = readResultKeys;
  const r = readerFor(buf);
  let streamId = "";
  let direction = "";
  const events: EventRecord[] = [];
  let page: PageStrings | undefined;
  let nextRevision: number | null = null;
  let isEnd = false;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.stream_id:
        streamId = r.string();
        break;
      case k.direction:
        direction = r.string();
        break;
      case k.events: {
        const end = r.delimitedEnd();
        events.push(decodeEventRecord(r, end, (page ??= pageStrings())));
        break;
      }
      case k.next_revision:
        nextRevision = r.uint64();
        break;
      case k.is_end:
        // A bool is a varint whose low 32 bits are not all zero (protobufjs's reading).
        isEnd = r.varint32() !== 0;
        break;
      default:
        r.skip(fieldKey);
    }
  }
  return {
    stream_id: streamId,
    direction: direction === "backward" ? "backward" : "forward",
    events,
    next_revision: nextRevision,
    is_end: isEnd,
  };
}

/** ReadAllResult straight to the contract's result (what convert.fromPbReadAllResult gives). */
export function decodeReadAllResult(buf: Buffer): ReadAllResult {
  const k = readAllResultKeys;
  const r = readerFor(buf);
  const events: EventRecord[] = [];
  let page: PageStrings | undefined;
  let nextPosition: number | null = null;
  let isEnd = false;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.events: {
        const end = r.delimitedEnd();
        events.push(decodeEventRecord(r, end, (page ??= pageStrings())));
        break;
      }
      case k.next_position:
        nextPosition = r.uint64();
        break;
      case k.is_end:
        isEnd = r.varint32() !== 0;
        break;
      default:
        r.skip(fieldKey);
    }
  }
  return { events, next_position: nextPosition, is_end: isEnd };
}

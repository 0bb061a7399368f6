/**
 * The hand-written codecs of the results of `Streams.Read` and `Streams.ReadAll`, pages of
 * EventRecords (./wire.ts holds their invariants): encoded by the server (a StoredEventRecord's
 * text fields copied from its stored bytes, a plain record's encoded from its strings, each sized
 * once), decoded by the client (a page's repeated strings decoded once).
 */
import { assert } from "../../errors.js";
import {
  binaryContentType,
  jsonContentType,
  type EventRecord,
  type ReadAllResult,
  type ReadStreamResult,
} from "../../contract/bodies.js";
import { RepeatedText, type SlicingBuffer } from "../../buffer-text.js";
import { requireUtf8 } from "../../contract/rules.js";
import { BINARY_DATA, BINARY_METADATA, StoredEventRecord } from "../../contract/stored-event-record.js";
import { VARINT, LENGTH_DELIMITED, key, readerFor, emptyBytes, type ProtoReader } from "./wire.js";
import {
  varintBytes,
  assertUint64,
  writeVarint,
  utf8Bytes,
  isAscii,
  writeBytesField,
  delimitedFieldBytes,
  writeTextField,
  writeVarintField,
  type MessagePrefix,
} from "./writer.js";

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
  content_type: key(9, LENGTH_DELIMITED),
  metadata_bytes: key(10, LENGTH_DELIMITED),
};

/** The content_type field of an EventRecord, key and all: the same bytes for every event of a type. */
const contentTypeFields = {
  json: Buffer.from([eventRecordKeys.content_type, jsonContentType.length, ...Buffer.from(jsonContentType)]),
  binary: Buffer.from([
    eventRecordKeys.content_type,
    binaryContentType.length,
    ...Buffer.from(binaryContentType),
  ]),
};

/** UTF-8 byte counts per event, counted once in the sizing pass and used again when writing. */
const EVENT_SIZES = 10;
const SIZE_STREAM_ID = 0;
const SIZE_EVENT_ID = 1;
const SIZE_EVENT_TYPE = 2;
const SIZE_DATA = 3;
const SIZE_METADATA = 4;
const SIZE_CREATED_AT = 5;
const SIZE_MESSAGE = 6;
/** 1: the event's text fields are copied from its stored bytes (a StoredEventRecord); 0: encoded from its strings. */
const SIZE_FROM_BYTES = 7;
/** The bytes of metadata kept as bytes (field metadata_bytes), or -1 for JSON metadata (field metadata). */
const SIZE_METADATA_BYTES = 8;
/** 1: the event's data is bytes (content type application/octet-stream). */
const SIZE_BINARY_DATA = 9;

function partBytes(part: string | Buffer): number {
  return typeof part === "string" ? utf8Bytes(part) : part.length;
}

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
    let binaryData: boolean;
    let binaryMetadata: boolean;
    if (e instanceof StoredEventRecord && isAscii(e.bytes, e.eventIdStart, e.eventIdEnd)) {
      fromBytes = 1;
      eventIdBytes = e.eventIdEnd - e.eventIdStart;
      eventTypeBytes = e.metadataStart - e.eventTypeStart;
      metadataBytes = e.dataStart - e.metadataStart;
      dataBytes = e.dataEnd - e.dataStart;
      binaryData = (e.binary & BINARY_DATA) !== 0;
      binaryMetadata = (e.binary & BINARY_METADATA) !== 0;
    } else {
      eventIdBytes = utf8Bytes(e.event_id);
      eventTypeBytes = utf8Bytes(e.event_type);
      const data = e.data;
      const metadata = e.metadata;
      dataBytes = partBytes(data);
      metadataBytes = partBytes(metadata);
      binaryData = typeof data !== "string";
      binaryMetadata = typeof metadata !== "string";
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
      // Metadata kept as bytes goes in metadata_bytes, after an empty metadata field.
      (binaryMetadata ? 2 + delimitedFieldBytes(metadataBytes) : delimitedFieldBytes(metadataBytes)) +
      delimitedFieldBytes(createdAtBytes) +
      (binaryData ? contentTypeFields.binary.length : contentTypeFields.json.length);
    const at = i * EVENT_SIZES;
    sizes[at + SIZE_STREAM_ID] = lastStreamIdBytes;
    sizes[at + SIZE_EVENT_ID] = eventIdBytes;
    sizes[at + SIZE_EVENT_TYPE] = eventTypeBytes;
    sizes[at + SIZE_DATA] = dataBytes;
    sizes[at + SIZE_METADATA] = metadataBytes;
    sizes[at + SIZE_CREATED_AT] = createdAtBytes;
    sizes[at + SIZE_MESSAGE] = messageBytes;
    sizes[at + SIZE_FROM_BYTES] = fromBytes;
    sizes[at + SIZE_METADATA_BYTES] = binaryMetadata ? metadataBytes : -1;
    sizes[at + SIZE_BINARY_DATA] = binaryData ? 1 : 0;
    total += delimitedFieldBytes(messageBytes);
  }
  return total;
}

/** Writes the events counted by sizeEvents as repeated field `eventsKey`. */
function writeEvents(buf: Buffer, pos: number, eventsKey: number, events: readonly EventRecord[]): number {
  const sizes = sizeScratch;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const at = i * EVENT_SIZES;
    buf[pos++] = eventsKey;
    pos = writeVarint(buf, pos, sizes[at + SIZE_MESSAGE]!);
    // One function per kind of record, each small enough for V8 to inline the writers it calls.
    pos =
      sizes[at + SIZE_FROM_BYTES] === 1
        ? writeStoredEvent(buf, pos, e as StoredEventRecord, sizes, at)
        : writePlainEvent(buf, pos, e, sizes, at);
  }
  return pos;
}

/** An event's fields, its text fields copied from its stored bytes (sizes as sizeEvents counted them). */
function writeStoredEvent(
  buf: Buffer,
  pos: number,
  stored: StoredEventRecord,
  sizes: Float64Array,
  at: number,
): number {
  const k = eventRecordKeys;
  const bytes = stored.bytes;
  const metadataAsBytes = sizes[at + SIZE_METADATA_BYTES]! >= 0;
  pos = writeTextField(buf, pos, k.stream_id, stored.stream_id, sizes[at + SIZE_STREAM_ID]!);
  pos = writeVarintField(buf, pos, k.revision, stored.revision);
  pos = writeVarintField(buf, pos, k.position, stored.position);
  pos = writeBytesField(buf, pos, k.event_id, bytes, stored.eventIdStart, stored.eventIdEnd);
  pos = writeBytesField(buf, pos, k.event_type, bytes, stored.eventTypeStart, stored.metadataStart);
  pos = writeBytesField(buf, pos, k.data, bytes, stored.dataStart, stored.dataEnd);
  pos = metadataAsBytes
    ? writeEmptyField(buf, pos, k.metadata)
    : writeBytesField(buf, pos, k.metadata, bytes, stored.metadataStart, stored.dataStart);
  pos = writeTextField(buf, pos, k.created_at, stored.created_at, sizes[at + SIZE_CREATED_AT]!);
  pos = writeContentType(buf, pos, sizes[at + SIZE_BINARY_DATA] === 1);
  if (metadataAsBytes)
    pos = writeBytesField(buf, pos, k.metadata_bytes, bytes, stored.metadataStart, stored.dataStart);
  return pos;
}

/** An event's fields, encoded from its strings (sizes as sizeEvents counted them). */
function writePlainEvent(buf: Buffer, pos: number, e: EventRecord, sizes: Float64Array, at: number): number {
  const k = eventRecordKeys;
  const metadataAsBytes = sizes[at + SIZE_METADATA_BYTES]! >= 0;
  pos = writeTextField(buf, pos, k.stream_id, e.stream_id, sizes[at + SIZE_STREAM_ID]!);
  pos = writeVarintField(buf, pos, k.revision, e.revision);
  pos = writeVarintField(buf, pos, k.position, e.position);
  pos = writeTextField(buf, pos, k.event_id, e.event_id, sizes[at + SIZE_EVENT_ID]!);
  pos = writeTextField(buf, pos, k.event_type, e.event_type, sizes[at + SIZE_EVENT_TYPE]!);
  pos = writePartField(buf, pos, k.data, e.data, sizes[at + SIZE_DATA]!);
  const metadata = e.metadata;
  pos = metadataAsBytes
    ? writeEmptyField(buf, pos, k.metadata)
    : writePartField(buf, pos, k.metadata, metadata, sizes[at + SIZE_METADATA]!);
  pos = writeTextField(buf, pos, k.created_at, e.created_at, sizes[at + SIZE_CREATED_AT]!);
  pos = writeContentType(buf, pos, sizes[at + SIZE_BINARY_DATA] === 1);
  if (metadataAsBytes)
    pos = writePartField(buf, pos, k.metadata_bytes, metadata, sizes[at + SIZE_METADATA_BYTES]!);
  return pos;
}

/** An empty length-delimited field (the metadata field of an event whose metadata is bytes). */
function writeEmptyField(buf: Buffer, pos: number, key: number): number {
  buf[pos] = key;
  buf[pos + 1] = 0;
  return pos + 2;
}

function writeContentType(buf: Buffer, pos: number, binary: boolean): number {
  const field = binary ? contentTypeFields.binary : contentTypeFields.json;
  // About 20 bytes: a JS loop costs less than Buffer#copy's call into C++.
  const n = field.length;
  for (let i = 0; i < n; i++) buf[pos + i] = field[i]!;
  return pos + n;
}

/** A data or metadata field from its text (UTF-8, `byteCount` bytes) or its bytes. */
function writePartField(
  buf: Buffer,
  pos: number,
  key: number,
  part: string | Buffer,
  byteCount: number,
): number {
  if (typeof part === "string") return writeTextField(buf, pos, key, part, byteCount);
  return writeBytesField(buf, pos, key, part, 0, part.length);
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

// ---- ReadResult, ReadAllResult (client) ----

/** The last stream id, event type, metadata, creation time and content type of the page being decoded. */
class PageStrings {
  readonly streamId = new RepeatedText();
  readonly eventType = new RepeatedText();
  readonly metadata = new RepeatedText();
  readonly createdAt = new RepeatedText();
  readonly contentType = new RepeatedText();
}

/** A JSON event's data, decoded as ProtoReader.string decodes text (refused when not UTF-8). */
function utf8Text(bytes: Buffer | null): string {
  if (bytes === null || bytes.length === 0) return "";
  const text = (bytes as SlicingBuffer).utf8Slice(0, bytes.length);
  if (text.includes("\uFFFD")) requireUtf8(bytes, "a text field");
  return text;
}

function decodeEventRecord(r: ProtoReader, end: number, page: PageStrings): EventRecord {
  const k = eventRecordKeys;
  let streamId = "";
  let revision = 0;
  let position = 0;
  let eventId = "";
  let eventType = "";
  let data: Buffer | null = null;
  let metadata = "";
  let metadataBytes: Buffer | null = null;
  let createdAt = "";
  let contentType = "";
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
        data = r.bytes();
        break;
      case k.metadata:
        metadata = r.repeatedString(page.metadata);
        break;
      case k.created_at:
        createdAt = r.repeatedString(page.createdAt);
        break;
      case k.content_type:
        contentType = r.repeatedString(page.contentType);
        break;
      case k.metadata_bytes:
        metadataBytes = Buffer.from(r.bytes());
        break;
      default:
        r.skip(fieldKey);
    }
  }
  r.end = outer;
  const binary = contentType === binaryContentType;
  return {
    stream_id: streamId,
    revision,
    position,
    event_id: eventId,
    event_type: eventType,
    data: binary ? Buffer.from(data ?? emptyBytes) : utf8Text(data),
    metadata: metadataBytes ?? metadata,
    created_at: createdAt,
    content_type: binary ? binaryContentType : jsonContentType,
  };
}

/** The keys of a page's fields: ReadResult's (with its stream id and direction) or ReadAllResult's. */
interface PageKeys {
  events: number;
  next: number;
  is_end: number;
  stream_id?: number;
  direction?: number;
}

function decodePage(buf: Buffer, keys: PageKeys) {
  const r = readerFor(buf);
  const page = {
    stream_id: "",
    direction: "",
    events: [] as EventRecord[],
    next: null as number | null,
    is_end: false,
  };
  let strings: PageStrings | undefined;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    if (fieldKey === keys.events) {
      const end = r.delimitedEnd();
      page.events.push(decodeEventRecord(r, end, (strings ??= new PageStrings())));
    } else if (fieldKey === keys.next) page.next = r.uint64();
    // A bool is a varint whose low 32 bits are not all zero (protobufjs's reading).
    else if (fieldKey === keys.is_end) page.is_end = r.varint32() !== 0;
    else if (fieldKey === keys.stream_id) page.stream_id = r.string();
    else if (fieldKey === keys.direction) page.direction = r.string();
    else r.skip(fieldKey);
  }
  return page;
}

/**
 * ReadResult straight to the contract's result (what convert.fromPb("ReadResult") gives): event
 * data/metadata bytes become their text, any direction but "backward" reads as "forward".
 */
export function decodeReadResult(buf: Buffer): ReadStreamResult {
  const k = readResultKeys;
  const page = decodePage(buf, { ...k, next: k.next_revision });
  return {
    stream_id: page.stream_id,
    direction: page.direction === "backward" ? "backward" : "forward",
    events: page.events,
    next_revision: page.next,
    is_end: page.is_end,
  };
}

/** ReadAllResult straight to the contract's result (what convert.fromPb("ReadAllResult") gives). */
export function decodeReadAllResult(buf: Buffer): ReadAllResult {
  const page = decodePage(buf, { ...readAllResultKeys, next: readAllResultKeys.next_position });
  return { events: page.events, next_position: page.next, is_end: page.is_end };
}

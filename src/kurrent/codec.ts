/**
 * Hand-written protobuf codecs for the KurrentDB listener's hot messages, given to grpc-js as the
 * methods' serializers and deserializers (./listener.ts), as src/rpc/codec/ does for ess.v1:
 * - `encodeReadEvent`: a ReadResp holding one event (a read or subscription answers one gRPC
 *   message per event), written straight from the stored record, no object built;
 * - `encodeBatchAppendSuccess`: a BatchAppendResp answering a batch that was appended;
 * - `decodeBatchAppendReq`, `decodeAppendReq` (./request-decoders.ts): the append requests with
 *   their proposed events.
 * Every other message (a read's request, stream_not_found, confirmation, caught-up, a batch's
 * error...) keeps proto-loader's (protobufjs) codec: a serializer here takes a message a handler
 * encoded already (a Buffer) as it is and gives anything else to protobufjs (`passEncoded`).
 * Why: protobufjs's `fromObject` + `encode` per ReadResp, and its `decode` + `toObject` (a map per
 * event) per BatchAppendReq, were most of the listener's own CPU (docs/kurrent.md, "Performance").
 *
 * Invariants (test/kurrent/codec-conformance.test.ts checks them against protobufjs's reflection
 * of proto/kurrent/, so a field renumbered or retyped there fails):
 * - The encoders write exactly the bytes protobufjs writes for the objects the handlers built
 *   before: fields in field-number order, plain fields also when they hold their default, the
 *   metadata map's entries in the order type, created, content-type.
 * - The decoders give what proto-loader's decode gives with the options of ./proto.ts (64-bit
 *   integers as decimal text, defaults filled, oneof markers), except that the deadline of a
 *   BatchAppend's options (`deadline_21_10_0`, `deadline`, `deadline_option`) is skipped: nothing
 *   reads it. They read any valid encoding (fields in any order, unknown fields and known fields
 *   of another wire type skipped, a repeated map key's last value kept), refuse text that is not
 *   UTF-8 and bytes that are not protobuf with an INVALID_ARGUMENT EssError (../rpc/codec/wire.ts's
 *   ProtoReader), which the listener answers as INVALID_ARGUMENT (../rpc/malformed-request.ts).
 */
import { binaryContentType, jsonContentType, type EventRecord } from "../contract/bodies.js";
import { StoredEventRecord, BINARY_DATA } from "../contract/stored-event-record.js";
import { LENGTH_DELIMITED, VARINT, key } from "../rpc/codec/wire.js";
import {
  assertUint64,
  delimitedFieldBytes,
  isAscii,
  utf8Bytes,
  varintBytes,
  writeBytesField,
  writeTextField,
  writeVarint,
  writeVarintField,
  writeVarintHalves,
} from "../rpc/codec/writer.js";
import type { UuidForm } from "./convert.js";

/** A uint64 field with a one-byte key: its bytes. */
function varintFieldBytes(value: number): number {
  return 1 + varintBytes(value);
}

/** Bytes of a varint of [lo, hi] (10 for a negative int64). */
function varint64Bytes(lo: number, hi: number): number {
  if (hi === 0) return varintBytes(lo);
  let n = 5; // the low 32 bits and the first 3 of the high half
  let rest = hi >>> 3;
  while (rest !== 0) {
    n++;
    rest >>>= 7;
  }
  return n;
}

/**
 * An event id as a UUID message's contents: the canonical text (`string`, field 2), or the two
 * signed 64-bit halves (`structured`, field 1, holding fields 1 and 2).
 */
interface UuidParts {
  /** The text's UTF-8 bytes (string form); for the structured form, the Structured message's bytes. */
  bytes: number;
  msbLo: number;
  msbHi: number;
  lsbLo: number;
  lsbHi: number;
}

const uuidScratch: UuidParts = { bytes: 0, msbLo: 0, msbHi: 0, lsbLo: 0, lsbHi: 0 };

/** The structured form's halves of `id` (canonical text) into uuidScratch; returns the UUID message's bytes. */
function structuredUuidBytes(id: string): number {
  const h = id.replace(/-/g, "");
  const msb = BigInt.asUintN(64, BigInt(`0x${h.slice(0, 16)}`));
  const lsb = BigInt.asUintN(64, BigInt(`0x${h.slice(16)}`));
  const s = uuidScratch;
  s.msbLo = Number(msb & 0xffffffffn);
  s.msbHi = Number(msb >> 32n);
  s.lsbLo = Number(lsb & 0xffffffffn);
  s.lsbHi = Number(lsb >> 32n);
  s.bytes = 1 + varint64Bytes(s.msbLo, s.msbHi) + 1 + varint64Bytes(s.lsbLo, s.lsbHi);
  return delimitedFieldBytes(s.bytes);
}

function writeStructuredUuid(buf: Buffer, pos: number): number {
  const s = uuidScratch;
  buf[pos++] = key(1, LENGTH_DELIMITED);
  pos = writeVarint(buf, pos, s.bytes);
  buf[pos++] = key(1, VARINT);
  pos = writeVarintHalves(buf, pos, s.msbLo, s.msbHi);
  buf[pos++] = key(2, VARINT);
  return writeVarintHalves(buf, pos, s.lsbLo, s.lsbHi);
}

const readRespKeys = {
  event: key(1, LENGTH_DELIMITED),
  readEvent: { event: key(1, LENGTH_DELIMITED), commit_position: key(3, VARINT) },
  recorded: {
    id: key(1, LENGTH_DELIMITED),
    stream_identifier: key(2, LENGTH_DELIMITED),
    stream_revision: key(3, VARINT),
    prepare_position: key(4, VARINT),
    commit_position: key(5, VARINT),
    metadata: key(6, LENGTH_DELIMITED),
    custom_metadata: key(7, LENGTH_DELIMITED),
    data: key(8, LENGTH_DELIMITED),
  },
  uuidString: key(2, LENGTH_DELIMITED),
  streamName: key(3, LENGTH_DELIMITED),
  entryKey: key(1, LENGTH_DELIMITED),
  entryValue: key(2, LENGTH_DELIMITED),
};

/** A metadata map entry with a fixed key, written once: key field, length of the value follows. */
function entryHead(name: string): Buffer {
  return Buffer.concat([Buffer.from([readRespKeys.entryKey, name.length]), Buffer.from(name, "latin1")]);
}
const typeEntry = entryHead("type");
const createdEntry = entryHead("created");
const contentTypeEntry = entryHead("content-type");

/** A map entry's bytes (key field + value field) for a fixed key of `head` and a value of `valueBytes`. */
function entryBytes(head: Buffer, valueBytes: number): number {
  return head.length + delimitedFieldBytes(valueBytes);
}

function writeEntry(buf: Buffer, pos: number, head: Buffer, value: string, valueBytes: number): number {
  buf[pos++] = readRespKeys.recorded.metadata;
  pos = writeVarint(buf, pos, entryBytes(head, valueBytes));
  for (let i = 0; i < head.length; i++) buf[pos++] = head[i]!;
  return writeTextField(buf, pos, readRespKeys.entryValue, value, valueBytes);
}

/** The last stream name encoded, with its UTF-8 length: every event of a stream read has the same. */
const lastStream = { name: "", bytes: 0 };

/** .NET ticks since the Unix epoch as decimal text (ms followed by four zeros; 0 stays "0"). */
function ticksText(ms: number): string {
  return ms === 0 ? "0" : `${ms}0000`;
}

/**
 * A ReadResp holding `record` as its `event` (with commit_position), the event id in `form`
 * (docs/kurrent.md, "How KurrentDB concepts map onto ess"): the id, the stream's name, revision,
 * commit = prepare = position, the metadata map (type, created as .NET ticks, content-type),
 * the event's metadata as custom_metadata and its data, as stored. A StoredEventRecord's id,
 * type, metadata and data are copied from its stored bytes.
 *
 * long: it sizes the message and then writes it with the same locals, once per event on the
 * listener's read path; split into parts it would build an object of parts per event.
 */
export function encodeReadEvent(record: EventRecord, form: UuidForm): Buffer {
  const k = readRespKeys.recorded;
  assertUint64(record.revision, "stream_revision");
  assertUint64(record.position, "commit_position");
  const stored = record instanceof StoredEventRecord ? record : null;
  // The parts: [source buffer, start, end) when copied from stored bytes; else strings/Buffers.
  let idText: string | null = null;
  let idBytes: number;
  let typeText: string | null = null;
  let typeBytes: number;
  let metadataPart: string | Buffer | null = null;
  let metadataBytes: number;
  let dataPart: string | Buffer | null = null;
  let dataBytes: number;
  let createdMs: number;
  let contentType: string;
  if (stored !== null && isAscii(stored.bytes, stored.eventIdStart, stored.eventIdEnd)) {
    idBytes = stored.eventIdEnd - stored.eventIdStart;
    typeBytes = stored.metadataStart - stored.eventTypeStart;
    metadataBytes = stored.dataStart - stored.metadataStart;
    dataBytes = stored.dataEnd - stored.dataStart;
    createdMs = stored.createdAtMs;
    contentType = (stored.binary & BINARY_DATA) === 0 ? jsonContentType : binaryContentType;
  } else {
    idText = record.event_id;
    idBytes = utf8Bytes(idText);
    typeText = record.event_type;
    typeBytes = utf8Bytes(typeText);
    metadataPart = record.metadata;
    metadataBytes = typeof metadataPart === "string" ? utf8Bytes(metadataPart) : metadataPart.length;
    dataPart = record.data;
    dataBytes = typeof dataPart === "string" ? utf8Bytes(dataPart) : dataPart.length;
    createdMs = Date.parse(record.created_at);
    contentType = record.content_type;
  }
  const structured = form === "structured";
  const uuidBytes = structured
    ? structuredUuidBytes(idText ?? record.event_id)
    : delimitedFieldBytes(idBytes);
  const streamId = record.stream_id;
  if (streamId !== lastStream.name) {
    lastStream.name = streamId;
    lastStream.bytes = utf8Bytes(streamId);
  }
  const nameBytes = lastStream.bytes;
  const identifierBytes = delimitedFieldBytes(nameBytes);
  const created = ticksText(createdMs);
  const position = record.position;
  const recordedBytes =
    delimitedFieldBytes(uuidBytes) +
    delimitedFieldBytes(identifierBytes) +
    varintFieldBytes(record.revision) +
    2 * varintFieldBytes(position) +
    delimitedFieldBytes(entryBytes(typeEntry, typeBytes)) +
    delimitedFieldBytes(entryBytes(createdEntry, created.length)) +
    delimitedFieldBytes(entryBytes(contentTypeEntry, contentType.length)) +
    delimitedFieldBytes(metadataBytes) +
    delimitedFieldBytes(dataBytes);
  const readEventBytes = delimitedFieldBytes(recordedBytes) + varintFieldBytes(position);
  const total = delimitedFieldBytes(readEventBytes);
  const buf = Buffer.allocUnsafe(total);
  let pos = 0;
  buf[pos++] = readRespKeys.event;
  pos = writeVarint(buf, pos, readEventBytes);
  buf[pos++] = readRespKeys.readEvent.event;
  pos = writeVarint(buf, pos, recordedBytes);
  // id
  buf[pos++] = k.id;
  pos = writeVarint(buf, pos, uuidBytes);
  if (structured) pos = writeStructuredUuid(buf, pos);
  else if (stored !== null && idText === null) {
    pos = writeBytesField(
      buf,
      pos,
      readRespKeys.uuidString,
      stored.bytes,
      stored.eventIdStart,
      stored.eventIdEnd,
    );
  } else pos = writeTextField(buf, pos, readRespKeys.uuidString, idText!, idBytes);
  // stream_identifier
  buf[pos++] = k.stream_identifier;
  pos = writeVarint(buf, pos, identifierBytes);
  pos = writeTextField(buf, pos, readRespKeys.streamName, streamId, nameBytes);
  pos = writeVarintField(buf, pos, k.stream_revision, record.revision);
  pos = writeVarintField(buf, pos, k.prepare_position, position);
  pos = writeVarintField(buf, pos, k.commit_position, position);
  // metadata: type, created, content-type
  if (typeText === null) {
    buf[pos++] = k.metadata;
    pos = writeVarint(buf, pos, entryBytes(typeEntry, typeBytes));
    for (let i = 0; i < typeEntry.length; i++) buf[pos++] = typeEntry[i]!;
    pos = writeBytesField(
      buf,
      pos,
      readRespKeys.entryValue,
      stored!.bytes,
      stored!.eventTypeStart,
      stored!.metadataStart,
    );
  } else pos = writeEntry(buf, pos, typeEntry, typeText, typeBytes);
  pos = writeEntry(buf, pos, createdEntry, created, created.length);
  pos = writeEntry(buf, pos, contentTypeEntry, contentType, contentType.length);
  // custom_metadata, data
  if (metadataPart === null) {
    pos = writeBytesField(
      buf,
      pos,
      k.custom_metadata,
      stored!.bytes,
      stored!.metadataStart,
      stored!.dataStart,
    );
    pos = writeBytesField(buf, pos, k.data, stored!.bytes, stored!.dataStart, stored!.dataEnd);
  } else {
    pos = writePart(buf, pos, k.custom_metadata, metadataPart, metadataBytes);
    pos = writePart(buf, pos, k.data, dataPart!, dataBytes);
  }
  // ReadEvent.commit_position
  pos = writeVarintField(buf, pos, readRespKeys.readEvent.commit_position, position);
  if (pos !== total) throw new Error(`encodeReadEvent wrote ${pos} of ${total} bytes`);
  return buf;
}

function writePart(buf: Buffer, pos: number, fieldKey: number, part: string | Buffer, bytes: number): number {
  return typeof part === "string"
    ? writeTextField(buf, pos, fieldKey, part, bytes)
    : writeBytesField(buf, pos, fieldKey, part, 0, part.length);
}

/**
 * What a batch that was appended answers: its last revision (null: no_stream, for a batch of no
 * events to a stream without any), and its position (none for a metastream or a batch of no events).
 */
export interface BatchAppended {
  revision: number | null;
  position: number | null;
}

const batchRespKeys = {
  correlation_id: key(1, LENGTH_DELIMITED),
  success: key(3, LENGTH_DELIMITED),
  stream_identifier: key(4, LENGTH_DELIMITED),
  current_revision: key(1, VARINT),
  no_stream: key(2, LENGTH_DELIMITED),
  position: key(3, LENGTH_DELIMITED),
  no_position: key(4, LENGTH_DELIMITED),
  commit_position: key(1, VARINT),
  prepare_position: key(2, VARINT),
};

/**
 * A BatchAppendResp with `success`: the correlation id as text (string form), the stream's
 * identifier, the last revision or no_stream, and the position (commit = prepare) or no_position.
 */
export function encodeBatchAppendSuccess(
  correlation: string,
  streamName: string,
  appended: BatchAppended,
): Buffer {
  const k = batchRespKeys;
  const revision = appended.revision;
  if (revision !== null) assertUint64(revision, "current_revision");
  const correlationBytes = utf8Bytes(correlation);
  const uuidBytes = delimitedFieldBytes(correlationBytes);
  const nameBytes = utf8Bytes(streamName);
  const identifierBytes = delimitedFieldBytes(nameBytes);
  const position = appended.position;
  let positionBytes = 0;
  if (position !== null) {
    assertUint64(position, "commit_position");
    positionBytes = 2 * varintFieldBytes(position);
  }
  const successBytes =
    (revision === null ? 2 : varintFieldBytes(revision)) +
    (position === null ? 2 : delimitedFieldBytes(positionBytes));
  const total =
    delimitedFieldBytes(uuidBytes) + delimitedFieldBytes(successBytes) + delimitedFieldBytes(identifierBytes);
  const buf = Buffer.allocUnsafe(total);
  let pos = 0;
  buf[pos++] = k.correlation_id;
  pos = writeVarint(buf, pos, uuidBytes);
  pos = writeTextField(buf, pos, readRespKeys.uuidString, correlation, correlationBytes);
  buf[pos++] = k.success;
  pos = writeVarint(buf, pos, successBytes);
  if (revision === null) {
    buf[pos++] = k.no_stream;
    buf[pos++] = 0;
  } else {
    pos = writeVarintField(buf, pos, k.current_revision, revision);
  }
  if (position === null) {
    buf[pos++] = k.no_position;
    buf[pos++] = 0;
  } else {
    buf[pos++] = k.position;
    pos = writeVarint(buf, pos, positionBytes);
    pos = writeVarintField(buf, pos, k.commit_position, position);
    pos = writeVarintField(buf, pos, k.prepare_position, position);
  }
  buf[pos++] = k.stream_identifier;
  pos = writeVarint(buf, pos, identifierBytes);
  pos = writeTextField(buf, pos, readRespKeys.streamName, streamName, nameBytes);
  if (pos !== total) throw new Error(`encodeBatchAppendSuccess wrote ${pos} of ${total} bytes`);
  return buf;
}

/**
 * A method's serializer that passes a message a handler encoded itself (a Buffer) as it is and
 * gives any other to `generic` (proto-loader's).
 */
export function passEncoded<T>(generic: (message: T) => Buffer): (message: T | Buffer) => Buffer {
  return (message) => (Buffer.isBuffer(message) ? message : generic(message));
}

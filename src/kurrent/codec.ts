/**
 * Hand-written protobuf codecs for the KurrentDB listener's hot messages, given to grpc-js as the
 * methods' serializers and deserializers (./listener.ts), as src/rpc/codec/ does for ess.v1:
 * - `encodeReadEvent`: a ReadResp holding one event (a read or subscription answers one gRPC
 *   message per event), written straight from the stored record, no object built;
 * - `encodeBatchAppendSuccess`: a BatchAppendResp answering a batch that was appended;
 * - `decodeBatchAppendReq`, `decodeAppendReq`: the append requests with their proposed events.
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
import { invalidArgument } from "../errors.js";
import { binaryContentType, jsonContentType, type EventRecord } from "../contract/bodies.js";
import { StoredEventRecord, BINARY_DATA } from "../contract/stored-event-record.js";
import { LENGTH_DELIMITED, VARINT, emptyBytes, key, readerFor, type ProtoReader } from "../rpc/codec/wire.js";
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
import type { UUID__Output } from "../rpc/generated/kurrent/event_store/client/UUID.js";
import type { StreamIdentifier__Output } from "../rpc/generated/kurrent/event_store/client/StreamIdentifier.js";
import type { BatchAppendReq__Output } from "../rpc/generated/kurrent/event_store/client/streams/BatchAppendReq.js";
import type { AppendReq__Output } from "../rpc/generated/kurrent/event_store/client/streams/AppendReq.js";
import type { ProposedMessage } from "./convert.js";
import type { UuidForm } from "./convert.js";
import { RepeatedText } from "../buffer-text.js";

// ---------------------------------------------------------------- 64-bit text

/** A varint's 64 bits as [lo, hi] (unsigned 32-bit halves); INVALID_ARGUMENT when truncated or too long. */
function varint64(r: ProtoReader): [number, number] {
  const buf = r.buf;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < 10; i++) {
    if (r.pos >= r.end) throw invalidArgument("malformed protobuf message: truncated varint");
    const b = buf[r.pos++]!;
    if (i < 4) lo |= (b & 127) << (7 * i);
    else if (i === 4) {
      lo |= (b & 127) << 28;
      hi |= (b & 127) >> 4;
    } else hi |= (b & 127) << (7 * i - 32);
    if (b < 128) return [lo >>> 0, hi >>> 0];
  }
  throw invalidArgument("malformed protobuf message: varint longer than 10 bytes");
}

/** A uint64 field as proto-loader gives it with `longs: String`: exact decimal text. */
function uint64Text(r: ProtoReader): string {
  const [lo, hi] = varint64(r);
  if (hi < 0x200000) return String(hi * 4294967296 + lo);
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** An int64 field as decimal text (two's complement: the top bit set is negative). */
function int64Text(r: ProtoReader): string {
  const [lo, hi] = varint64(r);
  if (hi < 0x200000) return String(hi * 4294967296 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

// ---------------------------------------------------------------- decoding

/** Reads the embedded message whose key was just read with `read`, inside its own bounds. */
function embedded<T>(r: ProtoReader, read: (r: ProtoReader) => T): T {
  const end = r.delimitedEnd();
  const outer = r.end;
  r.end = end;
  const value = read(r);
  r.pos = end;
  r.end = outer;
  return value;
}

/** google.protobuf.Empty or event_store.client.Empty: `{}` whatever unknown fields it holds. */
function empty(r: ProtoReader): Record<string, never> {
  return embedded(r, (inner) => {
    while (inner.pos < inner.end) inner.skip(inner.varint32());
    return {};
  });
}

function decodeStructured(r: ProtoReader): { most_significant_bits: string; least_significant_bits: string } {
  const out = { most_significant_bits: "0", least_significant_bits: "0" };
  while (r.pos < r.end) {
    const k = r.varint32();
    if (k === key(1, VARINT)) out.most_significant_bits = int64Text(r);
    else if (k === key(2, VARINT)) out.least_significant_bits = int64Text(r);
    else r.skip(k);
  }
  return out;
}

function decodeUuid(r: ProtoReader): UUID__Output {
  const out: UUID__Output = {};
  while (r.pos < r.end) {
    const k = r.varint32();
    if (k === key(1, LENGTH_DELIMITED)) {
      if (out.value !== undefined) delete out.string;
      out.structured = embedded(r, decodeStructured);
      out.value = "structured";
    } else if (k === key(2, LENGTH_DELIMITED)) {
      if (out.value !== undefined) delete out.structured;
      out.string = r.string("uuid");
      out.value = "string";
    } else r.skip(k);
  }
  return out;
}

function decodeStreamIdentifier(r: ProtoReader): StreamIdentifier__Output {
  let name: Buffer = emptyBytes;
  while (r.pos < r.end) {
    const k = r.varint32();
    if (k === key(3, LENGTH_DELIMITED)) name = r.bytes();
    else r.skip(k);
  }
  return { stream_name: name };
}

/**
 * The last text of the first metadata entries' keys and values (../buffer-text.ts): clients send
 * the same `type` and `content-type` entries with every event, so most are not decoded again.
 */
const entryTexts = [new RepeatedText(), new RepeatedText(), new RepeatedText(), new RepeatedText()];

/** The `index`-th map<string, string> entry into `into` (a key or value left out is ""). */
function decodeMapEntry(r: ProtoReader, into: Record<string, string>, index: number): void {
  let k = "";
  let v = "";
  const texts = index < 2 ? entryTexts : null;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    if (fieldKey === key(1, LENGTH_DELIMITED))
      k = texts === null ? r.string("metadata") : r.repeatedString(texts[2 * index]!);
    else if (fieldKey === key(2, LENGTH_DELIMITED))
      v = texts === null ? r.string("metadata") : r.repeatedString(texts[2 * index + 1]!);
    else r.skip(fieldKey);
  }
  into[k] = v;
}

/** AppendReq.ProposedMessage and BatchAppendReq.ProposedMessage (the same fields). */
function decodeProposedMessage(r: ProtoReader): ProposedMessage {
  const out: ProposedMessage = { id: null, metadata: {}, custom_metadata: emptyBytes, data: emptyBytes };
  let entries = 0;
  while (r.pos < r.end) {
    const k = r.varint32();
    switch (k) {
      case key(1, LENGTH_DELIMITED):
        out.id = embedded(r, decodeUuid);
        break;
      case key(2, LENGTH_DELIMITED): {
        const end = r.delimitedEnd();
        const outer = r.end;
        r.end = end;
        decodeMapEntry(r, out.metadata, entries++);
        r.pos = end;
        r.end = outer;
        break;
      }
      case key(3, LENGTH_DELIMITED):
        out.custom_metadata = r.bytes();
        break;
      case key(4, LENGTH_DELIMITED):
        out.data = r.bytes();
        break;
      default:
        r.skip(k);
    }
  }
  return out;
}

type BatchOptions = NonNullable<BatchAppendReq__Output["options"]>;
type AppendOptions = NonNullable<AppendReq__Output["options"]>;

/**
 * The fields AppendReq.Options and BatchAppendReq.Options share: the stream (1) and the
 * expected-revision oneof (2: a revision, 3: no_stream, 4: any, 5: stream_exists), which the two
 * messages name differently only for field 2 ("revision" and "stream_position"). Anything else is
 * skipped (BatchAppendReq's deadline, 6 and 7: nothing reads it, see the header).
 */
interface ExpectedOptions {
  stream_identifier: StreamIdentifier__Output | null;
  /** The oneof member read last (a oneof's last member wins); "number" is field 2. */
  choice?: "number" | "no_stream" | "any" | "stream_exists";
  number?: string;
}

function decodeExpectedOptions(r: ProtoReader): ExpectedOptions {
  const out: ExpectedOptions = { stream_identifier: null };
  while (r.pos < r.end) {
    const k = r.varint32();
    switch (k) {
      case key(1, LENGTH_DELIMITED):
        out.stream_identifier = embedded(r, decodeStreamIdentifier);
        break;
      case key(2, VARINT):
        out.choice = "number";
        out.number = uint64Text(r);
        break;
      case key(3, LENGTH_DELIMITED):
        empty(r);
        out.choice = "no_stream";
        break;
      case key(4, LENGTH_DELIMITED):
        empty(r);
        out.choice = "any";
        break;
      case key(5, LENGTH_DELIMITED):
        empty(r);
        out.choice = "stream_exists";
        break;
      default:
        r.skip(k);
    }
  }
  return out;
}

function decodeBatchOptions(r: ProtoReader): BatchOptions {
  const { stream_identifier, choice, number } = decodeExpectedOptions(r);
  const out: BatchOptions = { stream_identifier };
  if (choice === "number") {
    out.expected_stream_position = "stream_position";
    out.stream_position = number;
  } else if (choice !== undefined) {
    out.expected_stream_position = choice;
    out[choice] = {};
  }
  return out;
}

/** A BatchAppendReq, as proto-loader gives it (see the header for the deadline). */
export function decodeBatchAppendReq(bytes: Buffer): BatchAppendReq__Output {
  const r = readerFor(bytes);
  const out: BatchAppendReq__Output = {
    correlation_id: null,
    options: null,
    proposed_messages: [],
    is_final: false,
  };
  while (r.pos < r.end) {
    const k = r.varint32();
    switch (k) {
      case key(1, LENGTH_DELIMITED):
        out.correlation_id = embedded(r, decodeUuid);
        break;
      case key(2, LENGTH_DELIMITED):
        out.options = embedded(r, decodeBatchOptions);
        break;
      case key(3, LENGTH_DELIMITED):
        out.proposed_messages.push(embedded(r, decodeProposedMessage));
        break;
      case key(4, VARINT):
        out.is_final = r.uint64() !== 0;
        break;
      default:
        r.skip(k);
    }
  }
  return out;
}

function decodeAppendOptions(r: ProtoReader): AppendOptions {
  const { stream_identifier, choice, number } = decodeExpectedOptions(r);
  const out: AppendOptions = { stream_identifier };
  if (choice === "number") {
    out.expected_stream_revision = "revision";
    out.revision = number;
  } else if (choice !== undefined) {
    out.expected_stream_revision = choice;
    out[choice] = {};
  }
  return out;
}

/** An AppendReq (the options, or one proposed event), as proto-loader gives it. */
export function decodeAppendReq(bytes: Buffer): AppendReq__Output {
  const r = readerFor(bytes);
  const out: AppendReq__Output = {};
  while (r.pos < r.end) {
    const k = r.varint32();
    if (k === key(1, LENGTH_DELIMITED)) {
      if (out.content !== undefined) delete out.proposed_message;
      out.options = embedded(r, decodeAppendOptions);
      out.content = "options";
    } else if (k === key(2, LENGTH_DELIMITED)) {
      if (out.content !== undefined) delete out.options;
      out.proposed_message = embedded(r, decodeProposedMessage);
      out.content = "proposed_message";
    } else r.skip(k);
  }
  return out;
}

// ---------------------------------------------------------------- encoding

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
 * Long on purpose: it sizes the message and then writes it with the same locals, once per event
 * on the listener's read path; split into parts it would build an object of parts per event.
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

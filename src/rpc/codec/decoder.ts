/**
 * Decoders that follow the .proto mechanically: a message's fields read as protobufjs's
 * reflection of proto/ declares them (../proto.ts), into what proto-loader's decode gives with our
 * options (./wire.ts holds the invariants): plain fields at their defaults when unset (a repeated
 * one: []), an unset `optional` field absent, a string refused with INVALID_ARGUMENT naming its
 * field when its bytes are not UTF-8, `bytes` a view into the message, embedded messages read in
 * place. Used for the messages a hand-written decoder would only copy field by field (the Read
 * and ReadAll requests, ReadSession's, AppendResult, SessionError); the AppendRequest, on every
 * append, and the event pages keep theirs (./append.ts, ./read-results.ts).
 */
import protobuf from "protobufjs";
import { protoRoot } from "../proto.js";
import { emptyBytes, key, LENGTH_DELIMITED, readerFor, VARINT, type ProtoReader } from "./wire.js";

type Message = Record<string, unknown>;

interface FieldReader {
  name: string;
  repeated: boolean;
  read: (r: ProtoReader) => unknown;
}

interface MessageReader {
  /** The fields by key (field number << 3 | wire type); another key is skipped. */
  byKey: Map<number, FieldReader>;
  /** The plain and repeated fields' names, in the fields' order, and their defaults (undefined: a new []). */
  plainNames: string[];
  plainDefaults: unknown[];
}

const readers = new Map<protobuf.Type, MessageReader>();

function readerOf(type: protobuf.Type): MessageReader {
  let reader = readers.get(type);
  if (reader !== undefined) return reader;
  reader = { byKey: new Map(), plainNames: [], plainDefaults: [] };
  readers.set(type, reader);
  for (const field of type.fieldsArray) {
    const { name, repeated } = field;
    const [wireType, read, empty] = valueReader(field);
    reader.byKey.set(key(field.id, wireType), { name, repeated, read });
    const optional = (field.options as { proto3_optional?: boolean } | undefined)?.proto3_optional === true;
    if (repeated || !optional) {
      reader.plainNames.push(name);
      reader.plainDefaults.push(repeated ? undefined : empty);
    }
  }
  return reader;
}

/** A field's wire type, how its value is read, and its default. */
function valueReader(field: protobuf.Field): [number, (r: ProtoReader) => unknown, unknown] {
  if (field.resolvedType instanceof protobuf.Type) {
    const nested = readerOf(field.resolvedType);
    return [LENGTH_DELIMITED, (r) => readMessage(r, r.delimitedEnd(), nested), null];
  }
  if (field.repeated && field.type !== "string" && field.type !== "bytes") {
    throw new Error(`${field.fullName}: a repeated ${field.type} has no decoder here`);
  }
  switch (field.type) {
    case "string":
      return [LENGTH_DELIMITED, (r) => r.string(field.name), ""];
    case "bytes":
      return [LENGTH_DELIMITED, (r) => r.bytes(), emptyBytes];
    case "uint64":
      return [VARINT, (r) => r.uint64(), 0];
    case "uint32":
      return [VARINT, (r) => r.varint32(), 0];
    case "bool":
      // A bool is a varint whose low 32 bits are not all zero (protobufjs's reading).
      return [VARINT, (r) => r.varint32() !== 0, false];
    default:
      throw new Error(`${field.fullName}: a ${field.type} has no decoder here`);
  }
}

/** The message in r's buffer up to `end`. */
function readMessage(r: ProtoReader, end: number, reader: MessageReader): Message {
  const message: Message = {};
  const { plainNames, plainDefaults } = reader;
  for (let i = 0; i < plainNames.length; i++) {
    const empty = plainDefaults[i];
    message[plainNames[i]!] = empty === undefined ? [] : empty;
  }
  const outer = r.end;
  r.end = end;
  while (r.pos < end) {
    const fieldKey = r.varint32();
    const field = reader.byKey.get(fieldKey);
    if (field === undefined) r.skip(fieldKey);
    else if (field.repeated) (message[field.name] as unknown[]).push(field.read(r));
    else message[field.name] = field.read(r);
  }
  r.end = outer;
  return message;
}

/** The decoder of ess.v1 message `name`. */
export function messageDecoder<T>(name: string): (buf: Buffer) => T {
  const reader = readerOf(protoRoot.lookupType(`ess.v1.${name}`));
  return (buf) => readMessage(readerFor(buf), buf.length, reader) as T;
}

// The hand-written protobuf codecs (src/rpc/codec/, src/rpc/session-codec.ts) held to the .proto
// field by field. No field is named here: every message is walked as protobufjs's reflection sees
// it (proto/ loaded as src/rpc/proto.ts loads it), so a field added to the .proto and not to a
// codec fails here, with its name, number and type. For every message a hand codec writes or reads:
// - set to a value that is not its default, every field is written under its number and wire type
//   and nothing else is written; every field protobufjs writes is read back;
// - random messages made from the reflection (every field; optional fields set and unset; repeated
//   fields empty, few and many; non-ASCII text; uint64 up to 2^53-1; each member of a oneof) are
//   written by the hand encoder as protobufjs writes them and read back by protobufjs field for
//   field, and written by protobufjs are read by the hand decoder as protobufjs reads them.
//
// Where a codec differs from protobufjs on purpose, it is written down here:
// - Shapes: the operations' results (AppendResult, ReadStreamResult, ReadAllResult, EventRecord of
//   storage/engine.ts) hold an unset `optional` field as null and a `bytes` field (event data,
//   metadata) as its UTF-8 text; the client's AppendRequestMessage holds data and metadata as
//   text too. Those bytes are therefore made valid UTF-8 here. Except bytes that are bytes: an
//   event's data when its content_type is application/octet-stream, and metadata_bytes, stay
//   Buffers; the contract's EventRecord holds metadata_bytes in `metadata` (a Buffer there), and
//   its content_type as one of the two types (unset or anything else: application/json). The
//   server's encoder always writes a content_type and an empty `metadata` beside
//   metadata_bytes: the messages it is held to here are made so (canonicalEvents).
// - A string field, or a bytes field held as text, that is not valid UTF-8 is refused with
//   INVALID_ARGUMENT, where protobufjs decodes it with replacement characters (test below).
// - The client's ReadResult decoder reads any direction but "backward" as "forward" (the
//   contract's direction is one of the two).
// - proto-loader's oneof markers (`_tenant`, `outcome`) are left out: nothing reads them.
// - What the service always sets cannot be left unset through an encoder's type: a session
//   request's `append` / `read`, a session answer's `outcome`.
// - Text is made of well-formed strings: a lone surrogate is written as U+FFFD by Buffer, as
//   invalid bytes by protobufjs (docs/rpc.md, "Codecs").
// - Elsewhere: a known field number sent with another wire type, groups and bounded nesting
//   (hostile-protobuf.test.ts); uint64 values above 2^53 and over-long varints, event records
//   encoded from stored bytes (codec.test.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import protobuf from "protobufjs";
import type { MethodDefinition } from "@grpc/proto-loader";
import { EssError } from "../../src/errors.js";
import * as appendCodec from "../../src/rpc/codec/append.js";
import * as readRequestCodec from "../../src/rpc/codec/read-requests.js";
import * as readResultCodec from "../../src/rpc/codec/read-results.js";
import * as sessionCodec from "../../src/rpc/session-codec.js";
import { GRPC_FRAME_HEAD_BYTES } from "../../src/rpc/grpc-frame.js";
import { loaderOptions, packageDefinition } from "../../src/rpc/proto.js";
import { LongLivedCalls } from "../../src/rpc/methods/long-lived-calls.js";
import { methodTable } from "../../src/rpc/methods/table.js";
import type { Operations } from "../../src/operations/contract.js";
import type { AppendResult, ReadAllResult, ReadStreamResult } from "../../src/contract/bodies.js";
import { protoRoot as root } from "./proto-reflection.js";

type Message = Record<string, unknown>;

/** The conversion of proto-loader's decoder (src/rpc/proto.ts): longs as numbers, defaults, oneof markers. */
const conversion: protobuf.IConversionOptions = loaderOptions;

// ---------------------------------------------------------------- reflection

/** A proto3 `optional` field: a oneof of its own, unset when absent. */
function isOptional(field: protobuf.Field): boolean {
  return (field.options as { proto3_optional?: boolean } | undefined)?.proto3_optional === true;
}

/** A member of a real `oneof` (not the synthetic one of an `optional` field). */
function inOneof(field: protobuf.Field): boolean {
  return field.partOf !== null && !isOptional(field);
}

function messageType(field: protobuf.Field): protobuf.Type | null {
  return field.resolvedType instanceof protobuf.Type ? field.resolvedType : null;
}

const wireTypeNames = ["varint", "i64", "len", "start-group", "end-group", "i32"];

/** The wire type the .proto gives a field (packed repeated scalars are length-delimited). */
function wireTypeOf(field: protobuf.Field): string {
  if (messageType(field) !== null || field.type === "string" || field.type === "bytes") return "len";
  if (field.repeated && field.packed) return "len";
  const wireType = (protobuf.types.basic as Record<string, number | undefined>)[field.type];
  return wireType === undefined ? "varint" : wireTypeNames[wireType]!; // an enum: varint
}

function describe(field: protobuf.Field): string {
  const label = field.repeated ? "repeated " : isOptional(field) ? "optional " : "";
  return `field ${field.id}, ${label}${field.type}`;
}

// ---------------------------------------------------------------- shapes

/** How a codec's own types hold a message's fields, where they differ from proto-loader's. */
interface Shape {
  /** A `bytes` field as its UTF-8 text (event data and metadata: JSON text). */
  bytesAsText: boolean;
  /** An unset `optional` field as null (the contract's results), not absent. */
  unsetAsNull: boolean;
}
type Shapes = Record<string, Shape>;

const protoLoaderShape: Shape = { bytesAsText: false, unsetAsNull: false };
const operationResult: Shape = { bytesAsText: true, unsetAsNull: true };
const clientRequest: Shape = { bytesAsText: true, unsetAsNull: false };

/** The operations' results (storage/engine.ts), as the server's encoders take them and the client's decoders give them. */
const results: Shapes = {
  "ess.v1.AppendResult": operationResult,
  "ess.v1.ReadResult": operationResult,
  "ess.v1.ReadAllResult": operationResult,
  "ess.v1.EventRecord": operationResult,
};
/** The client's AppendRequestMessage (codec/append.ts). */
const clientAppend: Shapes = {
  "ess.v1.AppendRequest": clientRequest,
  "ess.v1.EventToAppend": clientRequest,
};

function shapeOf(type: protobuf.Type, shapes: Shapes): Shape {
  return shapes[type.fullName.slice(1)] ?? protoLoaderShape;
}

const jsonType = "application/json";
const binaryType = "application/octet-stream";

/** Whether `field` of `message` is held as text in a bytesAsText shape (see the header). */
function bytesHeldAsText(type: protobuf.Type, field: protobuf.Field, message: Message): boolean {
  const name = type.fullName.slice(1);
  if (name !== "ess.v1.EventRecord" && name !== "ess.v1.EventToAppend") return true;
  if (field.name === "metadata_bytes") return false;
  return field.name !== "data" || message.content_type !== binaryType;
}

/** An EventRecord in the contract's shape: metadata_bytes in metadata, a content_type of the two. */
function contractEventRecord(record: Message): Message {
  const { metadata_bytes: metadataBytes, ...out } = record;
  if (metadataBytes !== undefined && metadataBytes !== null) out.metadata = metadataBytes;
  out.content_type = record.content_type === binaryType ? binaryType : jsonType;
  return out;
}

/** `message` with every EventRecord in it as the server's encoder writes one (see the header). */
function canonicalEvents(type: protobuf.Type, message: Message): Message {
  const out: Message = { ...message };
  if (type.fullName === ".ess.v1.EventRecord") {
    const contentType = out.content_type;
    if (contentType !== jsonType && contentType !== binaryType) {
      out.content_type = out.metadata_bytes !== undefined ? binaryType : jsonType;
    }
    if (out.metadata_bytes !== undefined) out.metadata = Buffer.alloc(0);
    return out;
  }
  for (const field of type.fieldsArray) {
    const nested = messageType(field);
    const value = out[field.name];
    if (nested === null || value === undefined || value === null) continue;
    out[field.name] = field.repeated
      ? (value as Message[]).map((v) => canonicalEvents(nested, v))
      : canonicalEvents(nested, value as Message);
  }
  return out;
}

/** `message`, as proto-loader's decoder gives it, in the shape a codec takes or gives. */
function inShape(type: protobuf.Type, message: Message, shapes: Shapes): Message {
  const shape = shapeOf(type, shapes);
  const out: Message = {};
  const one = (field: protobuf.Field, value: unknown): unknown => {
    const nested = messageType(field);
    if (nested !== null) return inShape(nested, value as Message, shapes);
    if (field.type === "bytes" && shape.bytesAsText && bytesHeldAsText(type, field, message)) {
      return (value as Buffer).toString("utf8");
    }
    return value;
  };
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (value === null)
      out[field.name] = null; // a message field not set
    else if (value === undefined) {
      if (shape.unsetAsNull && isOptional(field)) out[field.name] = null;
    } else {
      out[field.name] = field.repeated ? (value as unknown[]).map((v) => one(field, v)) : one(field, value);
    }
  }
  if (shape === operationResult && type.fullName === ".ess.v1.EventRecord") return contractEventRecord(out);
  return out;
}

// ---------------------------------------------------------------- the codecs

/** Fields and oneofs an encoder's type cannot leave unset, by the full name of their message type. */
type AlwaysSet = Readonly<Record<string, readonly string[]>>;

/**
 * An AppendSessionResponse as the server's encoders take it: a list of answers, the first in
 * fields 1 to 3 and the others in `outcomes`.
 */
function answerList(m: Message): sessionCodec.AppendSessionAnswer[] {
  const { outcomes, ...first } = m;
  return [
    first,
    ...((outcomes as Message[] | undefined) ?? []),
  ] as unknown as sessionCodec.AppendSessionAnswer[];
}

interface EncoderUnderTest {
  name: string;
  type: string;
  encode: (message: Message) => Buffer;
  shapes?: Shapes;
  /** Fields and oneofs the encoder's type cannot leave unset, by message type. */
  alwaysSet?: AlwaysSet;
}

interface DecoderUnderTest {
  name: string;
  type: string;
  decode: (bytes: Buffer) => unknown;
  shapes?: Shapes;
  /** A deliberate difference: what the decoder gives for what protobufjs gives. */
  expect?: (message: Message) => Message;
}

/** The message of a gRPC frame (as a session's fast path sends it), its head checked. */
function unframed(frame: Buffer): Buffer {
  assert.equal(frame[0], 0, "an uncompressed frame");
  assert.equal(frame.readUInt32BE(1), frame.length - GRPC_FRAME_HEAD_BYTES, "the frame's length");
  return frame.subarray(GRPC_FRAME_HEAD_BYTES);
}

// The encoders' parameter types are the codecs' own; the messages are made in their shapes here.
const encoders: EncoderUnderTest[] = [
  {
    name: "encodeAppendRequest (client)",
    type: "ess.v1.AppendRequest",
    encode: (m) => appendCodec.encodeAppendRequest(m as unknown as appendCodec.AppendRequestMessage),
    shapes: clientAppend,
  },
  {
    name: "encodeReadRequest (client)",
    type: "ess.v1.ReadRequest",
    encode: (m) => readRequestCodec.encodeReadRequest(m as unknown as readRequestCodec.ReadRequestMessage),
  },
  {
    name: "encodeReadAllRequest (client)",
    type: "ess.v1.ReadAllRequest",
    encode: (m) => readRequestCodec.encodeReadAllRequest(m),
  },
  {
    name: "encodeAppendResult (server)",
    type: "ess.v1.AppendResult",
    encode: (m) => appendCodec.encodeAppendResult(m as unknown as AppendResult),
    shapes: results,
  },
  {
    name: "encodeReadResult (server)",
    type: "ess.v1.ReadResult",
    encode: (m) => readResultCodec.encodeReadResult(m as unknown as ReadStreamResult),
    shapes: results,
  },
  {
    name: "encodeReadAllResult (server)",
    type: "ess.v1.ReadAllResult",
    encode: (m) => readResultCodec.encodeReadAllResult(m as unknown as ReadAllResult),
    shapes: results,
  },
  {
    name: "encodeAppendSessionRequest (client)",
    type: "ess.v1.AppendSessionRequest",
    encode: (m) => sessionCodec.encodeAppendSessionRequest(m as never),
    shapes: clientAppend,
    alwaysSet: { "ess.v1.AppendSessionRequest": ["append"], "ess.v1.AppendSessionEntry": ["append"] },
  },
  {
    name: "encodeReadSessionRequest (client)",
    type: "ess.v1.ReadSessionRequest",
    encode: (m) => sessionCodec.encodeReadSessionRequest(m as never),
    alwaysSet: { "ess.v1.ReadSessionRequest": ["read"] },
  },
  {
    name: "encodeAppendSessionResponse (server)",
    type: "ess.v1.AppendSessionResponse",
    encode: (m) => sessionCodec.encodeAppendSessionResponse(answerList(m)),
    shapes: results,
    alwaysSet: { "ess.v1.AppendSessionResponse": ["outcome"], "ess.v1.AppendSessionOutcome": ["outcome"] },
  },
  {
    name: "encodeAppendSessionFrame (server's fast path)",
    type: "ess.v1.AppendSessionResponse",
    encode: (m) => unframed(sessionCodec.encodeAppendSessionFrame(answerList(m))),
    shapes: results,
    alwaysSet: { "ess.v1.AppendSessionResponse": ["outcome"], "ess.v1.AppendSessionOutcome": ["outcome"] },
  },
  {
    name: "encodeReadSessionResponse (server)",
    type: "ess.v1.ReadSessionResponse",
    encode: (m) => sessionCodec.encodeReadSessionResponse([m as unknown as sessionCodec.ReadSessionAnswer]),
    shapes: results,
    alwaysSet: { "ess.v1.ReadSessionResponse": ["outcome"] },
  },
  {
    name: "encodeReadSessionFrame (server's fast path)",
    type: "ess.v1.ReadSessionResponse",
    encode: (m) =>
      unframed(sessionCodec.encodeReadSessionFrame([m as unknown as sessionCodec.ReadSessionAnswer])),
    shapes: results,
    alwaysSet: { "ess.v1.ReadSessionResponse": ["outcome"] },
  },
];

/** decodeReadResult's direction: any but "backward" is "forward". */
function withContractDirection(result: Message): Message {
  return { ...result, direction: result.direction === "backward" ? "backward" : "forward" };
}

const decoders: DecoderUnderTest[] = [
  {
    name: "decodeAppendRequest (server)",
    type: "ess.v1.AppendRequest",
    decode: appendCodec.decodeAppendRequest,
  },
  {
    name: "decodeReadRequest (server)",
    type: "ess.v1.ReadRequest",
    decode: readRequestCodec.decodeReadRequest,
  },
  {
    name: "decodeReadAllRequest (server)",
    type: "ess.v1.ReadAllRequest",
    decode: readRequestCodec.decodeReadAllRequest,
  },
  {
    name: "decodeAppendResult (client)",
    type: "ess.v1.AppendResult",
    decode: appendCodec.decodeAppendResult,
    shapes: results,
  },
  {
    name: "decodeReadResult (client)",
    type: "ess.v1.ReadResult",
    decode: readResultCodec.decodeReadResult,
    shapes: results,
    expect: withContractDirection,
  },
  {
    name: "decodeReadAllResult (client)",
    type: "ess.v1.ReadAllResult",
    decode: readResultCodec.decodeReadAllResult,
    shapes: results,
  },
  {
    name: "decodeAppendSessionRequest (server)",
    type: "ess.v1.AppendSessionRequest",
    decode: sessionCodec.decodeAppendSessionRequest,
  },
  {
    name: "decodeReadSessionRequest (server)",
    type: "ess.v1.ReadSessionRequest",
    decode: sessionCodec.decodeReadSessionRequest,
  },
  {
    name: "decodeAppendSessionResponse (client)",
    type: "ess.v1.AppendSessionResponse",
    decode: sessionCodec.decodeAppendSessionResponse,
    shapes: results,
  },
  {
    name: "decodeReadSessionResponse (client)",
    type: "ess.v1.ReadSessionResponse",
    decode: sessionCodec.decodeReadSessionResponse,
    shapes: results,
    expect: (answer) =>
      answer.result === undefined
        ? answer
        : { ...answer, result: withContractDirection(answer.result as Message) },
  },
];

test("every method on the hand-written codecs has its request and response types' encoders and decoders here", () => {
  // The method table (src/rpc/methods/) gives each method its decoder: a hand-written one is an
  // export of codec/append.ts, read-requests.ts, read-results.ts or session-codec.ts.
  const table = methodTable({ ops: {} as Operations, calls: new LongLivedCalls() });
  const handWritten = new Set<unknown>([
    ...Object.values(appendCodec),
    ...Object.values(readRequestCodec),
    ...Object.values(readResultCodec),
    ...Object.values(sessionCodec),
  ]);
  const service = root.lookupService("ess.v1.Streams");
  const names = (list: { type: string }[]) => new Set(list.map((c) => c.type));
  const encoded = names(encoders);
  const decoded = names(decoders);
  let swappedCount = 0;
  for (const method of table.values()) {
    if (!handWritten.has(method.decode)) continue;
    swappedCount++;
    const [, serviceName, name] = method.path.split("/");
    assert.equal(serviceName, "ess.v1.Streams", method.path);
    const rpc = service.methods[name!]!;
    rpc.resolve();
    for (const type of [rpc.resolvedRequestType!, rpc.resolvedResponseType!]) {
      const fullName = type.fullName.slice(1);
      // The server decodes requests and encodes responses; the client the other way round.
      assert.ok(encoded.has(fullName), `${name}: an encoder of ${fullName} is held to the .proto here`);
      assert.ok(decoded.has(fullName), `${name}: a decoder of ${fullName} is held to the .proto here`);
    }
  }
  assert.equal(swappedCount, 5, "Append, Read, ReadAll, AppendSession and ReadSession");
});

// ---------------------------------------------------------------- messages with every field set

/** A value of `field` that is not its default and tells the field apart from the others. */
function fullValue(field: protobuf.Field, index: number, depth: number): unknown {
  const nested = messageType(field);
  if (nested !== null) {
    const variants = fullMessages(nested, depth + 1);
    return variants[index % variants.length];
  }
  if (field.resolvedType instanceof protobuf.Enum) {
    const names = Object.keys(field.resolvedType.values);
    return names[names.length - 1]; // the last: not the default, when there are two or more
  }
  switch (field.type) {
    case "string":
      return `${field.name} ${index} ü`;
    case "bytes":
      return Buffer.from(`{"${field.name}":${index},"é":1}`);
    case "bool":
      return true;
    case "double":
    case "float":
      return field.id + index + 0.5;
    case "int32":
    case "sint32":
    case "sfixed32":
      return -(300 + field.id + index);
    case "uint32":
    case "fixed32":
      return 300 + field.id + index;
    case "int64":
    case "sint64":
    case "sfixed64":
      return -(2 ** 40 + field.id + index);
    case "uint64":
    case "fixed64":
      return 2 ** 40 + field.id + index;
  }
  throw new Error(`${field.fullName}: a field of type ${field.type}: teach this test to make one`);
}

/**
 * `type` with every field set to a value that is not its default (repeated: two), one message per
 * member of its oneofs (the i-th message sets each oneof's i-th member).
 */
function fullMessages(type: protobuf.Type, depth = 0): Message[] {
  assert.ok(depth < 16, `${type.fullName} contains itself: the test's messages would not end`);
  const oneofs = type.oneofsArray.filter((o) => o.fieldsArray.some(inOneof));
  const count = Math.max(1, ...oneofs.map((o) => o.fieldsArray.length));
  return Array.from({ length: count }, (_, variant) => {
    const message: Message = {};
    for (const field of type.fieldsArray) {
      assert.ok(!field.map, `${field.fullName}: map fields: teach this test to make them`);
      const members = field.partOf?.fieldsArray;
      if (inOneof(field) && members![variant % members!.length] !== field) continue;
      message[field.name] = field.repeated
        ? [fullValue(field, 0, depth), fullValue(field, 1, depth)]
        : fullValue(field, variant, depth);
    }
    return message;
  });
}

/** The fields of `message` that are set, as "path = number wire-type", nested messages' fields too. */
function fieldsSet(
  type: protobuf.Type,
  message: Message,
  path: string,
  into = new Set<string>(),
): Set<string> {
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    const values = field.repeated ? (value as unknown[]) : [value];
    if (values.length === 0) continue;
    const where = `${path}.${field.name}`;
    into.add(`${where} = ${field.id} ${wireTypeOf(field)}`);
    const nested = messageType(field);
    if (nested !== null) for (const v of values) fieldsSet(nested, v as Message, where, into);
  }
  return into;
}

/** The fields on the wire in `bytes`, as fieldsSet names them; a number the .proto lacks as "?". */
function fieldsOnWire(
  type: protobuf.Type,
  bytes: Uint8Array,
  path: string,
  into = new Set<string>(),
): Set<string> {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const key = reader.uint32();
    const number = key >>> 3;
    const wireType = key & 7;
    const field = type.fieldsById[number];
    const where = `${path}.${field?.name ?? "?"}`;
    into.add(`${where} = ${number} ${wireTypeNames[wireType] ?? wireType}`);
    const nested = field === undefined ? null : messageType(field);
    if (nested !== null && wireType === 2) {
      const length = reader.uint32();
      fieldsOnWire(nested, bytes.subarray(reader.pos, reader.pos + length), where, into);
      reader.skip(length);
    } else {
      reader.skipType(wireType);
    }
  }
  return into;
}

function sorted(set: Set<string>): string[] {
  return [...set].sort();
}

/**
 * `actual` (a hand decoder's) against `expected` (protobufjs's, in the codec's shape), one field
 * at a time as the reflection lists them, naming the field that differs; nothing else may be set.
 */
function assertSameFields(type: protobuf.Type, actual: unknown, expected: Message, path: string): void {
  assert.ok(typeof actual === "object" && actual !== null, `${path}: a message`);
  const got = actual as Message;
  for (const field of type.fieldsArray) {
    const where = `${path}.${field.name} (${describe(field)})`;
    assert.equal(
      field.name in got,
      field.name in expected,
      `${where}: present in the codec's message (actual) and in protobufjs's (expected)`,
    );
    const want = expected[field.name];
    const nested = messageType(field);
    if (nested === null || want === null || want === undefined) {
      assert.deepStrictEqual(got[field.name], want, where);
    } else if (field.repeated) {
      const list = got[field.name] as unknown[];
      assert.equal(list.length, (want as unknown[]).length, `${where}: how many`);
      list.forEach((v, i) =>
        assertSameFields(nested, v, (want as Message[])[i]!, `${path}.${field.name}[${i}]`),
      );
    } else {
      assertSameFields(nested, got[field.name], want as Message, `${path}.${field.name}`);
    }
  }
  const unknown = Object.keys(got).filter((name) => type.fields[name] === undefined);
  assert.deepEqual(unknown, [], `${path}: fields the .proto does not have`);
}

function protobufBytes(type: protobuf.Type, message: Message): Buffer {
  return Buffer.from(type.encode(type.fromObject(message)).finish());
}

/** What protobufjs decodes, as proto-loader's decoder gives it (oneof markers too: inShape leaves them out). */
function protobufDecoded(type: protobuf.Type, bytes: Uint8Array): Message {
  return type.toObject(type.decode(bytes), conversion);
}

test("the protobufjs here is proto-loader's: it writes and reads what the generic codec of every Streams method does", () => {
  const methods = packageDefinition["ess.v1.Streams"] as unknown as Record<
    string,
    MethodDefinition<unknown, unknown>
  >;
  const service = root.lookupService("ess.v1.Streams");
  for (const [name, method] of Object.entries(methods)) {
    const rpc = service.methods[name]!;
    rpc.resolve();
    const sides = [
      [rpc.resolvedRequestType!, method.requestSerialize, method.requestDeserialize],
      [rpc.resolvedResponseType!, method.responseSerialize, method.responseDeserialize],
    ] as const;
    for (const [type, serialize, deserialize] of sides) {
      for (const message of fullMessages(type)) {
        const bytes = protobufBytes(type, message);
        assert.deepEqual(serialize(message), bytes, `${name}: ${type.name}`);
        assert.deepEqual(deserialize(bytes), protobufDecoded(type, bytes), `${name}: ${type.name}`);
      }
    }
  }
});

for (const encoder of encoders) {
  const type = root.lookupType(encoder.type);
  const shapes = encoder.shapes ?? {};
  test(`${encoder.name} writes every field of ${encoder.type} under the .proto's number and wire type, and nothing else`, () => {
    for (const message of fullMessages(type).map((m) => canonicalEvents(type, m))) {
      const bytes = encoder.encode(inShape(type, message, shapes));
      assert.deepStrictEqual(
        sorted(fieldsOnWire(type, bytes, type.name)),
        sorted(fieldsSet(type, message, type.name)),
        `${encoder.name}: the fields written (actual) and those of the .proto (expected)`,
      );
      assertSameFields(type, inShape(type, protobufDecoded(type, bytes), {}), message, type.name);
      assert.deepEqual(bytes, protobufBytes(type, message), `${encoder.name}: protobufjs's bytes`);
    }
  });
}

for (const decoder of decoders) {
  const type = root.lookupType(decoder.type);
  const shapes = decoder.shapes ?? {};
  const expect = decoder.expect ?? ((m: Message) => m);
  test(`${decoder.name} reads every field of ${decoder.type} as protobufjs reads it`, () => {
    for (const message of fullMessages(type)) {
      const bytes = protobufBytes(type, message);
      const expected = expect(inShape(type, protobufDecoded(type, bytes), shapes));
      assertSameFields(type, decoder.decode(bytes), expected, type.name);
    }
  });
}

// ---------------------------------------------------------------- random messages

const text = fc.oneof(
  fc.constant(""),
  fc.string({ unit: "binary", maxLength: 20 }), // any code point: 1- to 4-byte UTF-8
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary-ascii", minLength: 120, maxLength: 300 }), // lengths of two varint bytes
);
const uint64 = fc.oneof(fc.constantFrom(0, 127, 128, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1), fc.maxSafeNat());
const uint32 = fc.oneof(fc.constantFrom(0, 2 ** 32 - 1), fc.nat({ max: 2 ** 32 - 1 }));
const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const rawBytes = fc.oneof(
  fc.uint8Array({ maxLength: 40 }),
  fc.uint8Array({ minLength: 128, maxLength: 300 }),
);

function scalarArbitrary(field: protobuf.Field, shape: Shape): fc.Arbitrary<unknown> {
  if (field.resolvedType instanceof protobuf.Enum)
    return fc.constantFrom(...Object.keys(field.resolvedType.values));
  switch (field.type) {
    case "string":
      return text;
    case "bytes":
      return shape.bytesAsText
        ? text.map((t) => Buffer.from(t, "utf8"))
        : rawBytes.map((b) => Buffer.from(b));
    case "bool":
      return fc.boolean();
    case "double":
      return fc.double();
    case "float":
      return fc.float();
    case "int32":
    case "sint32":
    case "sfixed32":
      return int32;
    case "uint32":
    case "fixed32":
      return uint32;
    case "int64":
    case "sint64":
    case "sfixed64":
      return fc.maxSafeInteger();
    case "uint64":
    case "fixed64":
      return uint64;
  }
  throw new Error(`${field.fullName}: a field of type ${field.type}: teach this test to make one`);
}

/**
 * Random `type` messages as proto-loader's decoder gives them: every plain field present (at its
 * default or not), `optional` fields present or absent, message fields null or set, repeated
 * fields empty, few or many, at most one member of each oneof (exactly one if in `alwaysSet`,
 * which holds for nested messages too).
 */
function messageArbitrary(
  type: protobuf.Type,
  shapes: Shapes,
  alwaysSetIn: AlwaysSet = {},
  depth = 0,
): fc.Arbitrary<Message> {
  const alwaysSet = alwaysSetIn[type.fullName.slice(1)] ?? [];
  assert.ok(depth < 16, `${type.fullName} contains itself: the test's messages would not end`);
  const shape = shapeOf(type, shapes);
  const valueOf = (field: protobuf.Field): fc.Arbitrary<unknown> => {
    // An event's content type: mostly the two the contract knows, unset ("") and any text too.
    if (field.name === "content_type")
      return fc.oneof(fc.constantFrom(jsonType, binaryType, binaryType), text);
    const nested = messageType(field);
    return nested === null
      ? scalarArbitrary(field, shape)
      : messageArbitrary(nested, shapes, alwaysSetIn, depth + 1);
  };
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of type.fieldsArray) {
    assert.ok(!field.map, `${field.fullName}: map fields: teach this test to make them`);
    if (inOneof(field)) continue;
    const value = valueOf(field);
    const always = alwaysSet.includes(field.name);
    if (field.repeated) {
      parts[field.name] = fc.oneof(
        fc.constant([]),
        fc.array(value, { minLength: 1, maxLength: 3 }),
        fc.array(value, { minLength: 20, maxLength: 40 }),
      );
    } else if (isOptional(field) && !always) {
      parts[field.name] = fc.option(value, { nil: undefined });
    } else if (messageType(field) !== null && !always) {
      parts[field.name] = fc.option(value, { nil: null });
    } else {
      parts[field.name] = value;
    }
  }
  const oneofs: fc.Arbitrary<Message>[] = type.oneofsArray
    .filter((o) => o.fieldsArray.some(inOneof))
    .map((oneof) => {
      const members = oneof.fieldsArray.map((f) => valueOf(f).map((v): Message => ({ [f.name]: v })));
      return alwaysSet.includes(oneof.name) ? fc.oneof(...members) : fc.oneof(fc.constant({}), ...members);
    });
  return fc.tuple(fc.record(parts), ...oneofs).map(([fields, ...members]) => {
    const message: Message = {};
    for (const [name, value] of Object.entries(fields)) if (value !== undefined) message[name] = value;
    return Object.assign(message, ...members) as Message;
  });
}

for (const encoder of encoders) {
  const type = root.lookupType(encoder.type);
  const shapes = encoder.shapes ?? {};
  test(`${encoder.name}: random ${encoder.type} messages: protobufjs's bytes, read back by protobufjs field for field`, () => {
    fc.assert(
      fc.property(
        messageArbitrary(type, shapes, encoder.alwaysSet).map((m) => canonicalEvents(type, m)),
        (message) => {
          const bytes = encoder.encode(inShape(type, message, shapes));
          assertSameFields(type, inShape(type, protobufDecoded(type, bytes), {}), message, type.name);
          assert.deepEqual(bytes, protobufBytes(type, message));
        },
      ),
      { numRuns: 150 },
    );
  });
}

for (const decoder of decoders) {
  const type = root.lookupType(decoder.type);
  const shapes = decoder.shapes ?? {};
  const expect = decoder.expect ?? ((m: Message) => m);
  test(`${decoder.name}: random ${decoder.type} messages written by protobufjs read as protobufjs reads them`, () => {
    fc.assert(
      fc.property(messageArbitrary(type, shapes), (message) => {
        const bytes = protobufBytes(type, message);
        const expected = expect(inShape(type, protobufDecoded(type, bytes), shapes));
        assertSameFields(type, decoder.decode(bytes), expected, type.name);
      }),
      { numRuns: 150 },
    );
  });
}

// ---------------------------------------------------------------- text that is not UTF-8

/** Where a message holds text: every string field, and the bytes fields a codec holds as text. */
type TextAt = { path: (string | number)[]; name: string; bytes: boolean };

function textFields(
  type: protobuf.Type,
  message: Message,
  shapes: Shapes,
  path: (string | number)[] = [],
): TextAt[] {
  const shape = shapeOf(type, shapes);
  const found: TextAt[] = [];
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    const at = (i?: number) => (i === undefined ? [...path, field.name] : [...path, field.name, i]);
    const nested = messageType(field);
    const values = field.repeated ? (value as unknown[]) : [value];
    values.forEach((v, i) => {
      const where = at(field.repeated ? i : undefined);
      if (nested !== null) found.push(...textFields(nested, v as Message, shapes, where));
      else if (
        field.type === "string" ||
        (field.type === "bytes" && shape.bytesAsText && bytesHeldAsText(type, field, message))
      ) {
        found.push({ path: where, name: `${type.name}.${field.name}`, bytes: field.type === "bytes" });
      }
    });
  }
  return found;
}

function setAt(message: Message, path: (string | number)[], value: unknown): void {
  let at = message as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = value;
}

const marker = "@@@";
const notUtf8 = Buffer.from([0xed, 0xa0, 0x80]); // a surrogate's three bytes (WTF-8): not UTF-8

test("a text field that is not UTF-8 is refused by every hand decoder, where protobufjs reads replacement characters", () => {
  for (const decoder of decoders) {
    const type = root.lookupType(decoder.type);
    const shapes = decoder.shapes ?? {};
    fullMessages(type).forEach((full, variant) => {
      for (const field of textFields(type, full, shapes)) {
        const message = fullMessages(type)[variant]!;
        setAt(message, field.path, field.bytes ? Buffer.from(marker) : marker);
        const bytes = protobufBytes(type, message);
        const at = bytes.indexOf(marker);
        assert.ok(at >= 0 && at === bytes.lastIndexOf(marker), "the marker is in the message once");
        notUtf8.copy(bytes, at);
        const where = `${decoder.name}, ${field.path.join(".")}`;
        if (!field.bytes) {
          assert.ok(
            JSON.stringify(protobufDecoded(type, bytes)).includes("\ufffd"),
            `${where}: protobufjs reads U+FFFD`,
          );
        }
        assert.throws(
          () => decoder.decode(bytes),
          (error: unknown) =>
            error instanceof EssError &&
            error.code === "INVALID_ARGUMENT" &&
            /is not valid UTF-8$/.test(error.message),
          `${where}: refused`,
        );
      }
    });
  }
});

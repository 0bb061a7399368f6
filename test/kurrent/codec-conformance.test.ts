// The KurrentDB listener's hand-written codecs (src/kurrent/codec.ts) held to proto/kurrent/ as
// protobufjs reads it: no field is named by the checks, so a field renumbered, retyped or added
// in the .proto and not in a codec fails here, with what differs.
// - Decoders (BatchAppendReq, AppendReq): messages made at random from the reflection (every
//   field, each oneof member, maps and repeated fields, 64-bit values past 2^53, non-ASCII text)
//   are written by protobufjs and read by the hand decoder exactly as proto-loader reads them with
//   the listener's options, except the deadline of BatchAppendReq.Options, which the decoder skips
//   on purpose (nothing reads it).
// - Encoders (a read's event, a batch's success): byte for byte what protobufjs writes for the
//   messages the handlers built before these encoders existed, for plain records and stored ones,
//   both event id forms, text and binary payloads; every field of RecordedEvent is on the wire.
// - The checks themselves: against a copy of streams.proto with fields renumbered, they fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import protobuf from "protobufjs";
import { binaryContentType, jsonContentType, type EventRecord } from "../../src/contract/bodies.js";
import { BINARY_DATA, BINARY_METADATA, StoredEventRecord } from "../../src/contract/stored-event-record.js";
import { EssError } from "../../src/errors.js";
import { encodeBatchAppendSuccess, encodeReadEvent, type BatchAppended } from "../../src/kurrent/codec.js";
import { decodeAppendReq, decodeBatchAppendReq } from "../../src/kurrent/request-decoders.js";
import { uuidMessage, type UuidForm } from "../../src/kurrent/convert.js";
import { kurrentProto } from "../../src/kurrent/proto.js";
import { protoDir } from "../../src/rpc/proto.js";

type Message = Record<string, unknown>;

/** proto-loader's conversion in src/kurrent/proto.ts. */
const loaderOptions: protobuf.IConversionOptions = {
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

const dependencies = [
  "kurrent/shared.proto",
  "kurrent/status.proto",
  "google/protobuf/empty.proto",
  "google/protobuf/timestamp.proto",
  "google/protobuf/duration.proto",
  "google/protobuf/any.proto",
];
const streamsText = readFileSync(join(protoDir, "kurrent/streams.proto"), "utf8");

/** proto/kurrent/ as protobufjs reads it, with `streams` as the text of streams.proto. */
function loadRoot(streams: string): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) =>
    target.startsWith("google/protobuf/") ? target : join(protoDir, target);
  root.loadSync(dependencies, { keepCase: true });
  protobuf.parse(streams, root, { keepCase: true });
  root.resolveAll();
  return root;
}

// ---------------------------------------------------------------- random messages from the reflection

/** A deterministic generator (mulberry32), so a failure names a case that comes back. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const alphabet = ["a", "Z", "0", "-", " ", "é", "ü", "€", "日", "😀"];

function text(next: () => number): string {
  const n = Math.floor(next() * 6);
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

/** A 64-bit value as decimal text: small, near 2^53, or past it (signed: negative too). */
function longText(next: () => number, signed: boolean): string {
  const pick = next();
  let value: bigint;
  if (pick < 0.3) value = BigInt(Math.floor(next() * 300));
  else if (pick < 0.6) value = BigInt(Number.MAX_SAFE_INTEGER) - BigInt(Math.floor(next() * 3));
  else value = (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32));
  return signed ? BigInt.asIntN(64, value).toString() : BigInt.asUintN(64, value).toString();
}

/** Which fields the random messages set, by full name: every one must come up. */
type Coverage = Set<string>;

function scalar(field: protobuf.Field, next: () => number): unknown {
  if (field.resolvedType instanceof protobuf.Enum) {
    const names = Object.keys(field.resolvedType.values);
    return names[Math.floor(next() * names.length)];
  }
  switch (field.type) {
    case "string":
      return text(next);
    case "bytes":
      return Buffer.from(text(next));
    case "bool":
      return next() < 0.5;
    case "int32":
      return Math.floor(next() * 2000) - 1000;
    case "uint32":
      return Math.floor(next() * 2 ** 32);
    case "int64":
      return longText(next, true);
    case "uint64":
      return longText(next, false);
  }
  throw new Error(`${field.fullName}: a field of type ${field.type}: teach this test to make one`);
}

/** A message of `type` with each field set or not at random, at most one member of each oneof. */
function randomMessage(type: protobuf.Type, next: () => number, seen: Coverage, depth = 0): Message {
  const message: Message = {};
  const chosen = new Map<protobuf.OneOf, protobuf.Field | null>();
  for (const oneof of type.oneofsArray) {
    const members = oneof.fieldsArray;
    const pick = Math.floor(next() * (members.length + 1));
    chosen.set(oneof, pick < members.length ? members[pick]! : null);
  }
  for (const field of type.fieldsArray) {
    if (field.partOf !== null && chosen.get(field.partOf) !== field) continue;
    if (field.partOf === null && next() < 0.25) continue; // left unset: its default
    const nested = field.resolvedType instanceof protobuf.Type ? field.resolvedType : null;
    const one = (): unknown =>
      nested !== null ? randomMessage(nested, next, seen, depth + 1) : scalar(field, next);
    if (field.map) {
      const entries: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--) entries[`k${text(next)}`] = one();
      message[field.name] = entries;
    } else if (field.repeated) {
      message[field.name] = Array.from({ length: Math.floor(next() * 4) }, one);
    } else message[field.name] = one();
    seen.add(field.fullName);
  }
  return message;
}

/** Every field of `type` and of the messages in it, by full name. */
function allFields(
  type: protobuf.Type,
  into = new Set<string>(),
  visited = new Set<protobuf.Type>(),
): Set<string> {
  if (visited.has(type)) return into;
  visited.add(type);
  for (const field of type.fieldsArray) {
    into.add(field.fullName);
    if (field.resolvedType instanceof protobuf.Type) allFields(field.resolvedType, into, visited);
  }
  return into;
}

// ---------------------------------------------------------------- the checks

/** What a decoder skips on purpose (src/kurrent/codec.ts's header): BatchAppendReq's deadline. */
function withoutDeadline(message: Message): Message {
  const options = message.options as Message | null | undefined;
  if (options === null || options === undefined || !("deadline_option" in options || "deadline" in options)) {
    return message;
  }
  const { deadline_21_10_0: _timestamp, deadline: _duration, deadline_option: _option, ...rest } = options;
  return { ...message, options: rest };
}

interface DecoderUnderTest {
  type: string;
  decode: (bytes: Buffer) => unknown;
}

const decoders: DecoderUnderTest[] = [
  { type: "event_store.client.streams.BatchAppendReq", decode: decodeBatchAppendReq },
  { type: "event_store.client.streams.AppendReq", decode: decodeAppendReq },
];

/** Where the hand decoder and protobufjs disagree on random messages of `root` (at most 3). */
function decoderProblems(root: protobuf.Root, decoder: DecoderUnderTest, cases = 400): string[] {
  const type = root.lookupType(decoder.type);
  const problems: string[] = [];
  const seen: Coverage = new Set();
  const next = random(28);
  for (let i = 0; i < cases && problems.length < 3; i++) {
    const message = randomMessage(type, next, seen);
    const bytes = Buffer.from(type.encode(type.fromObject(message)).finish());
    const expected = withoutDeadline(type.toObject(type.decode(bytes), loaderOptions));
    let actual: unknown;
    try {
      actual = decoder.decode(bytes);
    } catch (error) {
      problems.push(`case ${i}: the decoder threw ${String(error)}`);
      continue;
    }
    if (!isDeepStrictEqual(actual, expected)) {
      problems.push(`case ${i}: decoded ${inspect(actual)}, protobufjs ${inspect(expected)}`);
    }
  }
  const missed = [...allFields(type)].filter((name) => !seen.has(name));
  if (missed.length > 0) problems.push(`the random messages never set ${missed.join(", ")}`);
  return problems;
}

function inspect(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && (v as { type?: string }).type === "Buffer"
      ? `<bytes ${Buffer.from((v as { data: number[] }).data).toString("hex")}>`
      : v,
  );
}

/** An event as the operations give it: a plain record, or one over stored bytes. */
function randomRecord(next: () => number, stored: boolean): EventRecord {
  const binaryData = next() < 0.3;
  const binaryMetadata = next() < 0.3;
  const data = binaryData
    ? Buffer.from([0, 255, 128, ...Buffer.from(text(next))])
    : JSON.stringify({ v: text(next) });
  const metadata = binaryMetadata
    ? Buffer.from([1, 2, 254])
    : next() < 0.5
      ? "{}"
      : JSON.stringify({ m: text(next) });
  const ms = next() < 0.1 ? 0 : Math.floor(next() * 2 ** 42);
  const revision = next() < 0.5 ? Math.floor(next() * 200) : Number.MAX_SAFE_INTEGER - Math.floor(next() * 5);
  const position = Math.floor(next() * 2 ** 53);
  const streamId = `stream-${text(next)}`;
  const eventId = randomUUID();
  const eventType = `type-${text(next)}`;
  if (!stored) {
    return {
      stream_id: streamId,
      revision,
      position,
      event_id: eventId,
      event_type: eventType,
      data,
      metadata,
      created_at: new Date(ms).toISOString(),
      content_type: binaryData ? binaryContentType : jsonContentType,
    };
  }
  // A stored record's layout: some bytes before, the id, some bytes between, type, metadata, data.
  const parts = [
    Buffer.from("xx"),
    Buffer.from(eventId, "latin1"),
    Buffer.from("yyy"),
    Buffer.from(eventType),
    typeof metadata === "string" ? Buffer.from(metadata) : metadata,
    typeof data === "string" ? Buffer.from(data) : data,
    Buffer.from("zz"),
  ];
  const starts: number[] = [];
  let at = 0;
  for (const part of parts) {
    starts.push(at);
    at += part.length;
  }
  return new StoredEventRecord(
    streamId,
    revision,
    position,
    ms,
    Buffer.concat(parts),
    starts[1]!,
    starts[2]!,
    starts[3]!,
    starts[4]!,
    starts[5]!,
    starts[6]!,
    (binaryData ? BINARY_DATA : 0) | (binaryMetadata ? BINARY_METADATA : 0),
  );
}

const bytesOf = (part: string | Buffer): Buffer => (typeof part === "string" ? Buffer.from(part) : part);

/** The ReadResp the read handler built for an event before its encoder existed. */
function readEventMessage(record: EventRecord, form: UuidForm): Message {
  const ms = Date.parse(record.created_at);
  return {
    event: {
      event: {
        id: uuidMessage(record.event_id, form),
        stream_identifier: { stream_name: Buffer.from(record.stream_id) },
        stream_revision: record.revision,
        prepare_position: record.position,
        commit_position: record.position,
        metadata: {
          type: record.event_type,
          created: ms === 0 ? "0" : `${ms}0000`,
          "content-type": record.content_type,
        },
        custom_metadata: bytesOf(record.metadata),
        data: bytesOf(record.data),
      },
      commit_position: record.position,
    },
  };
}

/** The BatchAppendResp the BatchAppend handler built for a batch appended before its encoder existed. */
function batchSuccessMessage(correlation: string, streamName: string, appended: BatchAppended): Message {
  return {
    correlation_id: { string: correlation },
    stream_identifier: { stream_name: Buffer.from(streamName) },
    success: {
      ...(appended.revision === null ? { no_stream: {} } : { current_revision: String(appended.revision) }),
      ...(appended.position === null
        ? { no_position: {} }
        : {
            position: {
              commit_position: String(appended.position),
              prepare_position: String(appended.position),
            },
          }),
    },
  };
}

/** The field numbers on the wire in `bytes` of `type`, nested messages' too, as "Type.field". */
function fieldsOnWire(type: protobuf.Type, bytes: Uint8Array, into = new Set<string>()): Set<string> {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const key = reader.uint32();
    const field = type.fieldsById[key >>> 3];
    into.add(field?.fullName ?? `${type.fullName}.?${key >>> 3}`);
    const nested = field?.resolvedType instanceof protobuf.Type ? field.resolvedType : null;
    if ((key & 7) === 2 && nested !== null && !field!.map) {
      const length = reader.uint32();
      fieldsOnWire(nested, bytes.subarray(reader.pos, reader.pos + length), into);
      reader.skip(length);
    } else reader.skipType(key & 7);
  }
  return into;
}

/** Where the encoders' bytes differ from protobufjs's for the same messages (at most 3). */
function encoderProblems(root: protobuf.Root, cases = 300): string[] {
  const readResp = root.lookupType("event_store.client.streams.ReadResp");
  const batchResp = root.lookupType("event_store.client.streams.BatchAppendResp");
  const problems: string[] = [];
  const next = random(64);
  const onWire = new Set<string>();
  for (let i = 0; i < cases && problems.length < 3; i++) {
    const record = randomRecord(next, i % 2 === 0);
    const form: UuidForm = next() < 0.5 ? "string" : "structured";
    const hand = encodeReadEvent(record, form);
    const reference = Buffer.from(
      readResp.encode(readResp.fromObject(readEventMessage(record, form))).finish(),
    );
    if (!hand.equals(reference)) {
      problems.push(
        `encodeReadEvent case ${i} (${form}): ${hand.toString("hex")} != ${reference.toString("hex")}`,
      );
    }
    fieldsOnWire(readResp, hand, onWire);

    const appended: BatchAppended = {
      // null: an append of no events to a stream without any (no_stream).
      revision: next() < 0.2 ? null : Math.floor(next() * 2 ** 53),
      position: next() < 0.3 ? null : Math.floor(next() * 2 ** 53),
    };
    const correlation = randomUUID();
    const streamName = `s-${text(next)}`;
    const handBatch = encodeBatchAppendSuccess(correlation, streamName, appended);
    const referenceBatch = Buffer.from(
      batchResp.encode(batchResp.fromObject(batchSuccessMessage(correlation, streamName, appended))).finish(),
    );
    if (!handBatch.equals(referenceBatch)) {
      problems.push(
        `encodeBatchAppendSuccess case ${i}: ${handBatch.toString("hex")} != ${referenceBatch.toString("hex")}`,
      );
    }
  }
  // Every field of a RecordedEvent (its UUID's both forms included) is written by the encoder.
  const recorded = root.lookupType("event_store.client.streams.ReadResp.ReadEvent.RecordedEvent");
  const missing = [...allFields(recorded)].filter((name) => !onWire.has(name));
  if (missing.length > 0) problems.push(`encodeReadEvent never wrote ${missing.join(", ")}`);
  return problems;
}

// ---------------------------------------------------------------- the tests

const root = loadRoot(streamsText);

test("the reflection here reads requests as the listener's proto-loader does", () => {
  const type = root.lookupType("event_store.client.streams.BatchAppendReq");
  const next = random(7);
  const seen: Coverage = new Set();
  const deserialize = kurrentProto.event_store.client.streams.Streams.service.BatchAppend.requestDeserialize;
  for (let i = 0; i < 50; i++) {
    const bytes = Buffer.from(type.encode(type.fromObject(randomMessage(type, next, seen))).finish());
    assert.deepStrictEqual(type.toObject(type.decode(bytes), loaderOptions), deserialize(bytes));
  }
});

for (const decoder of decoders) {
  test(`${decoder.type}: the hand decoder reads what protobufjs writes as proto-loader reads it`, () => {
    assert.deepStrictEqual(decoderProblems(root, decoder), []);
  });
}

test("a read's events and a batch's success: the hand encoders write protobufjs's bytes", () => {
  assert.deepStrictEqual(encoderProblems(root), []);
});

test("the checks fail on a drifted field (a copy of streams.proto with fields renumbered)", () => {
  const drifted = loadRoot(
    streamsText
      .replaceAll("bytes data = 4;", "bytes data = 14;") // both ProposedMessages
      .replace("bytes data = 8;", "bytes data = 18;") // RecordedEvent
      .replace(
        "event_store.client.StreamIdentifier stream_identifier = 4;",
        "event_store.client.StreamIdentifier stream_identifier = 9;",
      ), // BatchAppendResp
  );
  for (const decoder of decoders) {
    const problems = decoderProblems(drifted, decoder, 50);
    assert.ok(problems.length > 0, `${decoder.type}: the drift is found`);
  }
  const problems = encoderProblems(drifted, 20);
  assert.ok(
    problems.some((p) => p.startsWith("encodeReadEvent")),
    "RecordedEvent.data's drift is found",
  );
  assert.ok(
    problems.some((p) => p.startsWith("encodeBatchAppendSuccess")),
    "BatchAppendResp's drift is found",
  );
});

test("malformed requests and text that is not UTF-8 are refused with INVALID_ARGUMENT", () => {
  const type = root.lookupType("event_store.client.streams.BatchAppendReq");
  const valid = Buffer.from(
    type
      .encode(
        type.fromObject({
          correlation_id: { string: "c" },
          proposed_messages: [{ metadata: { type: "t" }, data: Buffer.from("{}") }],
          is_final: true,
        }),
      )
      .finish(),
  );
  const invalidArgument = (error: unknown) => error instanceof EssError && error.code === "INVALID_ARGUMENT";
  for (const decode of [decodeBatchAppendReq, decodeAppendReq]) {
    assert.throws(() => decode(valid.subarray(0, valid.length - 1)), invalidArgument, "truncated");
    assert.throws(() => decode(Buffer.from([0x0f])), invalidArgument, "wire type 7");
    assert.throws(
      () => decode(Buffer.from([0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])),
      invalidArgument,
      "varint of 11 bytes",
    );
  }
  // The metadata map's value "t" (0x74) made a lone continuation byte (0x80).
  const at = valid.indexOf(Buffer.from([0x12, 0x01, 0x74]));
  assert.ok(at > 0);
  const notUtf8 = Buffer.from(valid);
  notUtf8[at + 2] = 0x80;
  assert.throws(() => decodeBatchAppendReq(notUtf8), invalidArgument, "a metadata value that is not UTF-8");
});

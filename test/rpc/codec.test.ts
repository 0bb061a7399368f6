// The hand-written codecs of src/rpc/codec/ against proto-loader's generic codec (protobufjs
// with the options of src/rpc/proto.ts): the encoders write the generic encoder's bytes and the
// generic decoder reads them back field for field; the decoders read what the generic encoder
// writes, and any valid encoding (unknown fields, other field order), as the generic decoder does.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type {
  AppendResult,
  EventRecord,
  ReadAllResult,
  ReadStreamResult,
} from "../../src/contract/bodies.js";
import {
  type AppendRequestMessage,
  decodeAppendRequest,
  decodeAppendResult,
  encodeAppendRequest,
  encodeAppendResult,
} from "../../src/rpc/codec/append.js";
import {
  type ReadAllRequestMessage,
  type ReadRequestMessage,
  decodeReadAllRequest,
  decodeReadRequest,
  encodeReadAllRequest,
  encodeReadRequest,
} from "../../src/rpc/codec/read-requests.js";
import {
  decodeReadAllResult,
  decodeReadResult,
  encodeReadAllResult,
  encodeReadResult,
} from "../../src/rpc/codec/read-results.js";
import { BINARY_DATA, BINARY_METADATA, StoredEventRecord } from "../../src/contract/stored-event-record.js";
import { plainEventRecord } from "../storage/log/helpers.js";
import * as convert from "../../src/rpc/convert.js";
import { packageDefinition } from "../../src/rpc/proto.js";
import type { MethodDefinition } from "@grpc/proto-loader";

type AnyMethod = MethodDefinition<unknown, unknown>;

const streamsService = packageDefinition["ess.v1.Streams"] as unknown as Record<string, AnyMethod>;
const appendMethod = streamsService.Append!;
const readMethod = streamsService.Read!;
const readAllMethod = streamsService.ReadAll!;

/** proto-loader's generic codec: the reference. */
const generic = {
  encodeAppendRequest: (m: unknown) => appendMethod.requestSerialize(m),
  decodeAppendRequest: (b: Buffer) => appendMethod.requestDeserialize(b),
  encodeAppendResult: (m: unknown) => appendMethod.responseSerialize(m),
  decodeAppendResult: (b: Buffer) => appendMethod.responseDeserialize(b),
  encodeReadRequest: (m: unknown) => readMethod.requestSerialize(m),
  decodeReadRequest: (b: Buffer) => readMethod.requestDeserialize(b),
  encodeReadResult: (m: unknown) => readMethod.responseSerialize(m),
  decodeReadResult: (b: Buffer) => readMethod.responseDeserialize(b),
  encodeReadAllRequest: (m: unknown) => readAllMethod.requestSerialize(m),
  decodeReadAllRequest: (b: Buffer) => readAllMethod.requestDeserialize(b),
  encodeReadAllResult: (m: unknown) => readAllMethod.responseSerialize(m),
  decodeReadAllResult: (b: Buffer) => readAllMethod.responseDeserialize(b),
};

/**
 * proto-loader (oneofs: true) marks a set proto3 `optional` field with a synthetic oneof key
 * (`_tenant: "tenant"`); the hand-written decoders leave those out, nothing reads them.
 */
function withoutOneofMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutOneofMarkers);
  if (value === null || typeof value !== "object" || Buffer.isBuffer(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !k.startsWith("_"))
      .map(([k, v]) => [k, withoutOneofMarkers(v)]),
  );
}

// ---- hand-made wire bytes, for encodings the generic encoder does not write ----

function varint(value: bigint): number[] {
  const out: number[] = [];
  let v = value;
  while (v > 127n) {
    out.push(Number(v & 127n) | 128);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

function varintField(field: number, value: bigint): number[] {
  return [...varint(BigInt(field << 3)), ...varint(value)];
}

function bytesField(field: number, payload: Uint8Array | number[] | string): number[] {
  const bytes = typeof payload === "string" ? [...Buffer.from(payload, "utf8")] : [...payload];
  return [...varint(BigInt((field << 3) | 2)), ...varint(BigInt(bytes.length)), ...bytes];
}

/** One unknown field of every wire type (numbers 90-94, not in any ess.v1 message). */
const unknownFields = [
  ...varintField(90, 2n ** 63n + 5n),
  ...[(91 << 3) | 1, 0x91, 0x05, 1, 2, 3, 4, 5, 6, 7, 8],
  ...bytesField(92, "ignored"),
  ...[(93 << 3) | 3, 0x05, ...varintField(1, 7n), (93 << 3) | 4, 0x05],
  ...[(94 << 3) | 5, 0x05, 1, 2, 3, 4],
];

// ---- sample values ----

const big = 2 ** 40 + 3; // a uint64 above 2^32
const nonAscii = '{"name":"Zoë","city":"Kraków","emoji":"😀","cjk":"東京","rtl":"שלום"}';

function event(overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    stream_id: "orders-1",
    revision: 0,
    position: 0,
    event_id: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
    event_type: "OrderPlaced",
    data: '{"amount":10}',
    metadata: "{}",
    created_at: "2026-11-22T21:48:00.000Z",
    content_type: "application/json",
    ...overrides,
  };
}

/** An event's data or metadata as the bytes of its message field. */
function partBytes(part: string | Buffer): Buffer {
  return typeof part === "string" ? Buffer.from(part, "utf8") : part;
}

/** An EventRecord as the generic decoder reads it: metadata kept as bytes in metadata_bytes. */
function pbEvent(e: EventRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...e,
    data: partBytes(e.data),
    metadata: typeof e.metadata === "string" ? partBytes(e.metadata) : Buffer.alloc(0),
  };
  if (typeof e.metadata !== "string") out.metadata_bytes = e.metadata;
  return out;
}

const binary = Buffer.from([0xff, 0x00, 0xfe, 0x80, 0x7b, 0x22]);

const readResults: [string, ReadStreamResult][] = [
  [
    "an empty page at the end",
    { stream_id: "s", direction: "forward", events: [], next_revision: null, is_end: true },
  ],
  [
    "next_revision 0 is set, not null",
    { stream_id: "s", direction: "backward", events: [event()], next_revision: 0, is_end: false },
  ],
  [
    "uint64 values above 2^32 and 2^53-1",
    {
      stream_id: "s",
      direction: "forward",
      events: [event({ revision: big, position: Number.MAX_SAFE_INTEGER })],
      next_revision: big + 1,
      is_end: false,
    },
  ],
  [
    "non-ASCII UTF-8 in data, metadata, ids and type",
    {
      stream_id: "zamówienia-ü",
      direction: "forward",
      events: [
        event({ stream_id: "zamówienia-ü", event_type: "Bestellung📦", data: nonAscii, metadata: nonAscii }),
      ],
      next_revision: null,
      is_end: true,
    },
  ],
  [
    "empty strings and empty data (the defaults, written all the same)",
    {
      stream_id: "",
      direction: "",
      events: [
        event({ stream_id: "", event_id: "", event_type: "", data: "", metadata: "", created_at: "" }),
      ],
      next_revision: null,
      is_end: false,
    } as unknown as ReadStreamResult,
  ],
  [
    "lengths that take 2 and 3 varint bytes, ASCII and not",
    {
      stream_id: "s",
      direction: "forward",
      events: [
        event({ data: `{"x":"${"a".repeat(200)}"}` }),
        event({ data: `{"x":"${"é".repeat(100)}"}` }),
        event({ data: `{"x":"${"b".repeat(20_000)}"}`, metadata: `{"m":"${"ß".repeat(10_000)}"}` }),
        event({ data: `{"x":"${"c".repeat(47)}"}`, event_type: "x".repeat(48) }),
      ],
      next_revision: 9,
      is_end: false,
    },
  ],
  [
    "events of different streams (a ReadAll-like page)",
    {
      stream_id: "s",
      direction: "forward",
      events: [event({ stream_id: "a" }), event({ stream_id: "bb" }), event({ stream_id: "a" })],
      next_revision: null,
      is_end: true,
    },
  ],
  [
    "binary data, metadata kept as bytes, empty bytes, JSON values that are not objects",
    {
      stream_id: "s",
      direction: "forward",
      events: [
        event({ data: binary, content_type: "application/octet-stream" }),
        event({ metadata: binary }),
        event({ data: Buffer.alloc(0), metadata: Buffer.alloc(0), content_type: "application/octet-stream" }),
        event({
          data: Buffer.from('{"a":1}'),
          metadata: Buffer.from("{}"),
          content_type: "application/octet-stream",
        }),
        event({ data: '[1,"x"]', metadata: '"text"' }),
        event({ data: "42" }),
      ],
      next_revision: null,
      is_end: true,
    },
  ],
  [
    "a full page of 1,000 events",
    {
      stream_id: "s",
      direction: "forward",
      events: Array.from({ length: 1000 }, (_, i) => event({ revision: i, position: i * 1000 })),
      next_revision: 1000,
      is_end: false,
    },
  ],
];

/** What the server sent before the hand-written codec: convert.toPb* through the generic encoder. */
function genericReadResultBytes(result: ReadStreamResult): Buffer {
  return generic.encodeReadResult(convert.toPb("ReadResult")(result));
}

for (const [name, result] of readResults) {
  test(`ReadResult encoding: ${name}: the generic encoder's bytes, decoded field for field`, () => {
    const bytes = encodeReadResult(result);
    assert.deepEqual(bytes, genericReadResultBytes(result));
    const decoded = generic.decodeReadResult(bytes) as Record<string, unknown>;
    const expected: Record<string, unknown> = {
      stream_id: result.stream_id,
      direction: result.direction,
      events: result.events.map(pbEvent),
      is_end: result.is_end,
    };
    if (result.next_revision !== null) expected.next_revision = result.next_revision;
    assert.deepEqual(withoutOneofMarkers(decoded), expected);
    assert.equal("next_revision" in decoded, result.next_revision !== null, "unset stays unset");
  });

  test(`ReadResult decoding (client): ${name}: what the generic decoder and convert give`, () => {
    const bytes = genericReadResultBytes(result);
    const decoded = decodeReadResult(bytes);
    assert.deepEqual(decoded, convert.fromPb("ReadResult")(generic.decodeReadResult(bytes) as never));
    assert.deepEqual(Object.keys(decoded), ["stream_id", "direction", "events", "next_revision", "is_end"]);
    if (result.direction === "forward" || result.direction === "backward") assert.deepEqual(decoded, result);
  });
}

/** The ReadResult cases as ReadAll pages (same events; next_position from next_revision). */
const readAllResults: [string, ReadAllResult][] = readResults.map(([name, r]) => [
  name.replace("next_revision", "next_position"),
  { events: r.events, next_position: r.next_revision, is_end: r.is_end },
]);

function genericReadAllResultBytes(result: ReadAllResult): Buffer {
  return generic.encodeReadAllResult(convert.toPb("ReadAllResult")(result));
}

for (const [name, result] of readAllResults) {
  test(`ReadAllResult: ${name}: the generic encoder's bytes, read back by both decoders`, () => {
    const bytes = encodeReadAllResult(result);
    assert.deepEqual(bytes, genericReadAllResultBytes(result));
    const decoded = generic.decodeReadAllResult(bytes) as Record<string, unknown>;
    assert.equal("next_position" in decoded, result.next_position !== null, "unset stays unset");
    assert.deepEqual(decodeReadAllResult(bytes), convert.fromPb("ReadAllResult")(decoded as never));
    assert.deepEqual(decodeReadAllResult(bytes), result);
  });
}

const readAllRequests: [string, ReadAllRequestMessage][] = [
  ["nothing set", {}],
  ["every field", { tenant: "zamówienia-ü", from_position: big, limit: 1000 }],
  ["0 is set, not unset", { tenant: "", from_position: 0, limit: 0 }],
  [
    "backward with every filter",
    {
      tenant: "t",
      from_position: 12,
      limit: 3,
      direction: "backward",
      stream_prefix: ["orders-", "zamówienia-ü", ""],
      event_type_prefix: ["Order"],
      stream_regex: "^(a+)+$",
      event_type_regex: "",
    },
  ],
];

for (const [name, message] of readAllRequests) {
  test(`ReadAllRequest: ${name}: the generic bytes both ways`, () => {
    const bytes = encodeReadAllRequest(message);
    assert.deepEqual(bytes, generic.encodeReadAllRequest(message));
    // Repeated fields decode as lists, empty when unset (proto-loader's arrays option).
    const decoded = { stream_prefix: [], event_type_prefix: [], ...message };
    assert.deepEqual(withoutOneofMarkers(generic.decodeReadAllRequest(bytes)), decoded);
    assert.deepEqual(decodeReadAllRequest(bytes), decoded);
  });
}

const appendResults: AppendResult[] = [
  { stream_id: "orders-1", first_revision: 0, last_revision: 0, position: 0, count: 1 },
  {
    stream_id: "zamówienia-ü",
    first_revision: big,
    last_revision: big + 999,
    position: 2 ** 53 - 1,
    count: 1000,
  },
  { stream_id: "", first_revision: 0, last_revision: 0, position: 0, count: 0 },
];

for (const result of appendResults) {
  test(`AppendResult of ${JSON.stringify(result)}: the generic bytes both ways`, () => {
    const bytes = encodeAppendResult(result);
    assert.deepEqual(bytes, generic.encodeAppendResult(convert.toPb("AppendResult")(result)));
    assert.deepEqual(generic.decodeAppendResult(bytes), result);
    assert.deepEqual(decodeAppendResult(bytes), result);
    assert.deepEqual(
      decodeAppendResult(bytes),
      convert.fromPb("AppendResult")(generic.decodeAppendResult(bytes) as never),
    );
  });
}

const appendRequests: [string, AppendRequestMessage][] = [
  [
    "every field set",
    {
      stream_id: "orders-1",
      tenant: "acme",
      events: [
        {
          event_type: "OrderPlaced",
          data: '{"a":1}',
          metadata: '{"m":2}',
          event_id: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        },
      ],
      expected_revision: String(big),
    },
  ],
  ["optional fields unset", { stream_id: "s", events: [{ event_type: "T", data: "{}" }] }],
  [
    "optional fields set to their defaults (empty metadata bytes, empty strings) stay set",
    {
      stream_id: "",
      tenant: "",
      events: [{ event_type: "", data: "", metadata: "", event_id: "" }],
      expected_revision: "",
    },
  ],
  ["no events", { stream_id: "s", events: [], expected_revision: "no_stream" }],
  [
    "binary events and metadata kept as bytes (empty ones stay set)",
    {
      stream_id: "s",
      events: [
        { event_type: "B", data: binary, content_type: "application/octet-stream", metadata_bytes: binary },
        {
          event_type: "E",
          data: Buffer.alloc(0),
          content_type: "application/octet-stream",
          metadata_bytes: Buffer.alloc(0),
        },
        { event_type: "J", data: "[1]", content_type: "application/json", metadata: '"m"' },
      ],
    },
  ],
  [
    "non-ASCII and long data, many events",
    {
      stream_id: "zamówienia-ü",
      events: Array.from({ length: 300 }, (_, i) => ({
        event_type: i % 2 ? "Bestellung📦" : "T",
        data: i % 3 ? nonAscii : `{"x":"${"y".repeat(i * 10)}"}`,
        metadata: i % 5 ? undefined : nonAscii,
      })),
      expected_revision: "any",
    },
  ],
];

/** The message the client built before the hand-written codec (data/metadata as Buffers). */
function genericAppendRequest(message: AppendRequestMessage): unknown {
  return {
    ...message,
    events: message.events.map((e) => ({
      ...e,
      data: partBytes(e.data),
      metadata: e.metadata === undefined ? undefined : Buffer.from(e.metadata, "utf8"),
    })),
  };
}

/** What proto-loader decodes from an AppendRequest message, in the generated __Output shape. */
function expectedAppendRequestOutput(message: AppendRequestMessage): unknown {
  const out: Record<string, unknown> = {
    stream_id: message.stream_id,
    events: message.events.map((e) => {
      const ev: Record<string, unknown> = { event_type: e.event_type, data: partBytes(e.data) };
      if (e.metadata !== undefined) ev.metadata = Buffer.from(e.metadata, "utf8");
      if (e.event_id !== undefined) ev.event_id = e.event_id;
      if (e.content_type !== undefined) ev.content_type = e.content_type;
      if (e.metadata_bytes !== undefined) ev.metadata_bytes = e.metadata_bytes;
      return ev;
    }),
  };
  if (message.tenant !== undefined) out.tenant = message.tenant;
  if (message.expected_revision !== undefined) out.expected_revision = message.expected_revision;
  return out;
}

for (const [name, message] of appendRequests) {
  test(`AppendRequest: ${name}: the client writes the generic bytes, the server reads them as proto-loader does`, () => {
    const bytes = encodeAppendRequest(message);
    const genericBytes = generic.encodeAppendRequest(genericAppendRequest(message));
    assert.deepEqual(bytes, genericBytes);
    const expected = expectedAppendRequestOutput(message);
    assert.deepEqual(withoutOneofMarkers(generic.decodeAppendRequest(bytes)), expected);
    assert.deepEqual(decodeAppendRequest(genericBytes), expected);
    assert.deepEqual(
      decodeAppendRequest(genericBytes),
      withoutOneofMarkers(generic.decodeAppendRequest(genericBytes)),
    );
  });
}

const readRequests: [string, ReadRequestMessage][] = [
  ["only the stream", { stream_id: "s" }],
  ["every field", { stream_id: "s", tenant: "acme", from: big, limit: 1000, direction: "backward" }],
  ["from 0 and limit 0 are set, not unset", { stream_id: "", tenant: "", from: 0, limit: 0, direction: "" }],
  ["largest safe from", { stream_id: "zamówienia-ü", from: Number.MAX_SAFE_INTEGER, limit: 0xffffffff }],
];

for (const [name, message] of readRequests) {
  test(`ReadRequest: ${name}: the generic bytes both ways`, () => {
    const bytes = encodeReadRequest(message);
    const genericBytes = generic.encodeReadRequest(message);
    assert.deepEqual(bytes, genericBytes);
    const expected = Object.fromEntries(Object.entries(message).filter(([, v]) => v !== undefined));
    assert.deepEqual(withoutOneofMarkers(generic.decodeReadRequest(bytes)), expected);
    assert.deepEqual(decodeReadRequest(genericBytes), expected);
  });
}

test("the decoders skip unknown fields of every wire type and read fields in any order", () => {
  const read = Buffer.from([
    ...unknownFields,
    ...bytesField(5, "backward"),
    ...varintField(4, 7n),
    ...unknownFields,
    ...varintField(3, BigInt(big)),
    ...bytesField(1, "s"),
  ]);
  const expectedRead = { stream_id: "s", from: big, limit: 7, direction: "backward" };
  assert.deepEqual(withoutOneofMarkers(generic.decodeReadRequest(read)), expectedRead);
  assert.deepEqual(decodeReadRequest(read), expectedRead);

  const eventBytes = [...unknownFields, ...bytesField(2, '{"a":1}'), ...bytesField(1, "T"), ...unknownFields];
  const append = Buffer.from([
    ...bytesField(3, eventBytes),
    ...unknownFields,
    ...bytesField(1, "s"),
    ...bytesField(3, bytesField(1, "U")),
  ]);
  const expectedAppend = {
    stream_id: "s",
    events: [
      { event_type: "T", data: Buffer.from('{"a":1}') },
      { event_type: "U", data: Buffer.alloc(0) },
    ],
  };
  assert.deepEqual(withoutOneofMarkers(generic.decodeAppendRequest(append)), expectedAppend);
  assert.deepEqual(decodeAppendRequest(append), expectedAppend);

  const result = Buffer.from([
    ...unknownFields,
    ...varintField(5, 1n),
    ...bytesField(3, [...unknownFields, ...bytesField(6, "{}"), ...varintField(2, 4n)]),
    ...varintField(4, 0n),
    ...bytesField(2, "backward"),
  ]);
  assert.deepEqual(
    decodeReadResult(result),
    convert.fromPb("ReadResult")(generic.decodeReadResult(result) as never),
  );

  const readAll = Buffer.from([
    ...unknownFields,
    ...varintField(3, 5n),
    ...varintField(2, BigInt(big)),
    ...unknownFields,
  ]);
  const readAllDecoded = { from_position: big, limit: 5, stream_prefix: [], event_type_prefix: [] };
  assert.deepEqual(decodeReadAllRequest(readAll), readAllDecoded);
  assert.deepEqual(withoutOneofMarkers(generic.decodeReadAllRequest(readAll)), readAllDecoded);
});

test("the decoders give the generic decoder's numbers for uint64 values above 2^53 and wide varints", () => {
  for (const value of [2n ** 53n + 1n, 2n ** 63n + 12345n, 2n ** 64n - 1n, 2n ** 32n, 2n ** 32n - 1n]) {
    const bytes = Buffer.from([...bytesField(1, "s"), ...varintField(3, value)]);
    assert.equal(decodeReadRequest(bytes).from, (generic.decodeReadRequest(bytes) as { from: number }).from);
    const appendResult = Buffer.from([...varintField(2, value), ...varintField(5, value)]);
    assert.deepEqual(decodeAppendResult(appendResult), generic.decodeAppendResult(appendResult));
    // A uint32 sent as a wider varint keeps its low 32 bits. (protobufjs reads 6- to 9-byte
    // varints in a uint32 field wrongly: it always skips 5 more bytes, so compare with it only
    // on 10-byte ones, the encoding of a negative int32.)
    const limit = Buffer.from([...bytesField(1, "s"), ...varintField(4, value)]);
    assert.equal(decodeReadRequest(limit).limit, Number(value & 0xffffffffn), `limit ${value}`);
    if (value >= 2n ** 63n) {
      assert.equal(
        decodeReadRequest(limit).limit,
        (generic.decodeReadRequest(limit) as { limit: number }).limit,
      );
    }
  }
  // A bool reads its low 32 bits, as protobufjs does: 2^32 is false.
  const isEnd = Buffer.from(varintField(5, 2n ** 32n));
  assert.equal(
    decodeReadResult(isEnd).is_end,
    (generic.decodeReadResult(isEnd) as { is_end: boolean }).is_end,
  );
});

test("a truncated message is refused, not read short", () => {
  const whole = encodeReadResult(readResults[3]![1]);
  for (const cut of [1, 2, 10, whole.length - 1]) {
    assert.throws(() => decodeReadResult(whole.subarray(0, cut)), /malformed protobuf message/);
  }
  const request = encodeAppendRequest(appendRequests[0]![1]);
  assert.throws(() => decodeAppendRequest(request.subarray(0, request.length - 3)), /malformed/);
  assert.throws(() => decodeReadRequest(Buffer.from([0x18, 0x80])), /malformed/);
  assert.throws(() => decodeReadRequest(Buffer.from([0x0f])), /invalid wire type/);
});

test("an encoder refuses a number that is not a uint64 it can write exactly (a bug above it)", () => {
  const result = readResults[1]![1];
  for (const bad of [-1, 1.5, 2 ** 53, NaN]) {
    assert.throws(() => encodeReadResult({ ...result, next_revision: bad }), /assertion failed/);
    assert.throws(() => encodeAppendResult({ ...appendResults[0]!, position: bad }), /assertion failed/);
  }
});

// ---- random results and requests ----

const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "binary-ascii", maxLength: 300 }),
  fc.string({ maxLength: 300 }),
);
const uint64 = fc.oneof(fc.nat(300), fc.maxSafeNat());
// Plain objects (fast-check's default has no prototype, which deepEqual tells apart).
const plain = { noNullPrototype: true };
const eventArbitrary = fc
  .record(
    {
      stream_id: text,
      revision: uint64,
      position: uint64,
      event_id: text,
      event_type: text,
      data: text,
      metadata: text,
      created_at: text,
    },
    plain,
  )
  .chain((e) =>
    // A binary event's data, and metadata kept as bytes, are any bytes.
    fc
      .record({
        binaryData: fc.boolean(),
        binaryMetadata: fc.boolean(),
        bytes: fc.uint8Array({ maxLength: 40 }),
      })
      .map(({ binaryData, binaryMetadata, bytes }): EventRecord => ({
        ...e,
        data: binaryData ? Buffer.from(bytes) : e.data,
        metadata: binaryMetadata ? Buffer.from(bytes).reverse() : e.metadata,
        content_type: binaryData ? "application/octet-stream" : "application/json",
      })),
  );

test("random ReadResults: the generic bytes, and back to the same result on the client", () => {
  fc.assert(
    fc.property(
      fc.record(
        {
          stream_id: text,
          direction: fc.constantFrom("forward" as const, "backward" as const),
          events: fc.array(eventArbitrary, { maxLength: 20 }),
          next_revision: fc.option(uint64, { nil: null }),
          is_end: fc.boolean(),
        },
        plain,
      ),
      (result) => {
        const bytes = encodeReadResult(result);
        assert.deepEqual(bytes, genericReadResultBytes(result));
        assert.deepEqual(decodeReadResult(bytes), result);
      },
    ),
    { numRuns: 300 },
  );
});

test("random AppendRequests: the generic bytes, and the server reads what proto-loader reads", () => {
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  fc.assert(
    fc.property(
      fc.record(
        {
          stream_id: text,
          tenant: optional(text),
          events: fc.array(
            fc.oneof(
              fc.record(
                {
                  event_type: text,
                  data: text,
                  metadata: optional(text),
                  event_id: optional(text),
                  content_type: optional(text),
                },
                plain,
              ),
              fc.record(
                {
                  event_type: text,
                  data: fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
                  event_id: optional(text),
                  content_type: fc.constant("application/octet-stream"),
                  metadata_bytes: optional(fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b))),
                },
                plain,
              ),
            ),
            { maxLength: 20 },
          ),
          expected_revision: optional(text),
        },
        plain,
      ),
      (message) => {
        const bytes = encodeAppendRequest(message);
        assert.deepEqual(bytes, generic.encodeAppendRequest(genericAppendRequest(message)));
        assert.deepEqual(decodeAppendRequest(bytes), withoutOneofMarkers(generic.decodeAppendRequest(bytes)));
        assert.deepEqual(decodeAppendRequest(bytes), expectedAppendRequestOutput(message));
      },
    ),
    { numRuns: 300 },
  );
});

test("random ReadAllResults: the generic bytes, and back to the same result on the client", () => {
  fc.assert(
    fc.property(
      fc.record(
        {
          events: fc.array(eventArbitrary, { maxLength: 20 }),
          next_position: fc.option(uint64, { nil: null }),
          is_end: fc.boolean(),
        },
        plain,
      ),
      (result) => {
        const bytes = encodeReadAllResult(result);
        assert.deepEqual(bytes, genericReadAllResultBytes(result));
        assert.deepEqual(decodeReadAllResult(bytes), result);
      },
    ),
    { numRuns: 200 },
  );
});

// ---- stored-bytes events (what the log engine hands the operations' reads) ----

/** A StoredEventRecord holding `e`'s fields as an engine stores them (the id as latin1), amid other bytes. */
function storedOf(e: EventRecord): StoredEventRecord {
  const filler = Buffer.from([0xff, 0x00, 0x7f]);
  const id = Buffer.from(e.event_id, "latin1");
  const type = Buffer.from(e.event_type, "utf8");
  const metadata = partBytes(e.metadata);
  const data = partBytes(e.data);
  const bytes = Buffer.concat([filler, id, filler, type, metadata, data, filler]);
  const idStart = filler.length;
  const typeStart = idStart + id.length + filler.length;
  const metadataStart = typeStart + type.length;
  const dataStart = metadataStart + metadata.length;
  return new StoredEventRecord(
    e.stream_id,
    e.revision,
    e.position,
    Date.parse(e.created_at),
    bytes,
    idStart,
    idStart + id.length,
    typeStart,
    metadataStart,
    dataStart,
    dataStart + data.length,
    (typeof e.data === "string" ? 0 : BINARY_DATA) | (typeof e.metadata === "string" ? 0 : BINARY_METADATA),
  );
}

for (const [name, result] of readResults) {
  if (result.events.some((e) => e.created_at === "")) continue; // a stored record always has a time
  test(`ReadResult from stored bytes: ${name}: the bytes of the plain records, and the generic encoder's`, () => {
    const stored = { ...result, events: result.events.map(storedOf) };
    const plainRecords = { ...result, events: stored.events.map(plainEventRecord) };
    const bytes = encodeReadResult(stored);
    assert.deepEqual(bytes, encodeReadResult(plainRecords));
    assert.deepEqual(bytes, genericReadResultBytes(plainRecords));
    const all = { events: stored.events, next_position: result.next_revision, is_end: result.is_end };
    assert.deepEqual(
      encodeReadAllResult(all),
      genericReadAllResultBytes({ ...all, events: plainRecords.events }),
    );
  });
}

test("a stored event id that is not ASCII is encoded as its latin1 text, as the plain record's", () => {
  const e = storedOf(event({ event_id: "zamówienia-ÿ\u0080" }));
  assert.equal(e.event_id, "zamówienia-ÿ\u0080");
  const result: ReadStreamResult = {
    stream_id: "s",
    direction: "forward",
    events: [e],
    next_revision: null,
    is_end: true,
  };
  const plainResult = { ...result, events: [plainEventRecord(e)] };
  assert.deepEqual(encodeReadResult(result), genericReadResultBytes(plainResult));
});

test("random stored-bytes pages: the generic bytes of the records they read as", () => {
  const latin1 = fc.string({
    unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)),
    maxLength: 40,
  });
  const storedEvent = fc
    .record(
      {
        stream_id: text,
        revision: uint64,
        position: uint64,
        event_id: fc.oneof(fc.uuid(), latin1),
        event_type: text,
        data: text,
        metadata: text,
        created_at: fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString()),
        binary: fc.constantFrom(0, BINARY_DATA, BINARY_METADATA, BINARY_DATA | BINARY_METADATA),
      },
      plain,
    )
    .map(({ binary, ...e }) =>
      storedOf({
        ...e,
        data: (binary & BINARY_DATA) !== 0 ? Buffer.from(e.data, "latin1") : e.data,
        metadata: (binary & BINARY_METADATA) !== 0 ? Buffer.from(e.metadata, "latin1") : e.metadata,
        content_type: (binary & BINARY_DATA) !== 0 ? "application/octet-stream" : "application/json",
      }),
    );
  fc.assert(
    fc.property(fc.array(storedEvent, { maxLength: 20 }), fc.boolean(), (events, isEnd) => {
      const result: ReadStreamResult = {
        stream_id: "s",
        direction: "forward",
        events,
        next_revision: null,
        is_end: isEnd,
      };
      const bytes = encodeReadResult(result);
      const plainResult = { ...result, events: events.map(plainEventRecord) };
      assert.deepEqual(bytes, genericReadResultBytes(plainResult));
      assert.deepEqual(decodeReadResult(bytes), plainResult);
    }),
    { numRuns: 200 },
  );
});

test("random pages that repeat and nearly repeat fields: the client decodes each event's own values", () => {
  // Small pools, so a field often equals the last event's, or has its length and other bytes.
  const pool = (values: string[]) => fc.constantFrom(...values);
  const repeating = fc.record(
    {
      stream_id: pool(["a", "b", "orders-1", "orders-2", "zamówienia-ü", ""]),
      revision: fc.nat(5),
      position: fc.nat(5),
      event_id: pool(["3f2504e0-4f89-41d3-9a0c-0305e82c3301", "3f2504e0-4f89-41d3-9a0c-0305e82c3302"]),
      event_type: pool([
        "OrderPlaced",
        "OrderPlacef",
        "Bestellung📦",
        "x".repeat(64),
        "y".repeat(64),
        "z".repeat(65),
      ]),
      data: pool(["{}", '{"a":1}', '{"a":2}']),
      metadata: pool(["{}", "{]", "", '{"é":1}', '{"è":1}']),
      created_at: pool(["2026-11-22T21:48:00.000Z", "2026-11-22T21:48:00.001Z", "2026-11-22T21:48:01.000Z"]),
      content_type: fc.constant("application/json" as const),
    },
    plain,
  );
  fc.assert(
    fc.property(fc.array(repeating, { maxLength: 30 }), (events) => {
      const result: ReadStreamResult = {
        stream_id: "s",
        direction: "forward",
        events,
        next_revision: null,
        is_end: true,
      };
      const bytes = encodeReadResult(result);
      assert.deepEqual(decodeReadResult(bytes), result);
      assert.deepEqual(
        decodeReadAllResult(encodeReadAllResult({ events, next_position: 3, is_end: false })),
        {
          events,
          next_position: 3,
          is_end: false,
        },
      );
    }),
    { numRuns: 300 },
  );
});

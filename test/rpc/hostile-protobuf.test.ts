// Hostile protobuf against every decoder the server runs on bytes from the wire: the hand-written
// ones (src/rpc/codec/, session-codec.ts) and proto-loader's for every other method, as the
// server checks them (src/rpc/malformed-request.ts), and each method's decoder in the method table. For any bytes a decoder returns a value or
// throws an INVALID_ARGUMENT EssError saying what is wrong: never another error, never a stack
// overflow, never a hang. The client's decoders share the reader and are held to the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import protobuf from "protobufjs";
import type { MethodDefinition } from "@grpc/proto-loader";
import { EssError } from "../../src/errors.js";
import { limits } from "../../src/limits.js";
import { checkWireFormat } from "../../src/rpc/codec/wire.js";
import {
  type AppendRequestMessage,
  decodeAppendRequest,
  decodeAppendResult,
  encodeAppendRequest,
} from "../../src/rpc/codec/append.js";
import {
  decodeReadAllRequest,
  decodeReadRequest,
  encodeReadAllRequest,
  encodeReadRequest,
} from "../../src/rpc/codec/read-requests.js";
import { decodeReadAllResult, decodeReadResult } from "../../src/rpc/codec/read-results.js";
import * as sessionCodec from "../../src/rpc/session-codec.js";
import { packageDefinition } from "../../src/rpc/proto.js";
import { checkedGenericDecoder, MalformedRequest, orMalformed } from "../../src/rpc/malformed-request.js";
import { messageTypes } from "./proto-reflection.js";
import { LongLivedCalls } from "../../src/rpc/methods/long-lived-calls.js";
import { methodTable } from "../../src/rpc/methods/table.js";
import type { Operations } from "../../src/operations/contract.js";

type AnyMethod = MethodDefinition<unknown, unknown>;

/** Every method of every service the server loads (reflection's own aside), by "service/method". */
const genericMethods: [string, AnyMethod][] = Object.entries(packageDefinition).flatMap(([name, def]) => {
  const methods = Object.entries(def as Record<string, unknown>);
  const isService = methods.every(
    ([, m]) => typeof (m as Partial<AnyMethod>).requestDeserialize === "function",
  );
  return isService
    ? methods.map(([method, m]): [string, AnyMethod] => [`${name}/${method}`, m as AnyMethod])
    : [];
});

type Decoder = (bytes: Buffer) => unknown;

const serverDecoders: [string, Decoder][] = [
  ["decodeAppendRequest", decodeAppendRequest],
  ["decodeReadRequest", decodeReadRequest],
  ["decodeReadAllRequest", decodeReadAllRequest],
  ["decodeAppendSessionRequest", sessionCodec.decodeAppendSessionRequest],
  ["decodeReadSessionRequest", sessionCodec.decodeReadSessionRequest],
  ["checkWireFormat", checkWireFormat],
  ...genericMethods.map(([name, m]): [string, Decoder] => [
    `generic ${name}`,
    checkedGenericDecoder(m.requestDeserialize),
  ]),
  // What the carriers run: each method's decoder in the method table (src/rpc/methods/).
  ...[...methodTable({ ops: {} as Operations, calls: new LongLivedCalls() }).values()].map(
    (method): [string, Decoder] => [`table ${method.path}`, method.decode],
  ),
];

const clientDecoders: [string, Decoder][] = [
  ["decodeAppendResult", decodeAppendResult],
  ["decodeReadResult", decodeReadResult],
  ["decodeReadAllResult", decodeReadAllResult],
  ["decodeAppendSessionResponse", sessionCodec.decodeAppendSessionResponse],
  ["decodeReadSessionResponse", sessionCodec.decodeReadSessionResponse],
];

const allDecoders = [...serverDecoders, ...clientDecoders];

/** Decodes or throws an INVALID_ARGUMENT EssError; anything else fails the test. */
function decodesOrRefuses(name: string, decode: Decoder, bytes: Buffer): void {
  try {
    decode(bytes);
  } catch (error) {
    if (error instanceof EssError && error.code === "INVALID_ARGUMENT") {
      // Malformed wire format, or a string field whose bytes are not UTF-8 (../../src/contract/rules.ts).
      assert.match(error.message, /^malformed protobuf message: | is not valid UTF-8$/, name);
      return;
    }
    assert.fail(`${name} threw ${String(error)} on ${bytes.subarray(0, 64).toString("hex")}`);
  }
}

/** Refused with INVALID_ARGUMENT and a message matching `message`. */
function refuses(name: string, decode: Decoder, bytes: Buffer, message: RegExp): void {
  assert.throws(
    () => decode(bytes),
    (error: unknown) => {
      assert.ok(error instanceof EssError, `${name}: an EssError, not ${String(error)}`);
      assert.equal(error.code, "INVALID_ARGUMENT", name);
      assert.match(error.message, message, name);
      return true;
    },
    name,
  );
}

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

const key = (field: number, wireType: number): number[] => varint(BigInt((field << 3) | wireType));
const startGroup = (field: number): number[] => key(field, 3);
const endGroup = (field: number): number[] => key(field, 4);

/** `depth` groups of field 15 nested, each closed. */
function nestedGroups(depth: number): number[] {
  return [
    ...Array<number[]>(depth).fill(startGroup(15)).flat(),
    ...Array<number[]>(depth).fill(endGroup(15)).flat(),
  ];
}

/** An AppendRequest's `events` field (3) holding `payload` as the event's bytes. */
function inEvent(payload: number[]): Buffer {
  return Buffer.from([...key(1, 2), 1, 0x61, ...key(3, 2), ...varint(BigInt(payload.length)), ...payload]);
}

const hundredKiB = 100 * 1024;

test("100 KiB of nested start-groups is refused by every decoder, at the top and inside an event", () => {
  const nested = Buffer.alloc(hundredKiB, 0x0b); // key 0x0b: field 1, wire type 3 (start-group)
  const deep = new RegExp(`groups nested deeper than ${limits.protobufGroupDepthMax}`);
  for (const [name, decode] of allDecoders) refuses(name, decode, nested, deep);
  refuses("in an event", decodeAppendRequest, inEvent([...nested]), deep);
  const session = Buffer.from([0x08, 0x01, 0x12, ...varint(BigInt(hundredKiB)), ...nested]);
  refuses("in a session's append", sessionCodec.decodeAppendSessionRequest, session, deep);
});

test("groups nested to the bound are skipped; one level more is refused", () => {
  const max = limits.protobufGroupDepthMax;
  const atBound = Buffer.from([...key(1, 2), 1, 0x73, ...nestedGroups(max)]);
  assert.equal(decodeReadRequest(atBound).stream_id, "s");
  assert.deepEqual(decodeAppendRequest(inEvent(nestedGroups(max))).events.length, 1);
  for (const [name, decode] of serverDecoders) decodesOrRefuses(name, decode, atBound);
  const past = Buffer.from([...key(15, 2), 1, 0x73, ...nestedGroups(max + 1)]);
  for (const [name, decode] of allDecoders) refuses(name, decode, past, /groups nested deeper than/);
});

test("no message of the .proto contains itself: the decoders that follow the schema nest no deeper than it", () => {
  // The hand-written decoders read the embedded messages their types have (a session request's
  // append, an append's events), the text-field check of the other methods follows the schema
  // (src/rpc/authenticated-decode.ts): both nest only as deep as the .proto while no message
  // contains itself. One that did would need a depth bound there (protobufjs has one, below).
  const within = (type: protobuf.Type, path: string[]): void => {
    const here = [...path, type.fullName];
    assert.ok(!path.includes(type.fullName), `${here.join(" > ")}: a message that contains itself`);
    for (const field of type.fieldsArray) {
      if (field.resolvedType instanceof protobuf.Type) within(field.resolvedType, here);
    }
  };
  for (const type of messageTypes()) within(type, []);
});

test("protobufjs, every other method's decoder, bounds embedded messages and the groups within them", () => {
  assert.ok(
    protobuf.Reader.recursionLimit <= limits.protobufGroupDepthMax,
    "protobufjs nests no deeper than the hand-written decoders' groups",
  );
  // checkWireFormat checks a message's own fields; what an embedded one holds is left to protobufjs.
  const storageStatus = genericMethods.find(([name]) => name === "ess.v1.Admin/GetStorageStatus")![1];
  const groups = Buffer.alloc(hundredKiB, startGroup(15)[0]);
  const lastScavenge = Buffer.from([...key(6, 2), ...varint(BigInt(groups.length)), ...groups]);
  const deep = /malformed protobuf message: maximum nesting depth exceeded/;
  refuses(
    "groups in an embedded message",
    checkedGenericDecoder(storageStatus.responseDeserialize),
    lastScavenge,
    deep,
  );
  // What a message that contains itself would let a client send: one nested 1,000 deep.
  const node = protobuf
    .parse('syntax = "proto3"; message Node { Node child = 1; string name = 2; }')
    .root.lookupType("Node");
  const decodeNode = checkedGenericDecoder((bytes) => node.toObject(node.decode(bytes)));
  const nestedNodes = (depth: number): Buffer => {
    let message = Buffer.from([...key(2, 2), 1, 0x61]);
    for (let i = 0; i < depth; i++) {
      message = Buffer.concat([Buffer.from([...key(1, 2), ...varint(BigInt(message.length))]), message]);
    }
    return message;
  };
  assert.ok(decodeNode(nestedNodes(protobuf.Reader.recursionLimit)));
  refuses("a message nested 1,000 deep", decodeNode, nestedNodes(1000), deep);
});

test("malformed groups, keys, varints and lengths are refused by every decoder with what is wrong", () => {
  const cases: [string, number[], RegExp][] = [
    [
      "an end-group of another field",
      [...startGroup(15), ...endGroup(16)],
      /end-group of field 16 closes the group of field 15/,
    ],
    [
      "an end-group inside closing the outer group",
      [...startGroup(15), ...startGroup(16), ...endGroup(15)],
      /closes the group of field 16/,
    ],
    ["an end-group without its start", endGroup(15), /end-group of field 15 without its start-group/],
    ["a group not closed", [...startGroup(15), ...key(16, 0), 1], /group of field 15 not closed/],
    ["a group cut inside a key", [...startGroup(15), 0x80], /truncated varint/],
    ["a truncated varint", [...key(15, 0), 0x80, 0x80], /truncated varint/],
    [
      "a varint over 10 bytes",
      [...key(15, 0), ...Array<number>(10).fill(0xff), 0x01],
      /varint longer than 10 bytes/,
    ],
    ["a key over 10 bytes", [...Array<number>(10).fill(0xff), 0x01], /varint longer than 10 bytes/],
    ["a length past the end", [...key(15, 2), 5, 1, 2], /length past the end/],
    ["a length of 2^32 + 1", [...key(15, 2), ...varint(2n ** 32n + 1n), 0x61], /length past the end/],
    ["a length of 2^64 - 1", [...key(15, 2), ...varint(2n ** 64n - 1n), 0x61], /length past the end/],
    ["a fixed64 cut short", [...key(15, 1), 1, 2, 3], /past the end/],
    ["a fixed32 cut short", [...key(15, 5), 1, 2, 3], /past the end/],
    ["wire type 6", key(15, 6), /invalid wire type 6/],
    ["wire type 7", key(15, 7), /invalid wire type 7/],
    ["field number 0 (varint)", [0x00, 0x01], /field number 0/],
    ["field number 0 (length-delimited)", [0x02, 0x00], /field number 0/],
    ["field number 0 inside a group", [...startGroup(15), 0x00, 0x01, ...endGroup(15)], /field number 0/],
  ];
  for (const [what, bytes, message] of cases) {
    for (const [name, decode] of allDecoders)
      refuses(`${what}: ${name}`, decode, Buffer.from(bytes), message);
    refuses(`${what}: in an event`, decodeAppendRequest, inEvent(bytes), message);
  }
  // A known field's string with a length past 2^32 was read as its low 32 bits: "a".
  refuses(
    "stream_id of length 2^32 + 1",
    decodeReadRequest,
    Buffer.from([0x0a, ...varint(2n ** 32n + 1n), 0x61]),
    /length past the end/,
  );
});

test("well-formed unknown groups, nested and mixed with other fields, change nothing", () => {
  const request = { stream_id: "orders-ü", tenant: "acme", from: 2 ** 40, limit: 10, direction: "backward" };
  const plainBytes = encodeReadRequest(request);
  // A group with every wire type inside, and groups within it.
  const group = [
    ...startGroup(20),
    ...key(1, 0), ...varint(2n ** 63n),
    ...key(2, 1), 1, 2, 3, 4, 5, 6, 7, 8,
    ...startGroup(21), ...key(3, 2), 2, 0x0b, 0x0c, ...startGroup(1), ...endGroup(1), ...endGroup(21),
    ...key(4, 5), 1, 2, 3, 4,
    ...endGroup(20),
  ]; // prettier-ignore
  const withGroups = Buffer.concat([Buffer.from(group), plainBytes, Buffer.from(group)]);
  assert.deepEqual(decodeReadRequest(withGroups), decodeReadRequest(plainBytes));
  const generic = genericMethods.find(([name]) => name === "ess.v1.Streams/Read")![1];
  assert.deepEqual(
    checkedGenericDecoder(generic.requestDeserialize)(withGroups),
    generic.requestDeserialize(plainBytes),
  );
  // A group under a known field's number is skipped by the hand-written decoders (protobufjs
  // reads a known number as its declared type, whatever the wire type).
  const knownNumber = Buffer.from([...startGroup(1), ...endGroup(1), ...plainBytes]);
  assert.deepEqual(decodeReadRequest(knownNumber), decodeReadRequest(plainBytes));
});

test("orMalformed gives the refusal as a MalformedRequest and lets a bug's throw through", () => {
  const decode = orMalformed(decodeReadRequest);
  const refused = decode(Buffer.from([0x0c]));
  assert.ok(refused instanceof MalformedRequest);
  assert.equal(refused.error.code, "INVALID_ARGUMENT");
  assert.deepEqual(decode(encodeReadRequest({ stream_id: "s" })), { stream_id: "s" });
  const bug = orMalformed(() => {
    throw new TypeError("a bug");
  });
  assert.throws(() => bug(Buffer.alloc(0)), TypeError);
});

// ---- fuzzing ----

const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "binary-ascii", maxLength: 40 }));
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const plain = { noNullPrototype: true };

const appendRequest = fc.record(
  {
    stream_id: text,
    tenant: optional(text),
    events: fc.array(
      fc.record({ event_type: text, data: text, metadata: optional(text), event_id: optional(text) }, plain),
      { maxLength: 5 },
    ),
    expected_revision: optional(text),
  },
  plain,
);
const readRequest = fc.record(
  {
    stream_id: text,
    tenant: optional(text),
    from: optional(fc.oneof(fc.nat(300), fc.maxSafeNat())),
    limit: optional(fc.nat({ max: 0xffffffff })),
    direction: optional(text),
  },
  plain,
);
const readAllRequest = fc.record(
  {
    tenant: optional(text),
    from_position: optional(fc.oneof(fc.nat(300), fc.maxSafeNat())),
    limit: optional(fc.nat({ max: 0xffffffff })),
    direction: optional(text),
    stream_prefix: fc.array(text, { maxLength: 3 }),
    event_type_prefix: fc.array(text, { maxLength: 3 }),
    stream_regex: optional(text),
    event_type_regex: optional(text),
  },
  plain,
);
const correlationId = fc.oneof(fc.nat(1000), fc.maxSafeNat());

/** Valid messages of every kind the decoders read, as bytes. */
const validMessage: fc.Arbitrary<Buffer> = fc.oneof(
  appendRequest.map((m) => encodeAppendRequest(m)),
  readRequest.map((m) => encodeReadRequest(m)),
  readAllRequest.map((m) => encodeReadAllRequest(m)),
  fc
    .tuple(correlationId, appendRequest)
    .map(([id, append]) => sessionCodec.encodeAppendSessionRequest({ correlation_id: id, append })),
  fc
    .tuple(correlationId, readRequest)
    .map(([id, read]) => sessionCodec.encodeReadSessionRequest({ correlation_id: id, read })),
  fc.constantFrom(
    ...genericMethods.flatMap(([name, m]) => {
      if (name.endsWith("Login") || name.endsWith("CreateUser")) {
        return [m.requestSerialize({ username: "u", password: "p", tenant_id: "t", role: "writer" })];
      }
      if (name.endsWith("Subscribe")) return [m.requestSerialize({ stream_id: "s", from_revision: 3 })];
      return [];
    }),
  ),
);

/** Bytes that break readers: group and varint junk, bad keys and lengths, random bytes. */
const junk: fc.Arbitrary<Buffer> = fc.oneof(
  fc.integer({ min: 1, max: 4096 }).map((n) => Buffer.alloc(n, 0x0b)),
  fc
    .constantFrom(
      [0x0b],
      [0x0c],
      [0x0b, 0x14],
      [0x0b, 0x0b, 0x0c],
      [0x00],
      [0x0e],
      [0x0f],
      [0x80],
      [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
      [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f],
      [0x12, 0x80, 0x80, 0x80, 0x80, 0x10],
      nestedGroups(limits.protobufGroupDepthMax + 1),
    )
    .map((bytes) => Buffer.from(bytes)),
  fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes)),
);

type Mutation =
  | { kind: "flip"; at: number; bit: number }
  | { kind: "cut"; at: number }
  | { kind: "insert"; at: number; bytes: Buffer };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), bytes: junk }),
);

function mutate(bytes: Buffer, mutations: Mutation[]): Buffer {
  let out = Buffer.from(bytes);
  for (const m of mutations) {
    const at = out.length === 0 ? 0 : m.at % (out.length + 1);
    if (m.kind === "flip") {
      if (at < out.length) out[at]! ^= 1 << m.bit;
    } else if (m.kind === "cut") {
      out = out.subarray(0, at);
    } else {
      out = Buffer.concat([out.subarray(0, at), m.bytes, out.subarray(at)]);
    }
  }
  return out;
}

test(
  "fuzz: random bytes decode or are refused with INVALID_ARGUMENT, by every decoder",
  { timeout: 120_000 },
  () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          // Bytes from the values readers treat specially: group keys, continuation bits, 0.
          fc.array(fc.constantFrom(0x00, 0x0b, 0x0c, 0x0a, 0x12, 0x80, 0xff, 0x01, 0x0f), { maxLength: 200 }),
        ),
        (bytes) => {
          for (const [name, decode] of allDecoders) decodesOrRefuses(name, decode, Buffer.from(bytes));
        },
      ),
      { numRuns: 1500 },
    );
  },
);

test(
  "fuzz: mutated valid messages (bit flips, cuts, group and varint junk) decode or are refused with INVALID_ARGUMENT",
  { timeout: 120_000 },
  () => {
    fc.assert(
      fc.property(validMessage, fc.array(mutation, { minLength: 1, maxLength: 4 }), (bytes, mutations) => {
        const mutated = mutate(bytes, mutations);
        for (const [name, decode] of allDecoders) decodesOrRefuses(name, decode, mutated);
      }),
      { numRuns: 1500 },
    );
  },
);

test("round trips: valid requests decode to what was encoded, and encode back to the same bytes", () => {
  const withoutUndefined = (o: object): object =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  fc.assert(
    fc.property(readRequest, (m) => {
      const bytes = encodeReadRequest(m);
      const decoded = decodeReadRequest(bytes);
      assert.deepEqual(decoded, withoutUndefined(m));
      assert.deepEqual(encodeReadRequest(decoded), bytes);
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(readAllRequest, (m) => {
      const bytes = encodeReadAllRequest(m);
      const decoded = decodeReadAllRequest(bytes);
      assert.deepEqual(decoded, withoutUndefined(m));
      assert.deepEqual(encodeReadAllRequest(decoded), bytes);
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(correlationId, readRequest, (id, read) => {
      const bytes = sessionCodec.encodeReadSessionRequest({ correlation_id: id, read });
      const decoded = sessionCodec.decodeReadSessionRequest(bytes);
      assert.deepEqual(decoded, { correlation_id: id, read: withoutUndefined(read) });
      assert.deepEqual(
        sessionCodec.encodeReadSessionRequest({ correlation_id: id, read: decoded.read }),
        bytes,
      );
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(correlationId, appendRequest, (id, append) => {
      const bytes = sessionCodec.encodeAppendSessionRequest({ correlation_id: id, append });
      const decoded = sessionCodec.decodeAppendSessionRequest(bytes);
      assert.equal(decoded.correlation_id, id);
      const back = decoded.append!;
      const message: AppendRequestMessage = {
        stream_id: back.stream_id,
        tenant: back.tenant,
        events: back.events.map((e) => ({
          event_type: e.event_type,
          data: e.data.toString("utf8"),
          metadata: e.metadata?.toString("utf8"),
          event_id: e.event_id,
        })),
        expected_revision: back.expected_revision,
      };
      assert.deepEqual(
        sessionCodec.encodeAppendSessionRequest({ correlation_id: id, append: message }),
        bytes,
      );
    }),
    { numRuns: 300 },
  );
});

// The hand-written codecs of Streams.AppendSession and ReadSession (src/rpc/session-codec.ts) against
// proto-loader's generic codec: the encoders write the generic encoder's bytes, the decoders read
// what the generic encoder writes (and unknown fields) as the generic decoder does.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { MethodDefinition } from "@grpc/proto-loader";
import * as sessionCodec from "../../src/rpc/session-codec.js";
import type { AppendRequestMessage } from "../../src/rpc/codec/append.js";
import * as convert from "../../src/rpc/convert.js";
import type { ReadStreamResult } from "../../src/contract/bodies.js";
import { packageDefinition } from "../../src/rpc/proto.js";

const method = (
  packageDefinition["ess.v1.Streams"] as unknown as Record<string, MethodDefinition<unknown, unknown>>
).AppendSession!;

/** proto-loader's decoded object without its oneof markers (`outcome`, `_tenant`), which nothing reads. */
function withoutOneofMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutOneofMarkers);
  if (value === null || typeof value !== "object" || Buffer.isBuffer(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !k.startsWith("_") && k !== "outcome")
      .map(([k, v]) => [k, withoutOneofMarkers(v)]),
  );
}

const answers: sessionCodec.AppendSessionAnswer[] = [
  {
    correlation_id: 0,
    result: { stream_id: "", first_revision: 0, last_revision: 0, position: 0, count: 0 },
  },
  {
    correlation_id: 1,
    result: { stream_id: "orders-ü", first_revision: 7, last_revision: 9, position: 2 ** 40, count: 3 },
  },
  {
    correlation_id: 2 ** 53 - 1,
    error: {
      code: "WRONG_EXPECTED_REVISION",
      message: "expected revision 5 but the stream is at 0 — ü",
      details: Buffer.from('{"stream_id":"s","expected":5,"actual":0}'),
    },
  },
  { correlation_id: 300, error: { code: "INTERNAL", message: "", details: Buffer.alloc(0) } },
];

test("session answers: the generic encoder's bytes, and the client reads them back", () => {
  for (const answer of answers) {
    const bytes = sessionCodec.encodeAppendSessionResponse([answer]);
    assert.deepEqual(bytes, method.responseSerialize(answer), JSON.stringify(answer));
    assert.deepEqual(sessionCodec.decodeAppendSessionResponse(bytes), { ...answer, outcomes: [] });
    assert.deepEqual(withoutOneofMarkers(method.responseDeserialize(bytes)), { ...answer, outcomes: [] });
  }
});

test("several answers in one message: the first in fields 1 to 3, the others in outcomes, as the generic encoder writes them", () => {
  const message = { ...answers[0]!, outcomes: answers.slice(1) };
  const bytes = sessionCodec.encodeAppendSessionResponse(answers);
  assert.deepEqual(bytes, method.responseSerialize(message));
  const framed = sessionCodec.encodeAppendSessionFrame(answers);
  assert.deepEqual(framed.subarray(5), bytes);
  assert.equal(framed.readUInt32BE(1), bytes.length);
  assert.deepEqual(sessionCodec.decodeAppendSessionResponse(bytes), message);
  assert.deepEqual(withoutOneofMarkers(method.responseDeserialize(bytes)), message);
  assert.throws(() => sessionCodec.encodeAppendSessionResponse([]), /at least one answer/);
});

test("a full message of answers, an error first and errors among results, is the generic encoder's message", () => {
  const many: sessionCodec.AppendSessionAnswer[] = [answers[2]!];
  for (let i = 0; many.length < 256; i++)
    many.push(i % 17 === 5 ? answers[3]! : { ...answers[1]!, correlation_id: 2 ** 31 + i });
  const message = { ...many[0]!, outcomes: many.slice(1) };
  const bytes = sessionCodec.encodeAppendSessionResponse(many);
  assert.deepEqual(bytes, method.responseSerialize(message));
  assert.deepEqual(sessionCodec.encodeAppendSessionFrame(many).subarray(5), bytes);
  assert.deepEqual(sessionCodec.decodeAppendSessionResponse(bytes), message);
  // A number no varint can carry is refused before anything is written.
  const result = { stream_id: "s", first_revision: 0, last_revision: 0, position: 0, count: -1 };
  const bad: sessionCodec.AppendSessionAnswer[] = [answers[1]!, { correlation_id: 9, result }];
  assert.throws(() => sessionCodec.encodeAppendSessionFrame(bad), /count/);
});

test("several appends in one message: one-append messages joined are the generic encoder's message with appends", () => {
  const messages = requests.map((request) => sessionCodec.encodeAppendSessionRequest(request));
  const joined = sessionCodec.joinAppendSessionRequests(messages);
  const [first, ...rest] = requests.map(genericRequest);
  assert.deepEqual(joined, method.requestSerialize({ ...first, appends: rest }));
  assert.equal(
    joined.length,
    messages[0]!.length +
      rest.reduce((sum, _, i) => sum + sessionCodec.appendsEntryBytes(messages[i + 1]!.length), 0),
  );
  assert.deepEqual(
    sessionCodec.encodeAppendSessionRequest({ ...requests[0]!, appends: requests.slice(1) }),
    joined,
  );
  const decoded = sessionCodec.decodeAppendSessionRequest(joined);
  assert.deepEqual(decoded, withoutOneofMarkers(method.requestDeserialize(joined)));
  assert.deepEqual(
    decoded.appends.map((entry) => entry.correlation_id),
    requests.slice(1).map((request) => request.correlation_id),
  );
  assert.equal(sessionCodec.joinAppendSessionRequests([messages[1]!]), messages[1]);
});

const requests: { correlation_id: number; append: AppendRequestMessage }[] = [
  { correlation_id: 0, append: { stream_id: "s", events: [] } },
  {
    correlation_id: 99,
    append: {
      stream_id: "orders-1",
      tenant: "acme",
      events: [
        {
          event_type: "E",
          data: '{ "a" : "ü" }',
          metadata: "{}",
          event_id: "0b0f6f5e-5d0e-4c43-9f0a-2a1f0f6d9e11",
        },
        { event_type: "F", data: "{}" },
      ],
      expected_revision: "no_stream",
    },
  },
  {
    correlation_id: 2 ** 50,
    append: { stream_id: "x".repeat(200), events: [{ event_type: "E", data: "{}" }] },
  },
];

/** The client's message as the generic encoder takes it: event data/metadata as bytes. */
function genericRequest(request: (typeof requests)[number]) {
  return {
    correlation_id: request.correlation_id,
    append: {
      ...request.append,
      events: request.append.events.map((e) => ({
        ...e,
        data: Buffer.from(e.data),
        ...(e.metadata === undefined ? {} : { metadata: Buffer.from(e.metadata) }),
      })),
    },
  };
}

test("session requests: the generic encoder's bytes, and the server reads what proto-loader reads", () => {
  for (const request of requests) {
    const bytes = sessionCodec.encodeAppendSessionRequest(request);
    assert.deepEqual(bytes, method.requestSerialize(genericRequest(request)), JSON.stringify(request));
    assert.deepEqual(
      sessionCodec.decodeAppendSessionRequest(bytes),
      withoutOneofMarkers(method.requestDeserialize(bytes)),
    );
  }
});

test("the session decoders skip unknown fields and read a request without an append as null", () => {
  const unknown = Buffer.from([0x28, 0x05, 0x32, 0x02, 0x61, 0x62]); // field 5 varint 5, field 6 "ab"
  const onlyId = Buffer.concat([Buffer.from([0x08, 0x07]), unknown]);
  assert.deepEqual(sessionCodec.decodeAppendSessionRequest(onlyId), {
    correlation_id: 7,
    append: null,
    appends: [],
  });
  assert.deepEqual(withoutOneofMarkers(method.requestDeserialize(onlyId)), {
    correlation_id: 7,
    append: null,
    appends: [],
  });
  const answer = answers[1]!;
  const withUnknown = Buffer.concat([unknown, sessionCodec.encodeAppendSessionResponse([answer]), unknown]);
  assert.deepEqual(sessionCodec.decodeAppendSessionResponse(withUnknown), { ...answer, outcomes: [] });
  assert.throws(() => sessionCodec.decodeAppendSessionRequest(Buffer.from([0x12, 0x05, 0x0a])), /malformed/);
});

const readMethod = (
  packageDefinition["ess.v1.Streams"] as unknown as Record<string, MethodDefinition<unknown, unknown>>
).ReadSession!;

const readResult: ReadStreamResult = {
  stream_id: "orders-ü",
  direction: "forward",
  events: Array.from({ length: 300 }, (_, i) => ({
    stream_id: "orders-ü",
    revision: i,
    position: 2 ** 40 + i,
    event_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    event_type: i % 2 === 0 ? "Placed" : "Paid",
    data: `{"i":${i},"text":"${"é".repeat(i)}"}`,
    metadata: i % 3 === 0 ? "{}" : `{"by":${i}}`,
    created_at: "2026-11-24T18:00:00.000Z",
    content_type: "application/json" as const,
  })),
  next_revision: 300,
  is_end: false,
};

test("read session answers: the generic encoder's bytes (the result written in place), read back", () => {
  const readAnswers: sessionCodec.ReadSessionAnswer[] = [
    // 300 events: the embedded result's length needs a 3-byte varint; a large correlation id too.
    { correlation_id: 2 ** 53 - 1, result: readResult },
    { correlation_id: 1, result: { ...readResult, events: [], next_revision: null, is_end: true } },
    { correlation_id: 5, error: { code: "STREAM_NOT_FOUND", message: "no", details: Buffer.from("{}") } },
  ];
  for (const answer of readAnswers) {
    const bytes = sessionCodec.encodeReadSessionResponse([answer]);
    const generic =
      "result" in answer
        ? { correlation_id: answer.correlation_id, result: convert.toPb("ReadResult")(answer.result) }
        : answer;
    assert.deepEqual(bytes, readMethod.responseSerialize(generic));
    assert.deepEqual(sessionCodec.decodeReadSessionResponse(bytes), answer);
  }
});

test("read session requests: the generic encoder's bytes, and the server reads what proto-loader reads", () => {
  for (const request of [
    { correlation_id: 3, read: { stream_id: "s", limit: 100, direction: "forward" } },
    {
      correlation_id: 2 ** 40,
      read: { stream_id: "ü", tenant: "t", from: 7, limit: 1, direction: "backward" },
    },
  ]) {
    const bytes = sessionCodec.encodeReadSessionRequest(request);
    assert.deepEqual(bytes, readMethod.requestSerialize(request));
    assert.deepEqual(
      sessionCodec.decodeReadSessionRequest(bytes),
      withoutOneofMarkers(readMethod.requestDeserialize(bytes)),
    );
  }
});

// Streams.AppendSession on the fast path (src/rpc/fast-carrier/session-call.ts) of a whole service,
// driven frame by frame by a raw node:http2 client: how requests are cut from the stream's
// bytes, the status of every malformed message and of a deadline, and a reset session. Then a
// stock grpc-js client that compresses (served by grpc-js) and one that does not (fast path)
// must get the same answers and the same ending statuses.
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import type { CallContext } from "../../src/operations/contract.js";
import { grpcFrame } from "../../src/rpc/grpc-frame.js";
import type { StreamsClient } from "../../src/rpc/generated/ess/v1/Streams.js";
import type { AppendSessionResponse__Output } from "../../src/rpc/generated/ess/v1/AppendSessionResponse.js";
import { proto, receiveMessageBytesMax } from "../../src/rpc/proto.js";
import {
  decodeAppendSessionResponse,
  encodeAppendSessionRequest,
  encodeReadSessionRequest,
  type DecodedAppendSessionAnswer,
} from "../../src/rpc/session-codec.js";
import { limits } from "../../src/limits.js";
import {
  appendHeavyPage,
  readsRunCounter,
  heavyPageBytes,
  heavyPageEvents,
  startTestService,
  steadyCount,
  type TestService,
} from "./service-harness.js";

let ts: TestService;
let writer: CallContext;
let client: http2.ClientHttp2Session;

before(async () => {
  ts = await startTestService();
  writer = await ts.userContext("fast-writer", "acme", "writer");
  client = http2.connect(`http://${ts.address}`);
  client.on("error", () => undefined);
});

after(async () => {
  client.close();
  await ts.close();
});

/** One append request's message (without its frame head). */
function appendMessage(correlationId: number, streamId: string, data = "{}"): Buffer {
  return encodeAppendSessionRequest({
    correlation_id: correlationId,
    append: { stream_id: streamId, events: [{ event_type: "E", data }] },
  });
}

interface RawSessionEnd {
  answers: DecodedAppendSessionAnswer[];
  status: { code: number; message: string };
}

/**
 * A session on a raw HTTP/2 stream: writes bytes as given, reads answers until the status
 * (decoded as AppendSession answers unless `decodeAnswers` is false: then they are dropped).
 */
function rawSession(headers: http2.OutgoingHttpHeaders = {}, decodeAnswers = true) {
  const stream = client.request({
    ":method": "POST",
    ":path": "/ess.v1.Streams/AppendSession",
    "content-type": "application/grpc",
    te: "trailers",
    authorization: `Bearer ${writer.token ?? ""}`,
    ...headers,
  });
  const answers: DecodedAppendSessionAnswer[] = [];
  const answered: (() => void)[] = [];
  let received = Buffer.alloc(0);
  let responseHeaders: http2.IncomingHttpHeaders = {};
  let trailers: http2.IncomingHttpHeaders = {};
  stream.on("response", (h) => (responseHeaders = h));
  stream.on("trailers", (t: http2.IncomingHttpHeaders) => (trailers = t));
  stream.on("error", () => undefined);
  // The server's side ended with the status: as a gRPC client does, the call is over.
  stream.on("end", () => stream.close());
  stream.on("data", (chunk: Buffer) => {
    if (!decodeAnswers) return;
    received = Buffer.concat([received, chunk]);
    while (received.length >= 5 && received.length >= 5 + received.readUInt32BE(1)) {
      const end = 5 + received.readUInt32BE(1);
      answers.push(decodeAppendSessionResponse(received.subarray(5, end)));
      received = received.subarray(end);
      for (const wake of answered.splice(0)) wake();
    }
  });
  const ended = new Promise<RawSessionEnd>((resolve) =>
    stream.on("close", () => {
      const source = trailers["grpc-status"] !== undefined ? trailers : responseHeaders;
      resolve({
        answers,
        status: { code: Number(source["grpc-status"]), message: decodeURI(String(source["grpc-message"])) },
      });
    }),
  );
  return {
    stream,
    answers,
    ended,
    write: (bytes: Buffer) => stream.write(bytes),
    async next(count: number): Promise<void> {
      while (answers.length < count) await new Promise<void>((resolve) => answered.push(resolve));
    },
  };
}

async function eventCount(streamId: string): Promise<number> {
  try {
    return (await ts.client.getInfo(ts.admin, { stream_id: streamId, tenant: "acme" })).event_count;
  } catch {
    return 0;
  }
}

test("many requests in one DATA frame, and one split over many, are each answered once", async () => {
  const session = rawSession();
  const together = Buffer.concat([1, 2, 3].map((i) => grpcFrame(appendMessage(i, "fast-cut"))));
  session.write(together);
  await session.next(3);
  const split = grpcFrame(appendMessage(4, "fast-cut", JSON.stringify({ text: "x".repeat(300) })));
  // Byte by byte through the frame head, then in small pieces: each its own DATA frame.
  for (let at = 0; at < split.length;) {
    const step = at < 8 ? 1 : 37;
    session.write(split.subarray(at, at + step));
    at += step;
    await new Promise((resolve) => setImmediate(resolve));
  }
  await session.next(4);
  session.stream.end();
  const { answers, status } = await session.ended;
  assert.equal(status.code, grpc.status.OK);
  assert.deepEqual(
    answers.map((a) => [a.correlation_id, a.result?.first_revision]),
    [
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 3],
    ],
  );
  assert.equal(await eventCount("fast-cut"), 4);
});

test("a request over the size limit is refused from its frame head with RESOURCE_EXHAUSTED", async () => {
  const session = rawSession();
  session.write(grpcFrame(appendMessage(1, "fast-large")));
  await session.next(1);
  // Only the head of the large message is sent: the refusal cannot wait for the rest.
  const head = Buffer.alloc(5);
  head.writeUInt32BE(receiveMessageBytesMax + 1, 1);
  session.write(head);
  const { answers, status } = await session.ended;
  assert.equal(status.code, grpc.status.RESOURCE_EXHAUSTED);
  assert.equal(
    status.message,
    `Received message larger than max (${receiveMessageBytesMax + 1} vs ${receiveMessageBytesMax})`,
  );
  assert.equal(answers.length, 1);
  assert.equal(await eventCount("fast-large"), 1);
});

test("a compressed flag ends the session with INTERNAL, bytes that do not decode with INVALID_ARGUMENT, after the answers before", async () => {
  const garbage = Buffer.from([0x0a, 0xff]); // field 1 as a length-delimited field cut short
  const compressed = grpcFrame(appendMessage(2, "fast-bad"));
  compressed[0] = 1;
  for (const [bad, code, message] of [
    [grpcFrame(garbage), grpc.status.INVALID_ARGUMENT, "malformed protobuf message: truncated varint"],
    [compressed, grpc.status.INTERNAL, "Compressed message without negotiated compression"],
  ] as const) {
    const session = rawSession();
    session.write(grpcFrame(appendMessage(1, "fast-bad")));
    await session.next(1);
    session.write(bad);
    const { answers, status } = await session.ended;
    assert.deepEqual(status, { code, message });
    assert.deepEqual(
      answers.map((a) => a.correlation_id),
      [1],
    );
  }
  assert.equal(await eventCount("fast-bad"), 2);
});

test("past its grpc-timeout the session ends with DEADLINE_EXCEEDED; a timeout grpc-js would not take is INTERNAL", async () => {
  const session = rawSession({ "grpc-timeout": "300m" });
  session.write(grpcFrame(appendMessage(1, "fast-deadline")));
  await session.next(1);
  const { answers, status } = await session.ended;
  assert.deepEqual(status, { code: grpc.status.DEADLINE_EXCEEDED, message: "Deadline exceeded" });
  assert.equal(answers[0]?.result?.first_revision, 0);

  const invalid = rawSession({ "grpc-timeout": "soon" });
  invalid.write(grpcFrame(appendMessage(1, "fast-deadline")));
  const refused = await invalid.ended;
  assert.deepEqual(refused.status, {
    code: grpc.status.INTERNAL,
    message: 'Invalid grpc-timeout value "soon"',
  });
  assert.equal(refused.answers.length, 0);
  assert.equal(await eventCount("fast-deadline"), 1);
});

test("a session the client resets is dropped; the connection serves the next one", async () => {
  const reset = rawSession();
  reset.write(grpcFrame(appendMessage(1, "fast-reset")));
  await reset.next(1);
  reset.stream.close(http2.constants.NGHTTP2_CANCEL);
  await reset.ended;
  const next = rawSession();
  next.write(grpcFrame(appendMessage(1, "fast-reset")));
  await next.next(1);
  next.stream.end();
  const { answers, status } = await next.ended;
  assert.equal(status.code, grpc.status.OK);
  assert.equal(answers[0]?.result?.first_revision, 1);
});

test(
  "a session whose call fails on the fast path stops: the reads it held back never run",
  { timeout: 120_000 },
  async () => {
    await appendHeavyPage(ts.client, writer, "fast-parked");
    const reads = readsRunCounter(ts, "acme");
    try {
      const readsRun = reads.count;
      const before = await readsRun();
      const session = rawSession({ ":path": "/ess.v1.Streams/ReadSession" }, false);
      // The client stops reading answers: the server runs about sessionUnwrittenBytesMax of the
      // 300 reads and holds the others back.
      session.stream.pause();
      const sent = 300;
      for (let i = 1; i <= sent; i++) {
        const read = { stream_id: "fast-parked", limit: heavyPageEvents };
        session.write(grpcFrame(encodeReadSessionRequest({ correlation_id: i, read })));
      }
      const held = (await steadyCount(readsRun)) - before;
      const bound = Math.ceil(limits.sessionUnwrittenBytesMax / heavyPageBytes);
      assert.ok(held <= bound + 40, `${held} of ${sent} reads ran for a client that stopped reading`);
      // A frame head over the size limit fails the call; then the client reads again.
      const head = Buffer.alloc(5);
      head.writeUInt32BE(receiveMessageBytesMax + 1, 1);
      session.write(head);
      await new Promise((resolve) => setTimeout(resolve, 200));
      session.stream.resume();
      const { status } = await session.ended;
      assert.equal(status.code, grpc.status.RESOURCE_EXHAUSTED);
      // Without the session hearing its call is gone, each answer flushed would let a held-back
      // read run (its answer dropped): all 300 would run. What may run is what had room when the
      // client read again, before the server reached the frame that fails the call: the reads
      // sent ahead of it, one reserved page each, up to sessionUnwrittenBytesMax.
      const ran = (await steadyCount(readsRun)) - before;
      const room = Math.ceil(limits.sessionUnwrittenBytesMax / limits.readPageBytesMax);
      assert.ok(ran <= held + room, `${ran - held} held-back reads ran after the call had failed`);
    } finally {
      reads.close();
    }
  },
);

/** grpc-js's compression algorithm number for gzip (compression-algorithms.ts). */
const gzip = 2;

interface StockOutcome {
  answers: { correlation_id: number; outcome: string; result: unknown; error: unknown }[];
  code: number;
  details: string;
  errorCode: unknown;
}

/** A stock grpc-js client's session: sends `requests`, half-closes, and reports what came back. */
function stockSession(stub: StreamsClient, token: string | null, requests: object[]): Promise<StockOutcome> {
  const metadata = new grpc.Metadata();
  if (token !== null) metadata.set("authorization", `Bearer ${token}`);
  const call = stub.AppendSession(metadata);
  const answers: StockOutcome["answers"] = [];
  call.on("data", (r: AppendSessionResponse__Output) =>
    answers.push({
      correlation_id: Number(r.correlation_id),
      outcome: String(r.outcome),
      // Positions differ between the two runs; what each append got otherwise must not.
      result: r.result === null || r.result === undefined ? null : { ...r.result, position: "-" },
      error:
        r.error === null || r.error === undefined
          ? null
          : { ...r.error, details: r.error.details.toString() },
    }),
  );
  call.on("error", () => undefined);
  // Answers come in completion order: compared by correlation id.
  const byId = () => answers.sort((a, b) => a.correlation_id - b.correlation_id);
  for (const request of requests) call.write(request);
  call.end();
  return new Promise((resolve) =>
    call.on("status", (status: grpc.StatusObject) =>
      resolve({
        answers: byId(),
        code: status.code,
        details: status.details,
        errorCode: status.metadata.get("error-code")[0],
      }),
    ),
  );
}

test("sessions through grpc-js (compressed) and the fast path answer alike and end alike", async () => {
  const plain = new proto.ess.v1.Streams(ts.address, grpc.credentials.createInsecure());
  const compressed = new proto.ess.v1.Streams(ts.address, grpc.credentials.createInsecure(), {
    "grpc.default_compression_algorithm": gzip,
  });
  try {
    const token = writer.token;
    const run = async (stub: StreamsClient, streamId: string) => {
      const event = { event_type: "E", data: Buffer.from('{"a":1}') };
      return {
        appends: await stockSession(stub, token, [
          { correlation_id: 1, append: { stream_id: streamId, events: [event, event] } },
          { correlation_id: 2, append: { stream_id: streamId, events: [event], expected_revision: 7 } },
          {
            correlation_id: 3,
            append: { stream_id: streamId, events: [{ event_type: "E", data: Buffer.from("[") }] },
          },
          { correlation_id: 4, append: { stream_id: streamId, events: [event], expected_revision: 1 } },
        ]),
        noAppend: await stockSession(stub, token, [{ correlation_id: 9 }]),
        noToken: await stockSession(stub, null, [
          { correlation_id: 1, append: { stream_id: streamId, events: [event] } },
        ]),
      };
    };
    const viaFastPath = await run(plain, "parity-session");
    const viaGrpcJs = await run(compressed, "parity-session-gz");
    const renamed = JSON.parse(
      JSON.stringify(viaGrpcJs).replaceAll("parity-session-gz", "parity-session"),
    ) as unknown;
    assert.deepEqual(JSON.parse(JSON.stringify(viaFastPath)), renamed);
    // What they agree on is what the contract says.
    assert.equal(viaFastPath.appends.code, grpc.status.OK);
    assert.deepEqual(
      viaFastPath.appends.answers.map((a) => [a.correlation_id, a.outcome]),
      [
        [1, "result"],
        [2, "error"],
        [3, "error"],
        [4, "result"],
      ],
    );
    assert.equal(viaFastPath.noAppend.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(viaFastPath.noToken.code, grpc.status.UNAUTHENTICATED);
    assert.equal(viaFastPath.noToken.errorCode, "UNAUTHENTICATED");
    assert.equal(await eventCount("parity-session"), 3);
    assert.equal(await eventCount("parity-session-gz"), 3);
  } finally {
    plain.close();
    compressed.close();
  }
});

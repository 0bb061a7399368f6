// Streams.ReadSession over a real gRPC connection to a whole service (log engine on disk):
// pipelined reads answer exactly as the unary Read does (the same events, the same errors with
// code, message and details), through two clients; a failed
// read leaves the session going; the session ends as documented (half-close, bad token, a
// request without a read).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { EssError } from "../../src/errors.js";
import { limits } from "../../src/limits.js";
import type { ReadRequest, ReadStreamResult as ReadResult } from "../../src/contract/bodies.js";
import type { CallContext } from "../../src/operations/contract.js";
import { Payload } from "../../src/contract/payload.js";
import type { RpcClient } from "../../src/client/rpc-client.js";
import type { ReadSessionRequest } from "../../src/rpc/generated/ess/v1/ReadSessionRequest.js";
import type { ReadSessionResponse__Output } from "../../src/rpc/generated/ess/v1/ReadSessionResponse.js";
import {
  appendHeavyPage,
  grpcJsClient,
  readsRunCounter,
  heavyPageBytes,
  heavyReadSession,
  startTestService,
  steadyCount,
  type TestService,
} from "./service-harness.js";

let ts: TestService;
/** A second client of the service (service-harness.ts, grpcJsClient). */
let viaGrpcJs: RpcClient;
let writer: CallContext;

before(async () => {
  ts = await startTestService();
  viaGrpcJs = grpcJsClient(ts.address);
  writer = await ts.userContext("read-session-writer", "acme", "writer");
  for (let s = 0; s < 4; s++) {
    await ts.client.append(writer, {
      stream_id: `rs-${s}`,
      events: Array.from({ length: 120 }, (_, i) => ({
        event_type: i % 2 === 0 ? "Even" : "Odd",
        data: Payload.fromText(`{"s":${s},"i":${i},"text":"é ✓ ${"x".repeat(i)}"}`),
        metadata: i % 3 === 0 ? { by: "test", i } : undefined,
      })),
    });
  }
});

after(async () => {
  viaGrpcJs.close();
  await ts.close();
});

/** What a call gave: its result, or its error's code, message and details. */
async function outcome(call: Promise<unknown>): Promise<unknown> {
  try {
    return { result: await call };
  } catch (error) {
    assert.ok(error instanceof EssError, `an EssError, got ${String(error)}`);
    return { code: error.code, message: error.message, details: error.details };
  }
}

const requests: ReadRequest[] = [
  { stream_id: "rs-0" },
  { stream_id: "rs-1", limit: 100 },
  { stream_id: "rs-2", from: 7, limit: 13 },
  { stream_id: "rs-3", direction: "backward", limit: 5 },
  { stream_id: "rs-3", direction: "backward", from: 50, limit: 1000 },
  { stream_id: "rs-0", from: 119 },
  { stream_id: "rs-0", from: 500 },
  { stream_id: "no-such-stream" },
  { stream_id: "rs-1", tenant: "another-tenant" },
];

test("reads over a session answer as unary reads do, through either client", async () => {
  const unary = await Promise.all(requests.map((request) => outcome(ts.client.read(writer, request))));
  // The unary answers are right on their own, so that equal answers mean right answers.
  const revisions = (i: number) => (unary[i] as { result: ReadResult }).result.events.map((e) => e.revision);
  const range = (from: number, to: number) =>
    Array.from({ length: Math.abs(to - from) + 1 }, (_, k) => (from <= to ? from + k : from - k));
  assert.deepEqual(revisions(1), range(0, 99));
  assert.deepEqual(revisions(2), range(7, 19));
  assert.deepEqual(revisions(3), range(119, 115));
  assert.deepEqual(revisions(4), range(50, 0));
  assert.deepEqual(revisions(5), [119]);
  assert.deepEqual(revisions(6), []);
  const event = (unary[2] as { result: ReadResult }).result.events[2];
  assert.equal(event?.data, `{"s":2,"i":9,"text":"é ✓ ${"x".repeat(9)}"}`);
  assert.equal(event?.metadata, `{"by":"test","i":9}`);
  assert.equal(event?.event_type, "Odd");
  assert.equal((unary[7] as { code: string }).code, "STREAM_NOT_FOUND");
  assert.equal((unary[8] as { code: string }).code, "PERMISSION_DENIED");
  for (const client of [ts.client, viaGrpcJs]) {
    const session = client.openReadSession(writer);
    // Every request three times at once: answers come in completion order, each to its read.
    const all = requests.flatMap((request) => [request, request, request]);
    const answers = await Promise.all(all.map((request) => outcome(session.read(request))));
    answers.forEach((answer, i) => assert.deepEqual(answer, unary[Math.floor(i / 3)], `read ${i}`));
    // The session goes on after failed reads.
    assert.deepEqual(await outcome(session.read(requests[2]!)), unary[2]);
    await session.close();
  }
});

test("a read sees every append acknowledged before it was sent", async () => {
  const session = ts.client.openReadSession(writer);
  for (let i = 0; i < 20; i++) {
    await ts.client.append(writer, {
      stream_id: "rs-live",
      event_type: "E",
      data: Payload.fromText(`{"i":${i}}`),
    });
    const read = await session.read({ stream_id: "rs-live", direction: "backward", limit: 1 });
    assert.equal(read.events[0]?.data, `{"i":${i}}`);
    assert.equal(read.events[0]?.revision, i);
  }
  await session.close();
});

test("close() answers the reads in flight, then later reads fail with UNAVAILABLE", async () => {
  for (const client of [ts.client, viaGrpcJs]) {
    const session = client.openReadSession(writer);
    const inFlight = Array.from({ length: 50 }, () => session.read({ stream_id: "rs-2", limit: 100 }));
    const closed = session.close();
    for (const read of await Promise.all(inFlight)) assert.equal(read.events.length, 100);
    await closed;
    const later = await outcome(session.read({ stream_id: "rs-2" }));
    assert.equal((later as { code: string }).code, "UNAVAILABLE");
  }
});

test("no token or a bad token: the session's reads fail with UNAUTHENTICATED", async () => {
  for (const client of [ts.client, viaGrpcJs]) {
    for (const ctx of [{ token: null }, { token: "not-a-jwt" }]) {
      const session = client.openReadSession(ctx);
      const failed = await outcome(session.read({ stream_id: "rs-0" }));
      assert.equal((failed as { code: string }).code, "UNAUTHENTICATED");
      const again = await outcome(session.read({ stream_id: "rs-0" }));
      assert.equal((again as { code: string }).code, "UNAUTHENTICATED");
    }
  }
});

test("a request without a read, or a correlation id past 2^53, ends the session with INVALID_ARGUMENT", async () => {
  for (const message of [
    { correlation_id: 1 },
    { correlation_id: "18446744073709551615", read: { stream_id: "rs-0" } },
  ] as ReadSessionRequest[]) {
    const call = ts.client.grpc.streams.ReadSession(ts.client.metadataFor(writer));
    const answers: ReadSessionResponse__Output[] = [];
    call.on("data", (answer: ReadSessionResponse__Output) => answers.push(answer));
    call.on("error", () => undefined);
    const status = new Promise<grpc.StatusObject>((resolve) => call.on("status", resolve));
    // A good read first: it is answered before the session ends.
    call.write({ correlation_id: 7, read: { stream_id: "rs-0", limit: 2 } });
    call.write(message);
    const ended = await status;
    assert.equal(ended.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(ended.metadata.get("error-code")[0], "INVALID_ARGUMENT");
    assert.equal(answers.length, 1);
    assert.equal(answers[0]?.correlation_id, 7);
    assert.equal(answers[0]?.result?.events.length, 2);
  }
});

test(
  "a client that stops reading makes the server run only about sessionUnwrittenBytesMax of its reads, and gets every answer once it reads again",
  { timeout: 120_000 },
  async () => {
    await appendHeavyPage(ts.client, writer, "rs-heavy");
    const reads = readsRunCounter(ts, "acme");
    after(() => reads.close());
    const readsRun = reads.count;
    const { call, answered, status, read } = heavyReadSession(ts, writer, "rs-heavy");
    // One read answered, then the client stops reading.
    read(0);
    while (answered.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    call.pause();
    const before = await readsRun();
    const sent = 300;
    for (let i = 1; i <= sent; i++) read(i);
    // A session's reads go on in batches, one each time the client's side takes answers; on a
    // busy machine those can come more than 300 ms apart.
    const now = await steadyCount(readsRun, 1000);
    // The server holds limits.sessionUnwrittenBytesMax of answers (16 pages); the paused client
    // and the HTTP/2 windows take some more. Without the bound all of them run.
    const ran = now - before;
    const bound = Math.ceil(limits.sessionUnwrittenBytesMax / heavyPageBytes);
    assert.ok(ran >= bound, `${ran} reads ran before the client's backlog held the session back`);
    assert.ok(ran <= bound + 40, `${ran} of ${sent} reads ran for a client that stopped reading`);

    call.end();
    call.resume();
    assert.equal((await status).code, grpc.status.OK);
    assert.deepEqual(
      answered.sort((a, b) => a - b),
      Array.from({ length: sent + 1 }, (_, i) => i),
    );
    assert.equal((await readsRun()) - before, sent, "each read ran once");
  },
);

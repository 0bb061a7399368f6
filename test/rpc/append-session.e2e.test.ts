// Streams.AppendSession over a real gRPC connection to a whole service (log engine on disk):
// pipelined appends land exactly once and answer exactly as the unary Append does (the same
// results, the same errors with code, message and details), per-append errors leave the session
// going, and the session ends as documented: half-close, bad or expired token, shutdown.
import { test, before, after } from "node:test";
import * as http2 from "node:http2";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { SignJWT } from "jose";
import { EssError } from "../../src/errors.js";
import type { AppendRequest, AppendResult } from "../../src/contract/bodies.js";
import type { CallContext, Operations } from "../../src/operations/contract.js";
import { Payload } from "../../src/contract/payload.js";
import { limits } from "../../src/limits.js";
import { createLogger } from "../../src/logger.js";
import { createRpcClient } from "../../src/client/rpc-client.js";
import type { AppendSessionRequest } from "../../src/rpc/generated/ess/v1/AppendSessionRequest.js";
import type { AppendSessionResponse__Output } from "../../src/rpc/generated/ess/v1/AppendSessionResponse.js";
import { startRpcServer } from "../../src/rpc/server.js";
import { encodeAppendSessionRequest } from "../../src/rpc/session-codec.js";
import { startTestService, steadyCount } from "./service-harness.js";
import type { TestService } from "./service-harness.js";

let ts: TestService;
let writer: CallContext;
let reader: CallContext;

before(async () => {
  ts = await startTestService();
  writer = await ts.userContext("acme-writer", "acme", "writer");
  reader = await ts.userContext("acme-reader", "acme", "reader");
});

after(async () => {
  await ts.close();
});

function code(expected: string) {
  return (error: unknown) => {
    assert.ok(error instanceof EssError, `expected EssError, got ${String(error)}`);
    assert.equal(error.code, expected, error.message);
    return true;
  };
}

/** What a rejected append carried: the contract's code, message and details. */
async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: unknown }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof EssError, `expected EssError, got ${String(error)}`);
    return { code: error.code, message: error.message, details: error.details };
  }
  assert.fail("the append succeeded");
}

/** A session driven message by message, for what the Operations-shaped client cannot send. */
function rawSession(ctx: CallContext) {
  const call = ts.client.grpc.streams.AppendSession(ts.client.metadataFor(ctx));
  const responses: AppendSessionResponse__Output[] = [];
  call.on("data", (response: AppendSessionResponse__Output) => responses.push(response));
  call.on("error", () => undefined);
  const status = new Promise<grpc.StatusObject>((resolve) => call.on("status", resolve));
  return {
    call,
    responses,
    status,
    send: (message: AppendSessionRequest) => call.write(message),
    async next(count: number): Promise<void> {
      while (responses.length < count) await new Promise((resolve) => call.once("data", resolve));
    },
  };
}

function unaryRaw(ctx: CallContext, data: Buffer): Promise<grpc.ServiceError | null> {
  return new Promise((resolve) =>
    ts.client.grpc.streams.Append(
      { stream_id: "raw-unary", events: [{ event_type: "E", data }] },
      ts.client.metadataFor(ctx),
      (error) => resolve(error),
    ),
  );
}

test("many concurrent appends over one session land exactly once, each with its own result", async () => {
  const session = ts.client.openAppendSession(writer);
  const streams = 20;
  const perStream = 50;
  const requests = Array.from({ length: streams * perStream }, (_, i) => ({
    stream_id: `many-${i % streams}`,
    event_type: "Counted",
    data: Payload.fromText(`{"i": ${i}}`),
  }));
  const results = await Promise.all(requests.map((request) => session.append(request)));
  await session.close();

  const positions = new Set<number>();
  results.forEach((result, i) => {
    assert.equal(result.stream_id, `many-${i % streams}`);
    assert.equal(result.count, 1);
    assert.equal(result.first_revision, result.last_revision);
    positions.add(result.position);
  });
  assert.equal(positions.size, results.length, "every append has its own position");
  for (let s = 0; s < streams; s++) {
    const read = await ts.client.read(writer, { stream_id: `many-${s}`, limit: 1000 });
    assert.equal(read.events.length, perStream);
    const seen = read.events
      .map((e) => (JSON.parse(e.data as string) as { i: number }).i)
      .sort((a, b) => a - b);
    assert.deepEqual(
      seen,
      Array.from({ length: perStream }, (_, k) => s + k * streams),
      "each append stored once",
    );
    const bySession = results.filter((r) => r.stream_id === `many-${s}`).map((r) => r.last_revision);
    assert.deepEqual(
      bySession.sort((a, b) => a - b),
      Array.from({ length: perStream }, (_, k) => k),
      "the revisions answered are the stream's revisions",
    );
    for (const event of read.events) {
      const i = (JSON.parse(event.data as string) as { i: number }).i;
      assert.equal(event.data, `{"i": ${i}}`, "Payload stored byte for byte");
      assert.equal(results[i]?.last_revision, event.revision);
      assert.equal(results[i]?.position, event.position);
    }
  }
});

test("the answers of one group commit reach the client in one HTTP/2 DATA frame", async () => {
  // Appends sent in one write are committed in few groups; each group's answers must leave in
  // one write, or the client's next appends split the same way and every split costs an
  // fdatasync of its own (docs/performance-findings.md, "Answers of one group in one write").
  const appends = 20;
  const frames: Buffer[] = [];
  for (let i = 0; i < appends; i++) {
    const message = encodeAppendSessionRequest({
      correlation_id: i + 1,
      append: { stream_id: `one-write-${i}`, events: [{ event_type: "E", data: `{"i":${i}}` }] },
    });
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    frames.push(frame);
  }
  const session = http2.connect(`http://${ts.address}`);
  try {
    const before = (await ts.service.engine.status()).writer!.batches;
    const stream = session.request({
      ":method": "POST",
      ":path": "/ess.v1.Streams/AppendSession",
      "content-type": "application/grpc",
      te: "trailers",
      authorization: `Bearer ${writer.token}`,
    });
    let dataFrames = 0;
    let answerBytes = Buffer.alloc(0);
    const answers = (): number => {
      let count = 0;
      for (let at = 0; at + 5 <= answerBytes.length; at += 5 + answerBytes.readUInt32BE(at + 1)) count++;
      return count;
    };
    const answered = new Promise<void>((resolve, reject) => {
      stream.on("data", (chunk: Buffer) => {
        dataFrames++;
        answerBytes = Buffer.concat([answerBytes, chunk]);
        if (answers() === appends) resolve();
      });
      stream.on("error", reject);
    });
    stream.write(Buffer.concat(frames));
    await answered;
    const groups = (await ts.service.engine.status()).writer!.batches - before;
    stream.end();
    assert.ok(groups < appends, `the appends were committed in ${groups} groups`);
    assert.equal(
      dataFrames,
      groups,
      `${appends} answers of ${groups} group commits came in ${dataFrames} frames`,
    );
  } finally {
    session.close();
  }
});

test("a session append and a unary append of the same input give the same result", async () => {
  const session = ts.client.openAppendSession(writer);
  const one = {
    stream_id: "same-1",
    event_id: "0b0f6f5e-5d0e-4c43-9f0a-2a1f0f6d9e11",
    event_type: "E",
    data: Payload.fromText('{ "a" : 1 }'),
  };
  const batch = {
    stream_id: "same-2",
    events: [
      { event_type: "E", data: { x: 1 }, event_id: "1b0f6f5e-5d0e-4c43-9f0a-2a1f0f6d9e11" },
      {
        event_type: "F",
        data: { y: 2 },
        metadata: { m: true },
        event_id: "2b0f6f5e-5d0e-4c43-9f0a-2a1f0f6d9e11",
      },
    ],
    expected_revision: "no_stream",
  };
  // An event_id already in the stream answers the original result: session first, then unary,
  // and unary first, then session.
  const bySession = await session.append(one);
  assert.deepEqual(await ts.client.append(writer, one), bySession);
  const byUnary = await ts.client.append(writer, batch);
  assert.deepEqual(await session.append(batch), byUnary);
  assert.deepEqual(byUnary, {
    stream_id: "same-2",
    first_revision: 0,
    last_revision: 1,
    position: byUnary.position,
    count: 2,
  });
  await session.close();
});

test("per-append errors come back on their own append, equal to the unary call's, and the session goes on", async () => {
  const other = await ts.userContext("globex-writer", "globex", "writer");
  const session = ts.client.openAppendSession(writer);
  await session.append({ stream_id: "err-1", event_type: "E", data: {} });
  const big = "x".repeat(limits.eventBytesMax);
  const failing: AppendRequest[] = [
    { stream_id: "err-1", event_type: "E", data: {}, expected_revision: 5 },
    { stream_id: "err-1", event_type: "E", data: {}, expected_revision: "no_stream" },
    { stream_id: "err-2", event_type: "E", data: {}, expected_revision: "stream_exists" },
    { stream_id: "err-3", event_type: "E", data: { big } },
    { stream_id: "err-1", tenant: "globex", event_type: "E", data: {} },
    // Refused by the client's own validation before sending, exactly as the unary client does.
    { stream_id: "$bad", event_type: "E", data: {} },
  ];
  const bySession = await Promise.all(failing.map((request) => failure(session.append(request))));
  const byUnary = await Promise.all(failing.map((request) => failure(ts.client.append(writer, request))));
  assert.deepEqual(bySession, byUnary);
  assert.deepEqual(
    bySession.map((f) => f.code),
    [
      "WRONG_EXPECTED_REVISION",
      "WRONG_EXPECTED_REVISION",
      "WRONG_EXPECTED_REVISION",
      "PAYLOAD_TOO_LARGE",
      "PERMISSION_DENIED",
      "INVALID_ARGUMENT",
    ],
  );
  assert.deepEqual(bySession[0]?.details, { stream_id: "err-1", expected: 5, actual: 0 });
  const next = await session.append({ stream_id: "err-1", event_type: "E", data: {}, expected_revision: 0 });
  assert.equal(next.last_revision, 1, "the session went on after the errors");
  await session.close();

  // A reader's session: every append is PERMISSION_DENIED, and the session stays open.
  const readerSession = ts.client.openAppendSession(reader);
  const request = { stream_id: "err-r", event_type: "E", data: {} };
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(
      await failure(readerSession.append(request)),
      await failure(ts.client.append(reader, request)),
    );
  }
  await readerSession.close();

  // Another tenant's writer cannot name acme either; its own tenant works on the same session.
  const globexSession = ts.client.openAppendSession(other);
  await assert.rejects(
    globexSession.append({ stream_id: "err-1", tenant: "acme", event_type: "E", data: {} }),
    code("PERMISSION_DENIED"),
  );
  const own = await globexSession.append({ stream_id: "err-1", event_type: "E", data: {} });
  assert.equal(own.first_revision, 0, "globex's err-1 is its own stream");
  await globexSession.close();
});

test("bytes that are not JSON (INVALID_JSON) or not UTF-8 (INVALID_ARGUMENT) fail their correlation id, as in the unary call", async () => {
  const raw = rawSession(writer);
  const payloads = [Buffer.from("{not json"), Buffer.from([0x7b, 0xff, 0x7d]), Buffer.from('{"ok":true}')];
  payloads.forEach((data, i) =>
    raw.send({
      correlation_id: 100 + i,
      append: { stream_id: "raw-s", events: [{ event_type: "E", data }] },
    }),
  );
  await raw.next(3);
  const byId = new Map(raw.responses.map((r) => [r.correlation_id, r]));
  for (const [i, data] of payloads.slice(0, 2).entries()) {
    const response = byId.get(100 + i);
    const unary = await unaryRaw(writer, data);
    const expected = i === 0 ? "INVALID_JSON" : "INVALID_ARGUMENT";
    assert.equal(response?.outcome, "error");
    assert.equal(response?.error?.code, expected);
    assert.equal(unary?.metadata.get("error-code")[0], expected);
    assert.equal(response?.error?.message, unary?.details);
    assert.deepEqual(response?.error?.details, unary?.metadata.get("error-details-bin")[0]);
  }
  assert.equal(byId.get(102)?.outcome, "result");
  assert.equal(byId.get(102)?.result?.stream_id, "raw-s");
  raw.call.end();
  assert.equal((await raw.status).code, grpc.status.OK);
});

test("a request without an append, or a correlation id past 2^53, ends the session with INVALID_ARGUMENT", async () => {
  for (const message of [
    { correlation_id: 1 },
    { correlation_id: "18446744073709551615", append: { stream_id: "s", events: [] } },
  ]) {
    const raw = rawSession(writer);
    raw.send(message);
    const status = await raw.status;
    assert.equal(status.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(status.metadata.get("error-code")[0], "INVALID_ARGUMENT");
  }
});

test("no token, a bad token or an expired one: the session ends with UNAUTHENTICATED", async () => {
  for (const ctx of [{ token: null }, { token: "not-a-jwt" }]) {
    const session = ts.client.openAppendSession(ctx);
    await assert.rejects(
      session.append({ stream_id: "auth", event_type: "E", data: {} }),
      code("UNAUTHENTICATED"),
    );
    await assert.rejects(
      session.append({ stream_id: "auth", event_type: "E", data: {} }),
      code("UNAUTHENTICATED"),
    );
    const raw = rawSession(ctx);
    const status = await raw.status;
    assert.equal(status.code, grpc.status.UNAUTHENTICATED);
    assert.equal(status.metadata.get("error-code")[0], "UNAUTHENTICATED");
  }

  // A token that expires while the session is open ends it, though no append was sent.
  const [, payload] = (writer.token ?? "").split(".");
  const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as Record<string, unknown>;
  const key = await ts.service.engine.auth.getOrCreateSigningKey(() => {
    throw new Error("the key exists already");
  });
  const exp = Math.floor(Date.now() / 1000) + 2;
  const shortLived = await new SignJWT({ tenant_id: claims.tenant_id, role: claims.role, uca: claims.uca })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("acme-writer")
    .setIssuer("ess")
    .setIssuedAt(exp - 3600)
    .setExpirationTime(exp)
    .sign(new Uint8Array(key));
  const session = ts.client.openAppendSession({ token: shortLived });
  const first = await session.append({ stream_id: "expiring", event_type: "E", data: {} });
  assert.equal(first.first_revision, 0);
  const raw = rawSession({ token: shortLived });
  const status = await raw.status;
  assert.equal(status.code, grpc.status.UNAUTHENTICATED);
  assert.match(status.details, /expired/);
  await assert.rejects(
    session.append({ stream_id: "expiring", event_type: "E", data: {} }),
    code("UNAUTHENTICATED"),
  );
});

test("deleting the session's user ends the session with UNAUTHENTICATED at its next append", async () => {
  const ctx = await ts.userContext("session-leaver", "acme", "writer");
  const raw = rawSession(ctx);
  const append = (i: number) =>
    raw.send({
      correlation_id: i,
      append: { stream_id: "leaver", events: [{ event_type: "E", data: Buffer.from("{}") }] },
    });
  append(0);
  await raw.next(1);
  assert.equal(raw.responses[0]?.outcome, "result");
  await ts.client.deleteUser(ts.admin, { username: "session-leaver" });
  append(1);
  const status = await raw.status;
  assert.equal(status.code, grpc.status.UNAUTHENTICATED);
  assert.equal(status.metadata.get("error-code")[0], "UNAUTHENTICATED");
  // The append that found the user gone is answered as refused; nothing of it was stored.
  assert.deepEqual(
    raw.responses.map((r) => [r.correlation_id, r.outcome]),
    [
      [0, "result"],
      [1, "error"],
    ],
  );
  assert.equal(raw.responses[1]?.error?.code, "UNAUTHENTICATED");
  assert.equal((await ts.client.getInfo(ts.admin, { stream_id: "leaver", tenant: "acme" })).event_count, 1);
});

test("half-close answers every append in flight, then the session ends with OK", async () => {
  const session = ts.client.openAppendSession(writer);
  const pending = Array.from({ length: 300 }, (_, i) =>
    session.append({ stream_id: `half-${i % 3}`, event_type: "E", data: Payload.fromText(`{"i":${i}}`) }),
  );
  const closed = session.close();
  await assert.rejects(
    session.append({ stream_id: "half-0", event_type: "E", data: {} }),
    code("UNAVAILABLE"),
  );
  const results = await Promise.all(pending);
  await closed;
  assert.equal(results.length, 300);
  let stored = 0;
  for (let s = 0; s < 3; s++)
    stored += (await ts.client.read(writer, { stream_id: `half-${s}`, limit: 1000 })).events.length;
  assert.equal(stored, 300);

  // A close right after many appends still goes after all of them.
  const established = ts.client.openAppendSession(writer);
  await established.append({ stream_id: "half-direct", event_type: "E", data: {} });
  const burst = Array.from({ length: 500 }, (_, i) =>
    established.append({ stream_id: "half-direct", event_type: "E", data: Payload.fromText(`{"i":${i}}`) }),
  );
  await established.close();
  assert.equal((await Promise.all(burst)).length, 500);
  assert.equal((await ts.client.read(writer, { stream_id: "half-direct", limit: 1000 })).events.length, 501);

  // The same over the raw call: every request answered before the OK status.
  const raw = rawSession(writer);
  for (let i = 0; i < 50; i++) {
    raw.send({
      correlation_id: i,
      append: { stream_id: "half-raw", events: [{ event_type: "E", data: Buffer.from("{}") }] },
    });
  }
  raw.call.end();
  const status = await raw.status;
  assert.equal(status.code, grpc.status.OK);
  assert.deepEqual(
    raw.responses.map((r) => r.correlation_id).sort((a, b) => a - b),
    Array.from({ length: 50 }, (_, i) => i),
  );
  assert.ok(raw.responses.every((r) => r.outcome === "result"));
});

test("more appends than the in-flight limit are all answered, never more than the limit run at once", async () => {
  const inFlightMax = 4;
  let running = 0;
  let runningMax = 0;
  // The first appends wait until the limit's worth run at once (or 2 s pass, if the server never
  // lets that many run), so that reaching the limit does not depend on how the requests happen
  // to arrive in socket reads.
  let gateOpen = false;
  let openGate = (): void => undefined;
  const gate = new Promise<void>((resolve) => (openGate = resolve)).then(() => (gateOpen = true));
  const operations: Operations = {
    ...ts.service.operations,
    append: async (ctx, request) => {
      running++;
      runningMax = Math.max(runningMax, running);
      if (running === inFlightMax) openGate();
      if (!gateOpen) await Promise.race([gate, new Promise((resolve) => setTimeout(resolve, 2000))]);
      try {
        return await ts.service.operations.append(ctx, request);
      } finally {
        running--;
      }
    },
  };
  const server = await startRpcServer({
    operations,
    address: { host: "127.0.0.1", port: 0 },
    logger: createLogger({}, 100),
    sessionInFlightMax: inFlightMax,
  });
  const client = createRpcClient({ address: `127.0.0.1:${server.address.port}` });
  try {
    const session = client.openAppendSession(writer);
    const results: AppendResult[] = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        session.append({ stream_id: "pressed", event_type: "E", data: Payload.fromText(`{"i":${i}}`) }),
      ),
    );
    await session.close();
    assert.equal(new Set(results.map((r) => r.last_revision)).size, 400);
    assert.equal((await client.read(writer, { stream_id: "pressed", limit: 1000 })).events.length, 400);
    assert.ok(runningMax <= inFlightMax, `${runningMax} appends ran at once`);
    assert.equal(runningMax, inFlightMax, "the limit was reached");
  } finally {
    client.close();
    await server.close(5000);
  }
});

test("a client that stops reading its answers holds the server back, and gets every answer once it reads again", async () => {
  const server = await startRpcServer({
    operations: ts.service.operations,
    address: { host: "127.0.0.1", port: 0 },
    logger: createLogger({}, 100),
    sessionInFlightMax: 8,
  });
  // A deadline, so that a server which never holds back fails this test instead of hanging it.
  const client = createRpcClient({ address: `127.0.0.1:${server.address.port}`, deadlineMs: 10_000 });
  const stored = async () => (await client.getInfo(writer, { stream_id: "unread" })).event_count;
  try {
    const call = client.grpc.streams.AppendSession(client.metadataFor(writer));
    call.on("error", () => undefined);
    const status = new Promise<grpc.StatusObject>((resolve) => call.on("status", resolve));
    const answered: number[] = [];
    const onAnswer = (response: AppendSessionResponse__Output) => {
      assert.equal(response.outcome, "result");
      answered.push(response.correlation_id);
    };
    const append = (i: number) =>
      call.write({
        correlation_id: i,
        append: { stream_id: "unread", events: [{ event_type: "E", data: Buffer.from(`{"i":${i}}`) }] },
      });
    // The client reads its first answer, then stops reading: the answers fill its stream buffer
    // and HTTP/2's flow-control window, the server's writes of answers stop completing, and with
    // them the appends it takes.
    call.on("data", onAnswer);
    append(0);
    while (answered.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    call.pause();
    const sent = 5000;
    for (let i = 1; i < sent; i++) append(i);
    // Wait until the stream stops growing (the server has stopped taking appends).
    const now = await steadyCount(stored);
    assert.ok(
      now < sent,
      `the server took all ${sent} appends from a client that stopped reading its answers`,
    );

    call.end();
    call.resume();
    assert.equal((await status).code, grpc.status.OK);
    assert.deepEqual(
      answered.sort((a, b) => a - b),
      Array.from({ length: sent }, (_, i) => i),
    );
    assert.equal(await stored(), sent, "each append stored exactly once");
  } finally {
    client.close();
    await server.close(5000);
  }
});

test("stopping the service answers the appends in flight, fails the rest with UNAVAILABLE, and stores exactly the answered ones", async () => {
  const other = await startTestService();
  const session = other.client.openAppendSession(other.admin);
  const count = 2000;
  const outcomes = Array.from({ length: count }, (_, i) =>
    session
      .append({ stream_id: `stop-${i % 10}`, event_type: "E", data: Payload.fromText(`{"i":${i}}`) })
      .then(
        () => "stored" as const,
        (error: unknown) => {
          assert.ok(error instanceof EssError && error.code === "UNAVAILABLE", String(error));
          return "refused" as const;
        },
      ),
  );
  await Promise.race(outcomes);
  await other.service.stop();
  const settled = await Promise.all(outcomes);
  const stored = new Set(settled.flatMap((outcome, i) => (outcome === "stored" ? [i] : [])));
  assert.ok(stored.size > 0, "some appends were answered");

  // Reopen the same data directory: exactly the answered appends are there.
  const again = await startTestService({ SERVICE_DATA_DIR: other.dataDir });
  try {
    const found = new Set<number>();
    for (let s = 0; s < 10; s++) {
      try {
        const read = await again.client.read(again.admin, { stream_id: `stop-${s}`, limit: 1000 });
        for (const e of read.events) found.add((JSON.parse(e.data as string) as { i: number }).i);
      } catch (error) {
        if (!(error instanceof EssError && error.code === "STREAM_NOT_FOUND")) throw error;
      }
    }
    assert.deepEqual(
      [...found].sort((a, b) => a - b),
      [...stored].sort((a, b) => a - b),
    );
  } finally {
    await again.close();
    await other.close();
  }
});

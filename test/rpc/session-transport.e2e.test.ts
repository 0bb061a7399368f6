// The client's lean AppendSession transport (src/rpc/session-transport.ts: the session
// straight over node:http2) against the real server, beside the grpc-js path it replaces for a
// plaintext host:port (a client given explicit credentials still takes that path): the same
// results, errors and endings. Against a bare node:http2 server that misbehaves on purpose:
// answers cut at any byte, broken answers, a dropped connection; and what close() and an idle
// session do to the process.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { EssError } from "../../src/errors.js";
import { limits } from "../../src/limits.js";
import { JsonText, type CallContext } from "../../src/operations/contract.js";
import { createRpcClient, type RpcClient } from "../../src/rpc/client.js";
import {
  decodeAppendSessionRequest,
  encodeAppendSessionResponse,
  type AppendSessionAnswer,
} from "../../src/rpc/session-codec.js";
import { grpcJsClient, startTestService, type TestService } from "./service-harness.js";
import { bareServer } from "./bare-http2-server.js";

let ts: TestService;
/** The same service through grpc-js (explicit credentials keep a client off the lean transport). */
let viaGrpcJs: RpcClient;
let writer: CallContext;

before(async () => {
  ts = await startTestService();
  viaGrpcJs = grpcJsClient(ts.address);
  writer = await ts.userContext("session-writer", "acme", "writer");
});

after(async () => {
  viaGrpcJs.close();
  await ts.close();
});

/** The append's EssError (fails the test when it succeeds or fails otherwise). */
async function essError(call: Promise<unknown>): Promise<EssError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof EssError, `an EssError, got ${String(error)}`);
    return error;
  }
  assert.fail("the append succeeded");
}

function described(error: EssError) {
  return { code: error.code, message: error.message, details: error.details };
}

const event = (i: number) => ({ event_type: "E", data: new JsonText(`{"i":${i}}`) });

test("a session answers the same over the lean transport and through grpc-js", async () => {
  const outcomes = [];
  // The same stream names in a tenant of each transport's own, so that the answers compare whole.
  for (const [name, client] of [
    ["lean", ts.client],
    ["grpc-js", viaGrpcJs],
  ] as const) {
    const ctx = await ts.userContext(`same-${name}`, `same-${name}`, "writer");
    const session = client.openAppendSession(ctx);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => session.append({ stream_id: `same-${i % 4}`, ...event(i) })),
    );
    const conflict = await essError(
      session.append({ stream_id: "same-0", expected_revision: 3, ...event(-1) }),
    );
    const tooLarge = await essError(
      session.append({ stream_id: "same-0", event_type: "E", data: { big: "x".repeat(2_000_000) } }),
    );
    // The session goes on after failed appends.
    const after = await session.append({ stream_id: "same-0", expected_revision: 49, ...event(200) });
    await session.close();
    const closed = await essError(session.append({ stream_id: "same-0", ...event(201) }));
    const refused = client.openAppendSession({ token: "not-a-jwt" });
    const unauthenticated = await essError(refused.append({ stream_id: "same-0", ...event(202) }));
    await refused.close();

    assert.equal(new Set(results.map((r) => `${r.stream_id}/${r.last_revision}`)).size, 200);
    for (let s = 0; s < 4; s++) {
      const read = await ts.client.read(ctx, { stream_id: `same-${s}`, limit: 100 });
      assert.equal(read.events.length, s === 0 ? 51 : 50, `${name}: every answered append stored once`);
    }
    outcomes.push({
      after: { first_revision: after.first_revision, count: after.count },
      conflict: described(conflict),
      tooLarge: described(tooLarge),
      closed: described(closed),
      unauthenticated: described(unauthenticated),
    });
  }
  const [lean, viaGrpc] = outcomes;
  assert.deepEqual(lean, viaGrpc);
  assert.equal(lean?.conflict.code, "WRONG_EXPECTED_REVISION");
  assert.equal(lean?.tooLarge.code, "PAYLOAD_TOO_LARGE");
  assert.equal(lean?.closed.code, "UNAVAILABLE");
  assert.equal(lean?.unauthenticated.code, "UNAUTHENTICATED");
  assert.deepEqual(lean?.after, { first_revision: 50, count: 1 });
});

/**
 * A bare server's session handler: reads the requests as they come, and hands each batch of
 * decoded requests to `answer`, which writes what it likes. Ends with OK after the client's
 * half-close.
 */
function sessionServer(answer: (stream: http2.ServerHttp2Stream, ids: number[], streams: string[]) => void) {
  return (stream: http2.ServerHttp2Stream): void => {
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    let buffered = Buffer.alloc(0);
    stream.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const ids: number[] = [];
      const streams: string[] = [];
      while (buffered.length >= 5 && buffered.length >= 5 + buffered.readUInt32BE(1)) {
        const length = buffered.readUInt32BE(1);
        const request = decodeAppendSessionRequest(buffered.subarray(5, 5 + length));
        ids.push(request.correlation_id);
        streams.push(request.append?.stream_id ?? "");
        buffered = buffered.subarray(5 + length);
      }
      if (ids.length > 0) answer(stream, ids, streams);
    });
    stream.on("end", () => stream.end());
  };
}

function framed(answer: AppendSessionAnswer): Buffer {
  const message = encodeAppendSessionResponse(answer);
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}

const resultFor = (id: number, stream: string) => ({
  correlation_id: id,
  result: { stream_id: stream, first_revision: id, last_revision: id, position: 1000 + id, count: 1 },
});

test("answers cut at any byte, or several in one DATA frame, are read whole; requests go in order", async () => {
  const received: number[] = [];
  const server = await bareServer(
    sessionServer((stream, ids, streams) => {
      received.push(...ids);
      // In reverse order, all of them in one buffer, written 1 to 7 bytes at a time.
      const bytes = Buffer.concat(ids.map((id, k) => framed(resultFor(id, streams[k] ?? ""))).reverse());
      for (let at = 0, step = 1; at < bytes.length; at += step, step = (step % 7) + 1)
        stream.write(bytes.subarray(at, at + step));
    }),
  );
  const client = createRpcClient({ address: server.address });
  try {
    const session = client.openAppendSession({ token: "t" });
    const first = await session.append({ stream_id: "one", ...event(0) });
    assert.deepEqual(first, resultFor(1, "one").result);
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => session.append({ stream_id: `s-${i}`, ...event(i) })),
    );
    results.forEach((result, i) => assert.deepEqual(result, resultFor(i + 2, `s-${i}`).result));
    await session.close();
    assert.deepEqual(
      received,
      Array.from({ length: 301 }, (_, i) => i + 1),
      "the server read the requests in the order they were sent",
    );
  } finally {
    client.close();
    await server.close();
  }
});

test("a broken answer ends the session with INTERNAL; the appends waiting and later ones fail", async () => {
  const broken: Buffer[] = [
    Buffer.from([1, 0, 0, 0, 1, 8]), // compressed, never negotiated
    Buffer.from([0, 0x7f, 0xff, 0xff, 0xff]), // a length no append answer has
    Buffer.from([0, 0, 0, 0, 2, 0x0a, 0x05]), // a field that runs past the message
  ];
  for (const bytes of broken) {
    let cancelled: number | undefined;
    const server = await bareServer((stream) => {
      stream.on("close", () => (cancelled = stream.rstCode));
      sessionServer((s) => s.write(bytes))(stream);
    });
    const client = createRpcClient({ address: server.address });
    try {
      const session = client.openAppendSession({ token: "t" });
      const waiting = [0, 1, 2].map((i) => essError(session.append({ stream_id: "b", ...event(i) })));
      for (const error of await Promise.all(waiting)) assert.equal(error.code, "INTERNAL", error.message);
      assert.equal((await essError(session.append({ stream_id: "b", ...event(3) }))).code, "INTERNAL");
      await session.close();
      for (let i = 0; i < 100 && cancelled === undefined; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(cancelled, http2.constants.NGHTTP2_CANCEL, "the client cancelled the stream");
    } finally {
      client.close();
      await server.close();
    }
  }
});

test("no server, or a connection dropped mid-session: the appends fail with UNAVAILABLE", async () => {
  const gone = await bareServer(() => undefined);
  const address = gone.address;
  await gone.close();
  const nobody = createRpcClient({ address });
  try {
    const session = nobody.openAppendSession({ token: "t" });
    assert.equal((await essError(session.append({ stream_id: "n", ...event(0) }))).code, "UNAVAILABLE");
    await session.close();
  } finally {
    nobody.close();
  }

  const server = await bareServer(
    sessionServer((stream, ids, streams) => {
      // The first append is answered; the second one's connection is cut.
      if (ids[0] === 1) stream.write(framed(resultFor(1, streams[0] ?? "")));
      else server.dropConnections();
    }),
  );
  const client = createRpcClient({ address: server.address });
  try {
    const session = client.openAppendSession({ token: "t" });
    await session.append({ stream_id: "d", ...event(0) });
    const errors = await Promise.all(
      [1, 2].map((i) => essError(session.append({ stream_id: "d", ...event(i) }))),
    );
    assert.deepEqual(
      errors.map((e) => e.code),
      ["UNAVAILABLE", "UNAVAILABLE"],
    );
    await session.close();
  } finally {
    client.close();
    await server.close();
  }
});

test("close() ends the client's open sessions; an idle session never closed lets the process exit", async () => {
  // A server that never answers: the appends wait until the client is closed.
  const server = await bareServer(sessionServer(() => undefined));
  const client = createRpcClient({ address: server.address });
  try {
    const session = client.openAppendSession({ token: "t" });
    const waiting = essError(session.append({ stream_id: "w", ...event(0) }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.close();
    assert.equal((await waiting).code, "UNAVAILABLE");
    await session.close();
  } finally {
    await server.close();
  }

  // A child opens a session, gets one answer, and never closes anything: it must exit by itself.
  const clientModule = fileURLToPath(new URL("../../src/rpc/client.js", import.meta.url));
  const contractModule = fileURLToPath(new URL("../../src/operations/contract.js", import.meta.url));
  const script =
    `const { createRpcClient } = await import(${JSON.stringify(clientModule)});` +
    `const { JsonText } = await import(${JSON.stringify(contractModule)});` +
    `const c = createRpcClient({ address: ${JSON.stringify(ts.address)} });` +
    `const s = c.openAppendSession({ token: ${JSON.stringify(writer.token)} });` +
    `const r = await s.append({ stream_id: "idle-child", event_type: "E", data: new JsonText("{}") });` +
    `process.stdout.write(String(r.count));`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearTimeout(killer);
  assert.equal(code, 0, "the child exited by itself");
  assert.equal(out, "1");
});

test("a read session answer announced past limits.rpcClientAnswerBytesMax ends the session before it is buffered", async () => {
  let cancelled: (code: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => (cancelled = resolve));
  const server = await bareServer((stream) => {
    stream.resume();
    stream.on("close", () => cancelled(stream.rstCode));
    stream.respond({ ":status": 200, "content-type": "application/grpc" });
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(limits.rpcClientAnswerBytesMax + 1, 1);
    // The first MiB of the announced answer; the rest never comes.
    stream.write(Buffer.concat([prefix, Buffer.alloc(1024 * 1024)]));
  });
  const client = createRpcClient({ address: server.address });
  try {
    const session = client.openReadSession({ token: "t" });
    assert.equal((await essError(session.read({ stream_id: "s", limit: 1 }))).code, "INTERNAL");
    assert.equal(await closed, http2.constants.NGHTTP2_CANCEL, "the client cancelled the stream");
    await session.close();
  } finally {
    client.close();
    await server.close();
  }
});

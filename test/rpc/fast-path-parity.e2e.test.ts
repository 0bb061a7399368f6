// The server answers Append, Read and ReadAll on its unary fast path (src/rpc/fast-carrier/unary-call.ts)
// and leaves compressed calls to grpc-js. Two stock grpc-js clients of one service, one that
// compresses its requests (grpc-js path) and one that does not (fast path), must get the same
// answers: results, statuses, trailers, and the same refusal of a request that does not decode.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { proto } from "../../src/rpc/proto.js";
import type { StreamsClient } from "../../src/rpc/generated/ess/v1/Streams.js";
import { startTestService, type TestService } from "./service-harness.js";
import { requestIdMark, withRequestIdMarked } from "../helpers/request-id.js";

let ts: TestService;
let plain: StreamsClient;
let compressed: StreamsClient;

/** grpc-js's compression algorithm number for gzip (compression-algorithms.ts). */
const gzip = 2;

before(async () => {
  ts = await startTestService();
  plain = new proto.ess.v1.Streams(ts.address, grpc.credentials.createInsecure());
  compressed = new proto.ess.v1.Streams(ts.address, grpc.credentials.createInsecure(), {
    "grpc.default_compression_algorithm": gzip,
  });
});

after(async () => {
  plain.close();
  compressed.close();
  await ts.close();
});

type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; code: number; details: string; trailers: Record<string, unknown> };

function metadataFor(token: string | null): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (token !== null) metadata.set("authorization", `Bearer ${token}`);
  return metadata;
}

/** One unary call's outcome, with the trailers a failure carried (grpc-js's and HTTP's own keys left out). */
function outcome(
  start: (callback: (error: grpc.ServiceError | null, value?: unknown) => void) => void,
): Promise<Outcome> {
  return new Promise((resolve) => {
    start((error, value) => {
      if (error === null) {
        resolve({ ok: true, value });
        return;
      }
      const trailers = error.metadata.getMap();
      delete trailers["content-type"];
      delete trailers["grpc-accept-encoding"];
      delete trailers["grpc-encoding"];
      // node:http2 dates every response: two calls a second apart differ there and nowhere else.
      delete trailers.date;
      resolve({
        ok: false,
        code: error.code,
        details: error.details,
        trailers: withRequestIdMarked(trailers),
      });
    });
  });
}

function append(client: StreamsClient, token: string | null, request: object): Promise<Outcome> {
  return outcome((callback) => client.Append(request, metadataFor(token), callback));
}
function read(client: StreamsClient, token: string | null, request: object): Promise<Outcome> {
  return outcome((callback) => client.Read(request, metadataFor(token), callback));
}
function readAll(client: StreamsClient, token: string | null, request: object): Promise<Outcome> {
  return outcome((callback) => client.ReadAll(request, metadataFor(token), callback));
}

function event(n: number): object {
  return { event_type: "Parity", data: Buffer.from(JSON.stringify({ n, text: "ünïcødé €" })) };
}

test("appends through either path land alike and answer alike", async () => {
  const token = ts.admin.token;
  const first = await append(plain, token, { stream_id: "parity-a", events: [event(1), event(2)] });
  const second = await append(compressed, token, { stream_id: "parity-b", events: [event(1), event(2)] });
  assert.equal(first.ok, true, JSON.stringify(first));
  assert.equal(second.ok, true, JSON.stringify(second));
  const { position: _p1, stream_id: _s1, ...firstRest } = (first as { value: Record<string, unknown> }).value;
  const {
    position: _p2,
    stream_id: _s2,
    ...secondRest
  } = (second as { value: Record<string, unknown> }).value;
  assert.deepEqual(firstRest, secondRest);
  assert.deepEqual(firstRest, { first_revision: 0, last_revision: 1, count: 2 });
});

test("reads and readAlls through either path answer the same pages", async () => {
  const token = ts.admin.token;
  await append(plain, token, {
    stream_id: "parity-read",
    events: Array.from({ length: 30 }, (_, i) => event(i)),
  });
  for (const request of [
    { stream_id: "parity-read", limit: 10 },
    { stream_id: "parity-read", limit: 1000, from: 25 },
    { stream_id: "parity-read", limit: 7, direction: "backward" },
  ]) {
    const viaFastPath = await read(plain, token, request);
    assert.equal(viaFastPath.ok, true, JSON.stringify(viaFastPath));
    assert.deepEqual(viaFastPath, await read(compressed, token, request));
  }
  const all = { from_position: 0, limit: 50 };
  const allViaFastPath = await readAll(plain, token, all);
  assert.equal(allViaFastPath.ok, true);
  assert.deepEqual(allViaFastPath, await readAll(compressed, token, all));
});

test("failures through either path carry the same status, message and error trailers", async () => {
  const token = ts.admin.token;
  await append(plain, token, { stream_id: "parity-err", events: [event(0)] });
  const cases: [string, (client: StreamsClient) => Promise<Outcome>][] = [
    [
      "conflict",
      (c) => append(c, token, { stream_id: "parity-err", events: [event(1)], expected_revision: "5" }),
    ],
    ["not found, non-ASCII id", (c) => read(c, token, { stream_id: "parity-ßtraße-€", limit: 10 })],
    ["no token", (c) => readAll(c, null, { from_position: 0, limit: 1 })],
    ["bad token", (c) => read(c, "not-a-token", { stream_id: "parity-err", limit: 1 })],
    [
      "invalid JSON",
      (c) =>
        append(c, token, { stream_id: "parity-err", events: [{ event_type: "E", data: Buffer.from("{") }] }),
    ],
  ];
  for (const [name, run] of cases) {
    const viaFastPath = await run(plain);
    assert.equal(viaFastPath.ok, false, `${name}: fails`);
    assert.ok(
      (viaFastPath as { trailers: Record<string, unknown> }).trailers["error-code"] !== undefined,
      `${name}: carries error-code`,
    );
    assert.deepEqual(viaFastPath, await run(compressed), name);
  }
});

test("a request that does not decode is refused alike: INVALID_ARGUMENT, and nothing is written", async () => {
  const token = ts.admin.token;
  // Field 1 (stream_id) announced as 100 bytes long, with 2 present.
  const garbage = Buffer.from([0x0a, 100, 0x61, 0x62]);
  const rawClient = (client: StreamsClient) =>
    outcome((callback) =>
      client.makeUnaryRequest(
        "/ess.v1.Streams/Append",
        (b: Buffer) => b,
        (b: Buffer) => b,
        garbage,
        metadataFor(token),
        callback,
      ),
    );
  const viaFastPath = await rawClient(plain);
  assert.deepEqual(viaFastPath, await rawClient(compressed));
  assert.deepEqual(viaFastPath, {
    ok: false,
    code: grpc.status.INVALID_ARGUMENT,
    details: "malformed protobuf message: length past the end of the message",
    trailers: {
      "error-code": "INVALID_ARGUMENT",
      "error-details-bin": Buffer.from("{}"),
      "x-request-id": requestIdMark,
    },
  });
  const after = await readAll(plain, token, { from_position: 0, limit: 1000 });
  const streams = new Set(
    ((after as { value: { events: { stream_id: string }[] } }).value.events ?? []).map((e) => e.stream_id),
  );
  assert.ok(![...streams].some((id) => id.startsWith("ab")), "no stream was written");
});

test("a stock client's 41-day deadline holds on both paths (grpc-js alone fails it at once)", async () => {
  // grpc-js sends it as 3542400S and, serving the call itself, truncates it to 32 bits: negative.
  const deadline = Date.now() + 41 * 86_400_000;
  const watcher = new proto.grpc.health.v1.Health(ts.address, grpc.credentials.createInsecure());
  try {
    const call = watcher.Watch({ service: "" }, new grpc.Metadata(), { deadline });
    const seen: string[] = [];
    const first = new Promise((resolve) => {
      call.on("data", (answer: { status: string }) => resolve(seen.push(answer.status)));
      call.on("error", (error: grpc.ServiceError) => resolve(seen.push(`error ${error.code}`)));
    });
    await first;
    // grpc-js's truncated deadline fires within a millisecond or two of the call's start.
    await new Promise((resolve) => setTimeout(resolve, 300));
    call.cancel();
    assert.deepEqual(seen, ["SERVING"], "the watch stays open");
  } finally {
    watcher.close();
  }
  const appended = await outcome((callback) =>
    plain.Append(
      { stream_id: "parity-deadline", events: [event(1)] },
      metadataFor(ts.admin.token),
      { deadline },
      callback,
    ),
  );
  assert.equal(appended.ok, true, JSON.stringify(appended));
});

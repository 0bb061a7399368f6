// What one client connection can make the gRPC server hold (docs/rpc.md, "Per-connection
// bounds"), against the whole service over real sockets: the server advertises
// limits.rpcConnectionStreamsMax; a raw node:http2 client that sends many unary Reads or ReadAlls
// of ~1 MB pages and takes no answer makes the server run only about
// limits.rpcConnectionUnwrittenReadBytesMax of them (without the bound: every one, ~1 GB for
// 1,000 reads), gets every answer once it reads, has a waiting read's deadline kept and its
// cancelled reads dropped; clients that read their answers (two grpc-js clients) keep
// working with twice as many calls at once as the limit.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { limits } from "../../src/limits.js";
import type { CallContext } from "../../src/operations/contract.js";
import type { RpcClient } from "../../src/client/rpc-client.js";
import { encodeReadAllRequest, encodeReadRequest } from "../../src/rpc/codec/read-requests.js";
import { decodeReadResult } from "../../src/rpc/codec/read-results.js";
import {
  appendHeavyPage,
  grpcJsClient,
  heavyPageBytes,
  heavyPageEvents,
  startTestService,
  steadyCount,
  type TestService,
} from "./service-harness.js";

const tenant = "bounds";
let ts: TestService;
/** A second client of the service (service-harness.ts, grpcJsClient). */
let viaGrpcJs: RpcClient;
let reader: CallContext;

// Pages of about 1 MB (service-harness.ts, appendHeavyPage): each read of the stream, and each
// ReadAll of the tenant from position 0, answers all heavyPageEvents events.

before(async () => {
  ts = await startTestService();
  viaGrpcJs = grpcJsClient(ts.address);
  const writer = await ts.userContext("bounds-writer", tenant, "writer");
  reader = await ts.userContext("bounds-reader", tenant, "reader");
  await appendHeavyPage(ts.client, writer, "heavy");
});

after(async () => {
  viaGrpcJs.close();
  await ts.close();
});

/** The tenant's reads so far, asked over a connection of its own (grpc-js's). */
async function readsRun(): Promise<number> {
  return (await viaGrpcJs.getTenant(ts.admin, { tenant_id: tenant })).reads_total;
}

function framed(message: Buffer): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}

const heavyRead = framed(encodeReadRequest({ stream_id: "heavy", limit: heavyPageEvents }));
const heavyReadAll = framed(encodeReadAllRequest({ tenant, from_position: 0, limit: heavyPageEvents }));

interface RawCall {
  stream: http2.ClientHttp2Stream;
  /** The answer's bytes, its grpc-status and the stream's RST_STREAM code, once it closes. */
  done: Promise<{ bytes: Buffer; status: string | undefined; rstCode: number | undefined }>;
}

/** One unary call on a raw node:http2 session, paused: it takes no answer until resumed. */
function rawCall(
  session: http2.ClientHttp2Session,
  method: "Read" | "ReadAll",
  body: Buffer,
  headers: http2.OutgoingHttpHeaders = {},
): RawCall {
  const stream = session.request({
    ":method": "POST",
    ":path": `/ess.v1.Streams/${method}`,
    "content-type": "application/grpc",
    te: "trailers",
    authorization: `Bearer ${reader.token ?? ""}`,
    ...headers,
  });
  stream.pause();
  const chunks: Buffer[] = [];
  let status: string | undefined;
  stream.on("response", (headers) => (status ??= headers["grpc-status"] as string | undefined));
  stream.on(
    "trailers",
    (trailers: http2.IncomingHttpHeaders) => (status = trailers["grpc-status"] as string | undefined),
  );
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Awaited<RawCall["done"]>>((resolve) => {
    stream.on("error", () => undefined);
    stream.on("close", () => resolve({ bytes: Buffer.concat(chunks), status, rstCode: stream.rstCode }));
  });
  stream.end(body);
  return { stream, done };
}

async function rawSession(options: http2.ClientSessionOptions = {}): Promise<http2.ClientHttp2Session> {
  const session = http2.connect(`http://${ts.address}`, options);
  session.on("error", () => undefined);
  await new Promise<void>((resolve) => session.once("remoteSettings", () => resolve()));
  return session;
}

/** Reads the server can run for a connection that takes no answers: its budget's worth of pages. */
const readsWithinBudget = Math.ceil(limits.rpcConnectionUnwrittenReadBytesMax / heavyPageBytes);

test("the server lets a connection have rpcConnectionStreamsMax calls open at once", async () => {
  const session = await rawSession();
  try {
    assert.equal(session.remoteSettings.maxConcurrentStreams, limits.rpcConnectionStreamsMax);
  } finally {
    session.destroy();
  }
});

test(
  "a client that sends many unary reads of 1 MB pages and takes no answer makes the server run only its budget's worth, and gets every answer once it reads",
  { timeout: 60_000 },
  async () => {
    const session = await rawSession();
    const before = await readsRun();
    const sent = 2 * limits.rpcConnectionStreamsMax;
    const calls = Array.from({ length: sent }, () => rawCall(session, "Read", heavyRead));
    const ran = (await steadyCount(readsRun)) - before;
    // Without the bounds every read runs (each answer held by HTTP/2: ~1 MB a read); with the
    // stream limit alone, rpcConnectionStreamsMax of them.
    assert.ok(ran >= readsWithinBudget - 1, `${ran} reads ran before the budget held the rest back`);
    assert.ok(ran <= readsWithinBudget + 1, `${ran} of ${sent} reads ran for a client that takes no answers`);

    // Another connection is not held back by this one's budget.
    const other = await ts.client.read(reader, { stream_id: "heavy", limit: heavyPageEvents });
    assert.equal(other.events.length, heavyPageEvents);

    for (const call of calls) call.stream.resume();
    const answers = await Promise.all(calls.map((call) => call.done));
    const page = answers[0]!.bytes;
    assert.equal(decodeReadResult(page.subarray(5)).events.length, heavyPageEvents);
    for (const answer of answers) {
      assert.equal(answer.status, "0");
      assert.ok(answer.bytes.equals(page), "every answer is the whole page");
    }
    assert.equal((await readsRun()) - before, sent + 1, "each read ran once");
    session.close();
  },
);

test(
  "ReadAlls are held to the same budget; a read waiting for it fails at its deadline, and waiting reads the client cancels are dropped",
  { timeout: 60_000 },
  async () => {
    const session = await rawSession();
    const before = await readsRun();
    const calls = Array.from({ length: limits.rpcConnectionStreamsMax - 1 }, () =>
      rawCall(session, "ReadAll", heavyReadAll),
    );
    const ran = (await steadyCount(readsRun)) - before;
    assert.ok(ran >= readsWithinBudget - 1 && ran <= readsWithinBudget + 1, `${ran} ReadAlls ran`);

    // One more read with a deadline of 200 ms, waiting behind the others: the client takes its status.
    const late = rawCall(session, "Read", heavyRead, { "grpc-timeout": "200m" });
    late.stream.resume();
    assert.equal((await late.done).status, String(grpc.status.DEADLINE_EXCEEDED));

    for (const call of calls) call.stream.close(http2.constants.NGHTTP2_CANCEL);
    await Promise.all(calls.map((call) => call.done));
    // The cancelled answers give their bytes back and let waiting reads go; one of those may run
    // before the server has read its own RST_STREAM. The rest never run.
    const after = (await steadyCount(readsRun)) - before;
    assert.ok(
      after <= ran + 2,
      `${after - ran} of ${calls.length - ran} waiting reads ran after they were cancelled`,
    );
    session.close();
  },
);

test(
  "clients that read their answers keep working with twice rpcConnectionStreamsMax calls at once on one connection",
  { timeout: 60_000 },
  async () => {
    const calls = 2 * limits.rpcConnectionStreamsMax;
    for (const client of [ts.client, viaGrpcJs]) {
      // Small pages: the stream limit is what they meet.
      const small = await Promise.all(
        Array.from({ length: calls }, (_, i) =>
          i % 2 === 0
            ? client.read(reader, { stream_id: "heavy", limit: 1 })
            : client.readAll(reader, { tenant, from_position: 0, limit: 1 }),
        ),
      );
      assert.ok(small.every((page) => page.events.length === 1));
      // 1 MB pages, twice the budget's worth at once: reads wait for the budget and go on as the
      // client takes answers.
      const heavy = await Promise.all(
        Array.from({ length: 2 * readsWithinBudget }, () =>
          client.read(reader, { stream_id: "heavy", limit: heavyPageEvents }),
        ),
      );
      assert.ok(heavy.every((page) => page.events.length === heavyPageEvents));
    }
  },
);

test(
  "a client that opens more streams than the limit before the server's SETTINGS arrive has the extra ones refused (REFUSED_STREAM), not failed",
  { timeout: 30_000 },
  async () => {
    const small = framed(encodeReadRequest({ stream_id: "heavy", limit: 1 }));
    // Node assumes 100 streams until SETTINGS arrive; this client assumes more and sends at once.
    const session = http2.connect(`http://${ts.address}`, { peerMaxConcurrentStreams: 1000 });
    session.on("error", () => undefined);
    const calls = Array.from({ length: 2 * limits.rpcConnectionStreamsMax }, () =>
      rawCall(session, "Read", small),
    );
    for (const call of calls) call.stream.resume();
    const ended = await Promise.all(calls.map((call) => call.done));
    for (const call of ended) {
      const refused = call.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM && call.status === undefined;
      assert.ok(call.status === "0" || refused, `status ${call.status}, RST_STREAM ${call.rstCode}`);
    }
    assert.ok(ended.filter((call) => call.status === "0").length >= limits.rpcConnectionStreamsMax);
    assert.ok(!session.destroyed, "the connection stays up");
    session.close();
  },
);

// gRPC Streams.Subscribe callers that stop reading, against the real log engine and a real gRPC
// server: raw node:http2 clients send a valid Subscribe request on a stream of 40 MiB and then
// never read. The server holds at most its subscriber buffer (plus one message) for each of them,
// and after the stall timeout resets each stream (RST_STREAM CANCEL) and frees everything it
// held: the subscriptions, grpc-js's and node:http2's queues. Memory is measured after a full
// garbage collection; this file runs in a process of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import * as http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v8 from "node:v8";
import * as vm from "node:vm";
import { limits } from "../../src/limits.js";
import { proto } from "../../src/rpc/proto.js";
import { openLogEngine } from "../../src/storage/log/index.js";
import { startHarness, startSubscribeServer } from "./harness.js";
import { eventually } from "../helpers/eventually.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** Bytes the server holds outside the JavaScript heap, plus the heap, after a full collection. */
function heldBytes(): number {
  gc();
  const usage = process.memoryUsage();
  return usage.arrayBuffers + usage.heapUsed;
}

const MiB = 1024 * 1024;
const eventDataBytes = 256 * 1024;
const eventsStored = 160;
const subscribers = 40;
/** Long enough for every subscriber to fill its buffer on a busy machine before the first reset. */
const stallMsMax = 8000;
/** The test's raw clients take this much per stream before their HTTP/2 window is full. */
const clientWindowBytes = 16 * 1024;

/** A Subscribe request from revision 0, framed for the wire. */
function subscribeRequest(streamId: string): Buffer {
  const message = proto.ess.v1.Streams.service.Subscribe.requestSerialize({ stream_id: streamId, from: "0" });
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}

async function rawSession(port: number): Promise<http2.ClientHttp2Session> {
  const session = http2.connect(`http://127.0.0.1:${port}`, {
    settings: { initialWindowSize: clientWindowBytes },
  });
  session.on("error", () => undefined);
  await new Promise((resolve) => session.once("remoteSettings", resolve));
  return session;
}

/** A Subscribe call on a raw HTTP/2 session that sends its request and never reads. */
function pausedSubscriber(session: http2.ClientHttp2Session, token: string, request: Buffer) {
  const stream = session.request({
    ":method": "POST",
    ":path": "/ess.v1.Streams/Subscribe",
    "content-type": "application/grpc",
    te: "trailers",
    authorization: `Bearer ${token}`,
  });
  stream.pause();
  const opened = Date.now();
  let status: unknown;
  stream.on("trailers", (trailers: http2.IncomingHttpHeaders) => (status = trailers["grpc-status"]));
  stream.on("error", () => undefined);
  const closed = new Promise<{ rstCode: number | undefined; afterMs: number; status: unknown }>((resolve) =>
    stream.on("close", () => resolve({ rstCode: stream.rstCode, afterMs: Date.now() - opened, status })),
  );
  stream.end(request);
  return { stream, closed };
}

test("paused gRPC subscribers hold at most the subscriber buffer each, and stalled ones are reset and freed", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-substall-"));
  // The smallest block cache (four 64 KiB blocks): what the engine caches for reads is not
  // what this test measures, and a full 64 MiB cache would hide in the figure or swamp it.
  const engine = await openLogEngine({ dataDir, blockCacheBytes: 1 });
  const h = await startHarness({ engine });
  const { rpc, handler } = await startSubscribeServer(h, { stallMsMax });
  const sessions: http2.ClientHttp2Session[] = [];
  try {
    const pad = "x".repeat(eventDataBytes);
    for (let i = 0; i < eventsStored; i += 10) await h.append("acme", "big", 10, () => `{"pad":"${pad}"}`);
    // The engine's block cache takes the first pages as every subscriber reads them: read them once now.
    await engine.readStream({
      tenant_id: "acme",
      stream_id: "big",
      from_revision: 0,
      limit: 100,
      direction: "forward",
    });
    const before = heldBytes();

    const request = subscribeRequest("big");
    const token = h.token();
    const calls: ReturnType<typeof pausedSubscriber>[] = [];
    for (let s = 0; s < 2; s++) {
      const session = await rawSession(rpc.address.port);
      sessions.push(session);
      for (let i = 0; i < subscribers / 2; i++) calls.push(pausedSubscriber(session, token, request));
    }

    // Every call fills its buffer past the bound and pauses (its subscription stops reading).
    const bound = limits.subscriberBufferBytesMax;
    await eventually(
      () => handler.stats.calls === subscribers && handler.stats.bufferedBytes > subscribers * bound,
      () => `every subscriber to reach its buffer bound (now ${JSON.stringify(handler.stats)})`,
      stallMsMax - 1000,
    );
    // At most the bound plus the one message (an event of eventDataBytes) that went past it.
    const perCallMax = bound + eventDataBytes + 1024;
    // What the server holds, measured: the calls' bounds, the clients' windows (the clients are
    // in this process too) and 16 MiB for everything else (block cache, grpc-js, node:http2).
    // Without the bound: 16 messages queued in grpc-js per call, and each call's last page.
    const allowance = subscribers * clientWindowBytes + 16 * MiB;
    // A page read that was in flight when its call reached the bound is let go when it lands; on
    // a loaded machine that takes more than a moment, so the figure may settle for up to 2 s
    // (never past a reset: every call must still be open when it is taken).
    let grown = heldBytes() - before;
    const settleBy = Date.now() + 2000;
    while (
      grown > subscribers * perCallMax + allowance &&
      Date.now() < settleBy &&
      handler.stats.calls === subscribers
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      grown = heldBytes() - before;
    }
    const stats = handler.stats;
    assert.equal(stats.calls, subscribers, "no call was reset before the stall timeout");
    assert.ok(stats.bufferedBytes <= subscribers * perCallMax, `buffered ${stats.bufferedBytes} bytes`);
    assert.ok(
      grown <= subscribers * perCallMax + allowance,
      `${subscribers} paused subscribers grew the heap and buffers by ${(grown / MiB).toFixed(1)} MiB`,
    );

    // After the stall timeout each stream is reset, without a status (it would wait behind the data).
    const ends: Awaited<(typeof calls)[number]["closed"]>[] = [];
    for (const call of calls) void call.closed.then((end) => ends.push(end));
    await eventually(() => ends.length === subscribers, "every stream to be reset", stallMsMax + 10_000);
    for (const end of ends) {
      assert.equal(end.rstCode, http2.constants.NGHTTP2_CANCEL);
      assert.equal(end.status, undefined);
      assert.ok(end.afterMs >= stallMsMax, `reset after ${end.afterMs} ms`);
    }
    assert.deepEqual(handler.stats, { calls: 0, bufferedBytes: 0 });
    assert.equal(h.hub.size, 0, "no subscription left");
    // And what they held is freed at once, not when the connection closes.
    await eventually(() => heldBytes() - before < 8 * MiB, "the calls' buffers to be freed", 5000);
  } finally {
    for (const session of sessions) session.destroy();
    await rpc.close(1000);
    await h.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("a paused gRPC subscriber whose call ends with a status it does not read is reset after the stall timeout", async () => {
  const h = await startHarness();
  const stallMs = 1500;
  const { rpc, handler } = await startSubscribeServer(h, { stallMsMax: stallMs });
  const session = await rawSession(rpc.address.port);
  try {
    const pad = "x".repeat(64 * 1024);
    await h.append("acme", "expiring", 40, () => `{"pad":"${pad}"}`);
    // The token expires before the stall timeout: UNAUTHENTICATED is queued behind the events.
    const call = pausedSubscriber(session, h.token({ ttlMs: 300 }), subscribeRequest("expiring"));
    await eventually(() => handler.stats.calls === 0, "the call to end as the token expires", 5000);
    const end = await Promise.race([
      call.closed,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), stallMs + 5000)),
    ]);
    assert.ok(end !== null, "the stream was reset");
    assert.equal(end.rstCode, http2.constants.NGHTTP2_CANCEL);
    assert.equal(end.status, undefined);
    assert.ok(end.afterMs >= stallMs, `reset after ${end.afterMs} ms`);
    assert.equal(h.hub.size, 0);
  } finally {
    session.destroy();
    await rpc.close(1000);
    await h.close();
  }
});

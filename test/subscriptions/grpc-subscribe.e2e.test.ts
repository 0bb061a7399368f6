// gRPC Streams.Subscribe over a real gRPC server and client on 127.0.0.1: the same subscription
// rules as the WebSocket interface (history, caught_up, live; auth; tenancy; slow clients).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { createRpcClient, type RpcClient } from "../../src/client/rpc-client.js";
import { fromServiceError } from "../../src/rpc/error-mapping.js";
import type { SubscribeRequest } from "../../src/rpc/generated/ess/v1/SubscribeRequest.js";
import type { SubscribeResponse__Output } from "../../src/rpc/generated/ess/v1/SubscribeResponse.js";
import type { RpcServer } from "../../src/rpc/server.js";
import { startHarness, startSubscribeServer, type Harness } from "./harness.js";

interface Rig {
  h: Harness;
  rpc: RpcServer;
  client: RpcClient;
  close(): Promise<void>;
}

async function startRig(stallMsMax?: number): Promise<Rig> {
  const h = await startHarness();
  const { rpc } = await startSubscribeServer(h, { stallMsMax });
  const client = createRpcClient({ address: `127.0.0.1:${rpc.address.port}` });
  return {
    h,
    rpc,
    client,
    async close() {
      client.close();
      await rpc.close(1000);
      await h.close();
    },
  };
}

class Subscriber {
  readonly messages: SubscribeResponse__Output[] = [];
  status: grpc.StatusObject | null = null;
  error: grpc.ServiceError | null = null;
  readonly call: grpc.ClientReadableStream<SubscribeResponse__Output>;

  constructor(rig: Rig, request: SubscribeRequest, token: string | null) {
    this.call = rig.client.grpc.streams.Subscribe(request, rig.client.metadataFor({ token }));
    this.call.on("data", (message: SubscribeResponse__Output) => this.messages.push(message));
    this.call.on("error", (error: grpc.ServiceError) => (this.error = error));
    this.call.on("status", (status: grpc.StatusObject) => (this.status = status));
  }

  get revisions(): number[] {
    return this.messages.filter((m) => m.message === "event").map((m) => Number(m.event!.revision));
  }

  get caughtUpAt(): number {
    return this.messages.findIndex((m) => m.message === "caught_up");
  }

  async until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async ended(timeoutMs?: number): Promise<grpc.ServiceError> {
    await this.until(() => this.error !== null, "the call to end", timeoutMs);
    return this.error!;
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

test("gRPC Subscribe sends history, caught_up, then live events with the stored JSON bytes", async () => {
  const rig = await startRig();
  try {
    await rig.h.append("acme", "orders-1", 3, (i) => `{"n": ${i}}`);
    const s = new Subscriber(rig, { stream_id: "orders-1", from: "1" }, rig.h.token());
    await s.until(() => s.caughtUpAt >= 0, "caught_up");
    await rig.h.append("acme", "orders-1", 2);
    await s.until(() => s.revisions.length === 4, "four events");
    assert.deepEqual(s.revisions, [1, 2, 3, 4]);
    assert.equal(s.caughtUpAt, 2);
    assert.equal(s.messages[0]!.event!.data.toString(), `{"n": 1}`);
    s.call.cancel();
    const fromEnd = new Subscriber(rig, { stream_id: "orders-1", from: "end" }, rig.h.token());
    await fromEnd.until(() => fromEnd.caughtUpAt === 0, "caught_up");
    await rig.h.append("acme", "orders-1", 1);
    await fromEnd.until(() => fromEnd.revisions.length === 1, "one live event");
    assert.deepEqual(fromEnd.revisions, [5]);
    fromEnd.call.cancel();
  } finally {
    await rig.close();
  }
});

test("gRPC Subscribe refuses bad input with INVALID_ARGUMENT and a missing token with UNAUTHENTICATED", async () => {
  const rig = await startRig();
  try {
    const bad = new Subscriber(rig, { stream_id: "s", from: "soon" }, rig.h.token());
    const badError = await bad.ended();
    assert.equal(badError.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(fromServiceError(badError).code, "INVALID_ARGUMENT");
    const anonymous = new Subscriber(rig, { stream_id: "s" }, null);
    const anonymousError = await anonymous.ended();
    assert.equal(anonymousError.code, grpc.status.UNAUTHENTICATED);
    assert.equal(fromServiceError(anonymousError).code, "UNAUTHENTICATED");
    const other = new Subscriber(rig, { stream_id: "s", tenant: "globex" }, rig.h.token());
    assert.equal(fromServiceError(await other.ended()).code, "PERMISSION_DENIED");
  } finally {
    await rig.close();
  }
});

test("gRPC Subscribe to $all gives the caller's tenant only, and an expired token ends the call", async () => {
  const rig = await startRig();
  try {
    await rig.h.append("globex", "x", 2);
    await rig.h.append("acme", "a", 1);
    const s = new Subscriber(rig, { stream_id: "$all" }, rig.h.token({ ttlMs: 600 }));
    await s.until(() => s.caughtUpAt >= 0, "caught_up");
    await rig.h.append("globex", "x", 1);
    await rig.h.append("acme", "b", 1);
    await s.until(() => s.revisions.length === 2, "two events");
    const streams = s.messages.filter((m) => m.message === "event").map((m) => m.event!.stream_id);
    assert.deepEqual(streams, ["a", "b"]);
    const error = await s.ended();
    assert.equal(fromServiceError(error).code, "UNAUTHENTICATED");
  } finally {
    await rig.close();
  }
});

test("gRPC subscribers racing appends each get every event once, in order", async () => {
  const rig = await startRig();
  try {
    await rig.h.append("acme", "race", 200);
    const writer = (async () => {
      for (let i = 0; i < 40; i++) await rig.h.append("acme", "race", 5);
    })();
    const subscribers = Array.from(
      { length: 10 },
      () => new Subscriber(rig, { stream_id: "race", from: "0" }, rig.h.token()),
    );
    await writer;
    for (const s of subscribers) {
      await s.until(() => s.revisions.length >= 400, "400 events");
      assert.deepEqual(s.revisions, range(0, 400));
      s.call.cancel();
    }
  } finally {
    await rig.close();
  }
});

test("a gRPC subscriber that stops reading does not hold up another and its stream is reset as stalled", async () => {
  const rig = await startRig(700);
  try {
    const payload = `{"pad":"${"x".repeat(8000)}"}`;
    const slow = new Subscriber(rig, { stream_id: "big" }, rig.h.token());
    const fast = new Subscriber(rig, { stream_id: "big" }, rig.h.token());
    await slow.until(() => slow.caughtUpAt >= 0, "caught_up");
    slow.call.pause();
    for (let i = 0; i < 20; i++) await rig.h.append("acme", "big", 100, () => payload);
    await fast.until(() => fast.revisions.length === 2000, "2000 events", 30_000);
    assert.deepEqual(fast.revisions, range(0, 2000));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    slow.call.resume();
    // RST_STREAM CANCEL: grpc-js reports CANCELLED, which the ess client reads as UNAVAILABLE.
    const error = await slow.ended(30_000);
    assert.equal(error.code, grpc.status.CANCELLED);
    assert.equal(fromServiceError(error).code, "UNAVAILABLE");
    assert.ok(slow.revisions.length < 2000);
    assert.deepEqual(slow.revisions, range(0, slow.revisions.length));
    fast.call.cancel();
  } finally {
    await rig.close();
  }
});

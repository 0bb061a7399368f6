// Filtered $all subscriptions over real sockets (WebSocket and gRPC Streams.Subscribe) on the log
// engine: only matching events, in order, without gaps or duplicates; checkpoints during a long
// unmatched catch-up, before caught_up, and after a run of unmatched live events; resuming from a
// checkpoint; bad filters refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as grpc from "@grpc/grpc-js";
import { limits } from "../../src/limits.js";
import { createRpcClient } from "../../src/client/rpc-client.js";
import type { SubscribeResponse__Output } from "../../src/rpc/generated/ess/v1/SubscribeResponse.js";
import { openLogEngine } from "../../src/storage/log/index.js";
import { startHarness, startSubscribeServer, type Harness } from "./harness.js";
import { TestClient, type ServerMessage } from "./ws-client.js";
import { eventually } from "../helpers/eventually.js";

const every = limits.subscriptionCheckpointSkipped;

async function withLogHarness(body: (h: Harness) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-filtered-"));
  const h = await startHarness({ engine: await openLogEngine({ dataDir }) });
  try {
    await body(h);
  } finally {
    await h.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Appends `count` unmatched events (noise-*), at most appendEventsMax a call. */
async function noise(h: Harness, count: number): Promise<void> {
  for (let done = 0; done < count; done += limits.appendEventsMax) {
    await h.append("acme", `noise-${done % 3}`, Math.min(limits.appendEventsMax, count - done));
  }
}

async function lastPosition(h: Harness): Promise<number> {
  return (await h.engine.status()).last_position;
}

/** Each event moves the resume point past it; each checkpoint must move it on, never back. */
function assertProgress(messages: ServerMessage[] | { kind: string; position: number }[]): void {
  let at = -1;
  for (const m of messages as {
    type?: string;
    kind?: string;
    position?: number;
    event?: { position: number };
  }[]) {
    const kind = m.type ?? m.kind;
    if (kind === "event") {
      const p = m.event?.position ?? m.position!;
      assert.ok(p + 1 > at, "events come in order, past the last checkpoint");
      at = p + 1;
    } else if (kind === "checkpoint") {
      assert.ok(m.position! > at, `a checkpoint moves on (${m.position} after ${at})`);
      at = m.position!;
    }
  }
}

test("a filtered $all WebSocket subscription sends only matches, checkpoints through unmatched runs, and resumes from one", async () => {
  await withLogHarness(async (h) => {
    await noise(h, 100);
    await h.append("acme", "match-1", 1);
    await noise(h, 2 * every + 300);
    await h.append("acme", "match-2", 1);
    await h.append("globex", "match-3", 1);
    await noise(h, 50);
    const end = (await lastPosition(h)) + 1;
    const client = await TestClient.open(h.port, h.token());
    client.subscribe("s1", "$all", 0, { stream_prefix: ["match-"] });
    await client.untilMessage("caught_up", "s1");
    assert.deepEqual(
      client.eventsOf("s1").map((e) => e.stream_id),
      ["match-1", "match-2"],
    );
    const history = client.messages.filter((m) => m.id === "s1");
    assertProgress(history);
    const checkpoints = client.of("checkpoint", "s1");
    // Two runs of `every` unmatched events in catch-up, then the end of history.
    assert.ok(checkpoints.length >= 3, JSON.stringify(checkpoints));
    const beforeCaughtUp = history[history.findIndex((m) => m.type === "caught_up") - 1]!;
    assert.equal(beforeCaughtUp.type, "checkpoint");
    assert.equal(beforeCaughtUp.position, end, "history ends at the log's end");

    // Live: a few unmatched events send no checkpoint; a match comes at once.
    await noise(h, 5);
    await h.append("acme", "match-4", 1);
    await client.untilEvents("s1", 3);
    const caughtUpAt = client.messages.findIndex((m) => m.type === "caught_up");
    assert.deepEqual(
      client.messages.slice(caughtUpAt + 1).map((m) => m.type),
      ["event"],
    );
    // A long unmatched live run is reported.
    await noise(h, every + 200);
    await client.until(() => client.of("checkpoint", "s1").length > checkpoints.length, "a live checkpoint");
    assertProgress(client.messages.filter((m) => m.id === "s1"));

    // Resuming from the first checkpoint gives what came after it, nothing before.
    const resumed = await TestClient.open(h.port, h.token());
    resumed.subscribe("r", "$all", checkpoints[0]!.position, { stream_prefix: ["match-"] });
    await resumed.untilMessage("caught_up", "r");
    assert.deepEqual(
      resumed.eventsOf("r").map((e) => e.stream_id),
      ["match-2", "match-4"],
    );
    client.close();
    resumed.close();
  });
});

test("filters combine on a subscription, and a bad filter is refused with the field named", async () => {
  await withLogHarness(async (h) => {
    await h.append("acme", "orders-1", 3);
    await h.append("acme", "users-1", 2);
    const client = await TestClient.open(h.port, h.token());
    client.subscribe("f", "$all", 0, { stream_regex: "^(orders|users)-1$", event_type_prefix: ["Test"] });
    client.subscribe("none", "$all", 0, { event_type_regex: "^Other$" });
    await client.untilMessage("caught_up", "f");
    await client.untilMessage("caught_up", "none");
    assert.equal(client.eventsOf("f").length, 5);
    assert.equal(client.eventsOf("none").length, 0);
    for (const [id, extra, stream, field] of [
      ["b1", { stream_regex: "(a" }, "$all", "stream_regex"],
      ["b2", { event_type_prefix: "Test" }, "$all", "event_type_prefix"],
      ["b3", { stream_prefix: ["x"] }, "orders-1", "stream_prefix"],
    ] as const) {
      client.subscribe(id, stream, 0, extra);
      await client.untilMessage("error", id);
      const error = client.of("error", id)[0]!.error!;
      assert.equal(error.code, "INVALID_ARGUMENT");
      assert.equal(error.details?.field, field, id);
    }
    client.close();
  });
});

test("gRPC Subscribe takes the same filters and sends checkpoint messages", async () => {
  await withLogHarness(async (h) => {
    await h.append("acme", "match-1", 2);
    await noise(h, every + 10);
    const end = (await lastPosition(h)) + 1;
    const { rpc } = await startSubscribeServer(h);
    const client = createRpcClient({ address: `127.0.0.1:${rpc.address.port}` });
    try {
      const messages: SubscribeResponse__Output[] = [];
      const call = client.grpc.streams.Subscribe(
        { stream_id: "$all", from: "0", stream_prefix: ["match-"] },
        client.metadataFor({ token: h.token() }),
      );
      call.on("data", (m: SubscribeResponse__Output) => messages.push(m));
      call.on("error", () => undefined);
      await eventually(() => messages.some((m) => m.message === "caught_up"), "caught_up");
      const kinds = messages.map((m) => m.message);
      assert.deepEqual(kinds.slice(0, 2), ["event", "event"]);
      assert.equal(kinds.at(-1), "caught_up");
      assert.equal(kinds.at(-2), "checkpoint");
      assert.equal(Number(messages.at(-2)!.checkpoint!.position), end);
      assertProgress(
        messages.map((m) =>
          m.message === "event"
            ? { kind: "event", position: Number(m.event!.position) }
            : { kind: m.message ?? "", position: Number(m.checkpoint?.position ?? -1) },
        ),
      );
      // A filter on a stream is refused.
      const refused = client.grpc.streams.Subscribe(
        { stream_id: "match-1", stream_prefix: ["m"] },
        client.metadataFor({ token: h.token() }),
      );
      const error = await new Promise<grpc.ServiceError>((resolve) => refused.on("error", resolve));
      assert.equal(error.code, 3);
      call.cancel();
    } finally {
      client.close();
      await rpc.close(1000);
    }
  });
});

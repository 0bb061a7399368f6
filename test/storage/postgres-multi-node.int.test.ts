// Several `ess serve` processes on one PostgreSQL database: two real child processes started at
// once (both migrate, both try to create the first admin), events appended on one node read and
// subscribed to live (WebSocket and gRPC) on the other, and tokens and users shared by both.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { createRpcClient, type RpcClient } from "../../src/client/rpc-client.js";
import type { SubscribeResponse__Output } from "../../src/rpc/generated/ess/v1/SubscribeResponse.js";
import { TestClient } from "../subscriptions/ws-client.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";
import { eventually } from "../helpers/eventually.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const password = "multi-node-admin-password";

interface Node {
  child: ChildProcess;
  rpc: string;
  wsPort: number;
  rest: string;
  client: RpcClient;
  exited: Promise<number | null>;
}

async function startNode(url: string): Promise<Node> {
  const child = spawn(process.execPath, [cli, "serve"], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SERVICE_STORAGE: "postgres",
      SERVICE_POSTGRES_URL: url,
      SERVICE_RPC_ADDRESS: "127.0.0.1:0",
      SERVICE_WS_ENABLED: "true",
      SERVICE_WS_ADDRESS: "127.0.0.1:0",
      SERVICE_REST_ENABLED: "true",
      SERVICE_REST_ADDRESS: "127.0.0.1:0",
      SERVICE_ADMIN_PASSWORD: password,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const started = await new Promise<{ rpc_address: string; ws_address: string; rest_address: string }>(
    (resolve, reject) => {
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        for (const line of stderr.split("\n")) {
          if (!line.startsWith("{")) continue;
          const entry = JSON.parse(line) as { msg: string; rpc_address?: string; ws_address?: string };
          if (entry.msg === "service started") resolve(entry as never);
        }
      });
      void exited.then((code) => reject(new Error(`ess serve exited with ${code}: ${stderr}`)));
    },
  );
  const wsPort = Number(started.ws_address.split(":").pop());
  return {
    child,
    rpc: started.rpc_address,
    wsPort,
    rest: started.rest_address,
    client: createRpcClient({ address: started.rpc_address, deadlineMs: 20_000 }),
    exited,
  };
}

async function stopNode(node: Node | undefined): Promise<void> {
  if (!node) return;
  node.client.close();
  node.child.kill("SIGTERM");
  await node.exited;
}

describe("several ess serve processes on one postgres database", () => {
  let db: TestDatabase;
  let nodeA: Node;
  let nodeB: Node;

  before(async () => {
    db = await createTestDatabase();
    // Started at once: both run the migrations and both try to create the first admin.
    [nodeA, nodeB] = await Promise.all([startNode(db.url), startNode(db.url)]);
  });

  after(async () => {
    await stopNode(nodeA);
    await stopNode(nodeB);
    await db?.drop();
  });

  test("a token from one node works on the other, and users are shared", async () => {
    const login = await nodeA.client.login({ token: null }, { username: "admin", password });
    const admin = { token: login.access_token };
    await nodeB.client.createUser(admin, {
      username: "writer-1",
      password: "writer-1-password",
      tenant_id: "acme",
      role: "writer",
    });
    const writer = await nodeA.client.login(
      { token: null },
      { username: "writer-1", password: "writer-1-password" },
    );
    assert.equal(writer.tenant_id, "acme");
    const users = await nodeB.client.listUsers(admin, {});
    assert.deepEqual(users.users.map((u) => u.username).sort(), ["admin", "writer-1"]);
    const rest = await fetch(`http://${nodeB.rest}/v1/streams`, {
      headers: { authorization: `Bearer ${writer.access_token}` },
    });
    assert.equal(rest.status, 200);
  });

  test("events appended on one node reach live subscribers on the other, every one and in order", async () => {
    const login = await nodeA.client.login({ token: null }, { username: "admin", password });
    const token = login.access_token;
    const ctx = { token };
    const append = (node: Node, n: number) =>
      node.client.append(ctx, {
        stream_id: "orders-1",
        events: Array.from({ length: n }, (_, i) => ({ event_type: "OrderPlaced", data: { i } })),
      });
    await append(nodeA, 5); // history before anyone subscribes

    const ws = await TestClient.open(nodeB.wsPort, token);
    ws.subscribe("s1", "orders-1", 0);
    ws.subscribe("all", "$all", 0);
    const grpcMessages: SubscribeResponse__Output[] = [];
    const call = nodeB.client.grpc.streams.Subscribe(
      { stream_id: "orders-1", from: "0" },
      nodeB.client.metadataFor(ctx),
    );
    call.on("data", (m: SubscribeResponse__Output) => grpcMessages.push(m));
    call.on("error", () => undefined);
    try {
      await ws.untilMessage("caught_up", "s1");
      await eventually(() => grpcMessages.some((m) => m.message === "caught_up"), "gRPC caught_up");

      // Live: appended on node A, one at a time and concurrently in batches.
      for (let i = 0; i < 10; i++) await append(nodeA, 1);
      await Promise.all([append(nodeA, 3), append(nodeA, 2), append(nodeA, 4)]);
      const total = 5 + 10 + 9;

      await ws.untilEvents("s1", total, 15_000);
      await ws.untilEvents("all", total, 15_000);
      await eventually(
        () => grpcMessages.filter((m) => m.message === "event").length >= total,
        `${total} gRPC events`,
      );
      const range = Array.from({ length: total }, (_, i) => i);
      assert.deepEqual(
        ws.eventsOf("s1").map((e) => e.revision),
        range,
      );
      assert.deepEqual(
        grpcMessages.filter((m) => m.message === "event").map((m) => Number(m.event?.revision)),
        range,
      );
      const positions = ws.eventsOf("all").map((e) => e.position);
      assert.deepEqual(
        positions,
        [...positions].sort((a, b) => a - b),
      );
      assert.equal(new Set(positions).size, total);

      const read = await nodeB.client.read(ctx, { stream_id: "orders-1", limit: 100 });
      assert.deepEqual(
        read.events.map((e) => e.revision),
        range,
      );
      const status = await nodeB.client.getStorageStatus(ctx);
      assert.equal(status.engine, "postgres");
      assert.ok(status.events_total >= total);
    } finally {
      ws.close();
      call.cancel();
    }
  });
});

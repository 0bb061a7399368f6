// Subscriptions in the whole service as `ess serve` starts it: real tokens from Auth.Login,
// appends through the RPC server, the WebSocket listener enabled by SERVICE_WS_ENABLED.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as grpc from "@grpc/grpc-js";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import { startService, type Service } from "../../src/service.js";
import { createRpcClient, type RpcClient } from "../../src/client/rpc-client.js";
import { fromServiceError } from "../../src/rpc/error-mapping.js";
import type { SubscribeResponse__Output } from "../../src/rpc/generated/ess/v1/SubscribeResponse.js";
import { TestClient } from "./ws-client.js";

interface Running {
  service: Service;
  client: RpcClient;
  wsPort: number;
  adminToken: string;
  stop(): Promise<void>;
}

async function serve(settings: Record<string, string> = {}): Promise<Running> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-ws-service-"));
  const config = loadConfig({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_RPC_ADDRESS: "127.0.0.1:0",
    SERVICE_WS_ENABLED: "true",
    SERVICE_WS_ADDRESS: "127.0.0.1:0",
    SERVICE_ADMIN_PASSWORD: "admin-password",
    ...settings,
  });
  const service = await startService(config, { logger: createLogger({}, 100), stopGraceMs: 2000 });
  const ws = service.listeners.find((l) => l.name === "ws");
  assert.ok(ws, "SERVICE_WS_ENABLED starts the WebSocket listener");
  const client = createRpcClient({ address: `127.0.0.1:${service.rpcAddress.port}` });
  const login = await client.login({ token: null }, { username: "admin", password: "admin-password" });
  let stopped = false;
  return {
    service,
    client,
    wsPort: ws.address.port,
    adminToken: login.access_token,
    async stop() {
      if (stopped) return;
      stopped = true;
      client.close();
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

test("the WebSocket listener is off unless SERVICE_WS_ENABLED is true", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-ws-service-"));
  const config = loadConfig({ SERVICE_DATA_DIR: dataDir, SERVICE_RPC_ADDRESS: "127.0.0.1:0" });
  const service = await startService(config, {
    logger: createLogger({}, 100),
    printAdminPassword: () => undefined,
  });
  try {
    assert.equal(
      service.listeners.find((l) => l.name === "ws"),
      undefined,
    );
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("a reader's login token subscribes over WebSocket and gRPC to what a writer appends over gRPC", async () => {
  const r = await serve();
  try {
    const admin = { token: r.adminToken };
    await r.client.createUser(admin, {
      username: "wendy",
      password: "wendy-password",
      tenant_id: "acme",
      role: "writer",
    });
    await r.client.createUser(admin, {
      username: "rita",
      password: "rita-password",
      tenant_id: "acme",
      role: "reader",
    });
    const writer = await r.client.login({ token: null }, { username: "wendy", password: "wendy-password" });
    const reader = await r.client.login({ token: null }, { username: "rita", password: "rita-password" });
    const append = (n: number) =>
      r.client.append(
        { token: writer.access_token },
        { stream_id: "orders-1", event_type: "Placed", data: { n } },
      );
    await append(0);

    const ws = await TestClient.open(r.wsPort, reader.access_token);
    ws.subscribe("s1", "orders-1", 0);
    ws.subscribe("all", "$all", 0);
    const call = r.client.grpc.streams.Subscribe(
      { stream_id: "orders-1" },
      r.client.metadataFor({ token: reader.access_token }),
    );
    const viaGrpc: SubscribeResponse__Output[] = [];
    call.on("data", (m: SubscribeResponse__Output) => viaGrpc.push(m));
    call.on("error", () => undefined);
    await ws.untilMessage("caught_up", "s1");
    await append(1);
    await append(2);
    await ws.untilEvents("s1", 3);
    await ws.untilEvents("all", 3);
    assert.deepEqual(
      ws.eventsOf("s1").map((e) => e.data),
      [{ n: 0 }, { n: 1 }, { n: 2 }],
    );
    const deadline = Date.now() + 5000;
    while (viaGrpc.filter((m) => m.message === "event").length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(
      viaGrpc.filter((m) => m.message === "event").map((m) => m.event!.data.toString()),
      ['{"n":0}', '{"n":1}', '{"n":2}'],
    );
    call.cancel();
    ws.close();
  } finally {
    await r.stop();
  }
});

test("with a short SERVICE_TOKEN_TTL, subscriptions end with UNAUTHENTICATED when the token expires", async () => {
  // Tokens carry whole seconds (exp = issue second + TTL): 3 s leaves at least 2 s to subscribe.
  const r = await serve({ SERVICE_TOKEN_TTL: "3" });
  try {
    const ws = await TestClient.open(r.wsPort);
    ws.send({ type: "auth", token: r.adminToken });
    ws.subscribe("s1", "anything", 0);
    const call = r.client.grpc.streams.Subscribe(
      { stream_id: "$all" },
      r.client.metadataFor({ token: r.adminToken }),
    );
    let grpcError: grpc.ServiceError | null = null;
    call.on("data", () => undefined);
    call.on("error", (error: grpc.ServiceError) => (grpcError = error));
    await ws.untilMessage("caught_up", "s1");
    const closed = await ws.untilClosed(10_000);
    assert.equal(closed.code, 4401);
    assert.equal(ws.of("error", "s1")[0]!.error!.code, "UNAUTHENTICATED");
    const deadline = Date.now() + 10_000;
    while (grpcError === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(grpcError !== null, "the gRPC call ended");
    assert.equal(fromServiceError(grpcError).code, "UNAUTHENTICATED");
  } finally {
    await r.stop();
  }
});

test("stopping the service ends subscriptions with UNAVAILABLE and closes connections with 1001", async () => {
  const r = await serve();
  const ws = await TestClient.open(r.wsPort, r.adminToken);
  ws.subscribe("s1", "s", 0);
  await ws.untilMessage("caught_up", "s1");
  await r.stop();
  const closed = await ws.untilClosed(5000);
  assert.equal(closed.code, 1001);
  assert.equal(ws.of("error", "s1")[0]!.error!.code, "UNAVAILABLE");
});

// A byte of one stored event flipped on disk between two runs of the whole service: every
// interface answers reads that need it with DATA_CORRUPTED (REST 500, gRPC DATA_LOSS on each
// gRPC path, a WebSocket error message), serves everything else as before, says "degraded" in
// Health.Check, and logs the damaged record once with its segment file and offset.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import type { CallContext } from "../../src/operations/contract.js";
import { Payload } from "../../src/contract/payload.js";
import { createRpcClient, type RpcClient } from "../../src/client/rpc-client.js";
import type { SubscribeResponse__Output } from "../../src/rpc/generated/ess/v1/SubscribeResponse.js";
import type { ReadResult__Output } from "../../src/rpc/generated/ess/v1/ReadResult.js";
import { startService, type Service } from "../../src/service.js";
import type { EngineOptions } from "../../src/storage/engine.js";
import { captureLogger } from "../storage/log/helpers.js";
import { TestClient } from "../subscriptions/ws-client.js";
import { grpcJsClient } from "./service-harness.js";
import { rejectsWith } from "../../src/storage/conformance/harness.js";

const password = "admin-password-1";
const damagedLine = "a stored record is damaged and is not served; reads that need it answer DATA_CORRUPTED";

async function serve(dataDir: string, engineOptions: EngineOptions = {}): Promise<Service> {
  const config = loadConfig({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_RPC_ADDRESS: "127.0.0.1:0",
    SERVICE_REST_ENABLED: "true",
    SERVICE_REST_ADDRESS: "127.0.0.1:0",
    SERVICE_WS_ENABLED: "true",
    SERVICE_WS_ADDRESS: "127.0.0.1:0",
    SERVICE_ADMIN_PASSWORD: password,
  });
  return startService(config, { logger: createLogger({}, 100), stopGraceMs: 2000, engineOptions });
}

function port(service: Service, name: "rest" | "ws"): number {
  const listener = service.listeners.find((l) => l.name === name);
  assert.ok(listener);
  return listener.address.port;
}

/** Flips one bit of the first byte of `marker` in whichever segment file holds it. */
function damage(dataDir: string, marker: string): { segment: string; at: number } {
  for (const name of fs.readdirSync(dataDir).filter((n) => /^seg-\d+\.log$/.test(n))) {
    const file = join(dataDir, name);
    const bytes = fs.readFileSync(file);
    const at = bytes.indexOf(marker);
    if (at < 0) continue;
    bytes[at]! ^= 0x02;
    fs.writeFileSync(file, bytes);
    return { segment: name, at };
  }
  throw new Error(`${marker} is not in the log`);
}

async function login(client: RpcClient): Promise<CallContext> {
  const result = await client.login({ token: null }, { username: "admin", password });
  return { token: result.access_token };
}

test("a damaged event answers DATA_CORRUPTED on REST, every gRPC path and WebSocket; the rest is served; health degraded; logged once", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-damaged-"));
  try {
    // First run: write, then stop cleanly.
    let service = await serve(dataDir);
    let client = createRpcClient({ address: `127.0.0.1:${service.rpcAddress.port}` });
    let admin = await login(client);
    const put = (stream: string, data: object) =>
      client.append(admin, {
        stream_id: stream,
        events: [{ event_type: "T", data: Payload.fromText(JSON.stringify(data)) }],
      });
    for (let i = 0; i < 3; i++) await put("hurt", { i });
    const damaged = await put("hurt", { i: 3, marker: "FLIP-THIS-BYTE" });
    for (let i = 4; i < 6; i++) await put("hurt", { i });
    for (let i = 0; i < 5; i++) await put("other", { i });
    assert.equal((await client.check()).status, "ok");
    client.close();
    await service.stop();

    const { segment, at } = damage(dataDir, "FLIP-THIS-BYTE");

    // Second run on the damaged directory.
    const { lines, logger } = captureLogger();
    service = await serve(dataDir, { logger } as EngineOptions);
    try {
      client = createRpcClient({ address: `127.0.0.1:${service.rpcAddress.port}` });
      const viaGrpcJs = grpcJsClient(`127.0.0.1:${service.rpcAddress.port}`);
      admin = await login(client);
      const expectedDetails = { stream_id: "hurt", revision: 3, position: damaged.position };

      // gRPC: unary reads through two clients, the read session, $all.
      const e1 = await rejectsWith(
        client.read(admin, { stream_id: "hurt", from: 0, limit: 10 }),
        "DATA_CORRUPTED",
      );
      assert.deepEqual(e1.details, expectedDetails);
      await rejectsWith(viaGrpcJs.read(admin, { stream_id: "hurt", from: 0, limit: 10 }), "DATA_CORRUPTED");
      await rejectsWith(
        viaGrpcJs.read(admin, { stream_id: "hurt", direction: "backward", limit: 10 }),
        "DATA_CORRUPTED",
      );
      await rejectsWith(client.readAll(admin, { from_position: 0, limit: 100 }), "DATA_CORRUPTED");
      const session = client.openReadSession(admin);
      await rejectsWith(session.read({ stream_id: "hurt", from: 0, limit: 10 }), "DATA_CORRUPTED");
      assert.equal((await session.read({ stream_id: "other", from: 0, limit: 10 })).events.length, 5);
      await session.close();
      // The raw status code is DATA_LOSS.
      const status = await new Promise<grpc.ServiceError | null>((resolve) =>
        viaGrpcJs.grpc.streams.Read(
          { stream_id: "hurt", from: 0, limit: 10 },
          viaGrpcJs.metadataFor(admin),
          (error: grpc.ServiceError | null, _result?: ReadResult__Output) => resolve(error),
        ),
      );
      assert.equal(status?.code, grpc.status.DATA_LOSS);
      // What does not need the damaged record is served.
      const other = await client.read(admin, { stream_id: "other", from: 0, limit: 10 });
      assert.deepEqual(
        other.events.map((e) => JSON.parse(String(e.data)) as unknown),
        [0, 1, 2, 3, 4].map((i) => ({ i })),
      );
      assert.equal((await client.read(admin, { stream_id: "hurt", from: 4, limit: 10 })).events.length, 2);
      assert.equal((await viaGrpcJs.read(admin, { stream_id: "hurt", from: 0, limit: 3 })).events.length, 3);
      assert.equal(
        (await client.readAll(admin, { from_position: damaged.position + 1, limit: 100 })).events.length,
        7,
      );
      const health = await client.check();
      assert.equal(health.status, "degraded");
      assert.equal(health.storage.writable, true);
      // The standard health service keeps the node SERVING: it still serves everything else.
      const { proto } = await import("../../src/rpc/proto.js");
      const standard = new proto.grpc.health.v1.Health(
        `127.0.0.1:${service.rpcAddress.port}`,
        grpc.credentials.createInsecure(),
      );
      const serving = await new Promise<string | undefined>((resolve, reject) =>
        standard.Check({ service: "" }, (error, response) =>
          error ? reject(error) : resolve(response?.status),
        ),
      );
      standard.close();
      assert.equal(serving, "SERVING");

      // gRPC Subscribe: catch-up reaches the damaged event and ends with DATA_LOSS.
      const subscribeStatus = await new Promise<grpc.StatusObject>((resolve) => {
        const call = client.grpc.streams.Subscribe({ stream_id: "hurt" }, client.metadataFor(admin));
        call.on("data", (_m: SubscribeResponse__Output) => undefined);
        call.on("error", () => undefined);
        call.on("status", resolve);
      });
      assert.equal(subscribeStatus.code, grpc.status.DATA_LOSS);

      // REST.
      const rest = `http://127.0.0.1:${port(service, "rest")}`;
      const get = (path: string) =>
        fetch(rest + path, { headers: { authorization: `Bearer ${admin.token}` } });
      const hurt = await get("/v1/streams/hurt?from=0&limit=10");
      assert.equal(hurt.status, 500);
      const body = (await hurt.json()) as { error: { code: string; details: unknown } };
      assert.equal(body.error.code, "DATA_CORRUPTED");
      assert.deepEqual(body.error.details, expectedDetails);
      assert.equal((await get("/v1/events?from_position=0&limit=100")).status, 500);
      const fine = await get("/v1/streams/other?from=0&limit=10");
      assert.equal(fine.status, 200);
      assert.equal(((await fine.json()) as { events: unknown[] }).events.length, 5);
      const restHealth = (await (await fetch(`${rest}/v1/health`)).json()) as { status: string };
      assert.equal(restHealth.status, "degraded");

      // WebSocket: an error message for the subscription that needs the record; others go on.
      const ws = await TestClient.open(port(service, "ws"), admin.token ?? undefined);
      try {
        ws.subscribe("hurt", "hurt", 0);
        ws.subscribe("all", "$all", 0);
        ws.subscribe("other", "other", 0);
        await ws.untilMessage("error", "hurt");
        await ws.untilMessage("error", "all");
        await ws.untilMessage("caught_up", "other");
        assert.equal(ws.of("error", "hurt")[0]!.error!.code, "DATA_CORRUPTED");
        assert.equal(ws.of("error", "all")[0]!.error!.code, "DATA_CORRUPTED");
        assert.equal(ws.eventsOf("other").length, 5);
        // The catch-up page holding it fails whole: never the damaged event, nothing after it.
        assert.ok(ws.eventsOf("hurt").every((e) => e.revision < 3));
        for (const raw of ws.raw) JSON.parse(raw);
      } finally {
        ws.close();
      }

      // One log line for the record, after a dozen reads of it, naming where it is.
      const logged = lines.filter((l) => l.msg === damagedLine);
      assert.equal(logged.length, 1, JSON.stringify(logged));
      assert.equal(logged[0]!.fields.segment, segment);
      const offset = logged[0]!.fields.offset as number;
      assert.ok(offset < at && at - offset < 200, `offset ${offset} is the record holding byte ${at}`);
      client.close();
      viaGrpcJs.close();
    } finally {
      await service.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

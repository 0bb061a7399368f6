// A whole service in this process (real log engine in a temporary directory, real gRPC server
// on 127.0.0.1 port 0) and a gRPC client of it, logged in as the first-start admin.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import type { CallContext } from "../../src/operations/contract.js";
import { Payload } from "../../src/contract/payload.js";
import { createRpcClient } from "../../src/client/rpc-client.js";
import type { RpcClient } from "../../src/client/rpc-client.js";
import type { ReadSessionResponse__Output } from "../../src/rpc/generated/ess/v1/ReadSessionResponse.js";
import { startService } from "../../src/service.js";
import type { EngineOptions } from "../../src/storage/engine.js";
import type { Service } from "../../src/service.js";

export const adminPassword = "admin-password-1";

export interface TestService {
  service: Service;
  client: RpcClient;
  dataDir: string;
  address: string;
  admin: CallContext;
  /** Creates a user (as admin) and logs in as it. */
  userContext(username: string, tenant: string, role: "admin" | "writer" | "reader"): Promise<CallContext>;
  close(): Promise<void>;
}

/**
 * `engineOptions` reach the engine as given (openEngine passes them through), so a test can give
 * the log engine its own options, e.g. a small segmentBytesMax or a test hook.
 */
export async function startTestService(
  settings: Record<string, string> = {},
  engineOptions: EngineOptions = {},
): Promise<TestService> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-rpc-"));
  const config = loadConfig({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_RPC_ADDRESS: "127.0.0.1:0",
    SERVICE_ADMIN_PASSWORD: adminPassword,
    ...settings,
  });
  const service = await startService(config, {
    logger: createLogger({}, 100),
    stopGraceMs: 5000,
    engineOptions,
  });
  const address = `127.0.0.1:${service.rpcAddress.port}`;
  const client = createRpcClient({ address, deadlineMs: 20_000 });
  const login = await client.login({ token: null }, { username: "admin", password: adminPassword });
  const admin = { token: login.access_token };
  let closed = false;
  return {
    service,
    client,
    dataDir,
    address,
    admin,
    async userContext(username, tenant, role) {
      const password = `${username}-password`;
      await client.createUser(admin, { username, password, tenant_id: tenant, role });
      const result = await client.login({ token: null }, { username, password });
      return { token: result.access_token };
    },
    async close() {
      if (closed) return;
      closed = true;
      client.close();
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A second client of the service at `address` (grpc-js, as every product client), given its
 * credentials explicitly as a caller with TLS would: a client of its own, beside `client`.
 */
export function grpcJsClient(address: string, deadlineMs = 20_000): RpcClient {
  return createRpcClient({ address, deadlineMs, credentials: grpc.credentials.createInsecure() });
}

/**
 * The reads a tenant's usage counts (`reads_total`), asked over a connection of its own: a read
 * session whose client stopped reading fills its own connection's window.
 */
export function readsRunCounter(
  ts: TestService,
  tenantId: string,
): { count: () => Promise<number>; close: () => void } {
  const observer = grpcJsClient(ts.address);
  return {
    count: async () => (await observer.getTenant(ts.admin, { tenant_id: tenantId })).reads_total,
    close: () => observer.close(),
  };
}

/**
 * Reads `count` every `intervalMs` until it has not moved for three intervals in a row, and
 * returns that value: for a server that is expected to stop taking work (a client that stopped
 * reading its answers). One quiet interval was not enough on a loaded machine: a server starved of
 * CPU for 300 ms looked "steady" with half its work still to start.
 */
export async function steadyCount(count: () => Promise<number>, intervalMs = 300): Promise<number> {
  let now = await count();
  let unchanged = 0;
  while (unchanged < 3) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const next = await count();
    unchanged = next === now ? unchanged + 1 : 0;
    now = next;
  }
  return now;
}

/** Events in a heavy page: a read of this many events of a stream appendHeavyPage wrote is ~1 MB. */
export const heavyPageEvents = 10;
const heavyEventData = (i: number) => `{"i":${i},"pad":"${"p".repeat(100_000)}"}`;
/** What the server weighs a heavy page by (read budgets, sessions): its events' data and metadata ("{}"). */
export const heavyPageBytes = heavyPageEvents * (heavyEventData(0).length + 2);

/** Appends heavyPageEvents events of ~100 KB each to `streamId`. */
export async function appendHeavyPage(client: RpcClient, ctx: CallContext, streamId: string): Promise<void> {
  await client.append(ctx, {
    stream_id: streamId,
    events: Array.from({ length: heavyPageEvents }, (_, i) => ({
      event_type: "Heavy",
      data: Payload.fromText(heavyEventData(i)),
    })),
  });
}

/**
 * A Streams.ReadSession driven request by request through grpc-js: `read(id)` sends a read of
 * `streamId`'s heavy page; `answered` collects the correlation ids answered (each answer checked to
 * hold the whole page); `status` is the call's end.
 */
export function heavyReadSession(ts: TestService, ctx: CallContext, streamId: string) {
  const call = ts.client.grpc.streams.ReadSession(ts.client.metadataFor(ctx));
  call.on("error", () => undefined);
  const status = new Promise<grpc.StatusObject>((resolve) => call.on("status", resolve));
  const answered: number[] = [];
  call.on("data", (answer: ReadSessionResponse__Output) => {
    assert.equal(answer.result?.events.length, heavyPageEvents);
    answered.push(answer.correlation_id);
  });
  return {
    call,
    answered,
    status,
    read: (id: number) =>
      call.write({ correlation_id: id, read: { stream_id: streamId, limit: heavyPageEvents } }),
  };
}

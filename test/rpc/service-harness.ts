// A whole service in this process (real log engine in a temporary directory, real gRPC server
// on 127.0.0.1 port 0) and a gRPC client of it, logged in as the first-start admin.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import type { CallContext } from "../../src/operations/contract.js";
import { createRpcClient } from "../../src/rpc/client.js";
import type { RpcClient } from "../../src/rpc/client.js";
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
 * A client of the service at `address` through grpc-js: explicit credentials keep it off the
 * lean transports (src/rpc/unary-transport.ts, session-transport.ts), for comparing the two or
 * for a connection of its own.
 */
export function grpcJsClient(address: string, deadlineMs = 20_000): RpcClient {
  return createRpcClient({ address, deadlineMs, credentials: grpc.credentials.createInsecure() });
}

/**
 * Reads `count` every 300 ms until two reads in a row agree, and returns that value: for a
 * server that is expected to stop taking work (a client that stopped reading its answers).
 */
export async function steadyCount(count: () => Promise<number>): Promise<number> {
  let previous = -1;
  let now = await count();
  while (now !== previous) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    previous = now;
    now = await count();
  }
  return now;
}

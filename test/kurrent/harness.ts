// The whole service as `ess serve` starts it, with the KurrentDB listener on, for tests that drive
// it with KurrentDB's official Node client (@kurrent/kurrentdb-client).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { KurrentDBClient } from "@kurrent/kurrentdb-client";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import { startService, type Service } from "../../src/service.js";

export const adminPassword = "admin-password";

export interface KurrentRunning {
  service: Service;
  port: number;
  /** A client of the connection string `kurrentdb://...@127.0.0.1:PORT?tls=false` plus `extra`. */
  client(credentials?: string | null, extra?: string): KurrentDBClient;
  stop(): Promise<void>;
}

export async function serveKurrent(
  settings: Record<string, string> = {},
  dataDir?: string,
): Promise<KurrentRunning> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), "ess-kurrent-")));
  const config = loadConfig({
    SERVICE_DATA_DIR: dir,
    SERVICE_RPC_ADDRESS: "127.0.0.1:0",
    SERVICE_KURRENT_ENABLED: "true",
    SERVICE_KURRENT_ADDRESS: "127.0.0.1:0",
    SERVICE_ADMIN_PASSWORD: adminPassword,
    ...settings,
  });
  const service = await startService(config, { logger: createLogger({}, 100), stopGraceMs: 2000 });
  const listener = service.listeners.find((l) => l.name === "kurrent");
  assert.ok(listener, "SERVICE_KURRENT_ENABLED starts the KurrentDB listener");
  const port = listener.address.port;
  const clients: KurrentDBClient[] = [];
  let stopped = false;
  return {
    service,
    port,
    client(credentials = `admin:${adminPassword}`, extra = "") {
      const auth = credentials === null ? "" : `${credentials}@`;
      const client = KurrentDBClient.connectionString`kurrentdb://${auth}127.0.0.1:${String(port)}?tls=false${extra}`;
      clients.push(client);
      return client;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled(clients.map((c) => c.dispose()));
      await service.stop();
      if (dataDir === undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}

// The whole service as `ess serve` starts it, with the KurrentDB listener on, for tests that drive
// it with KurrentDB's clients. It loads no client itself: the official client and the legacy
// @eventstore/db-client register their generated messages in one global google-protobuf
// namespace, so a process may load only one of them.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import { startService, type Service } from "../../src/service.js";

export const adminPassword = "admin-password";

export interface KurrentRunning {
  service: Service;
  port: number;
  /** Runs `dispose` (a client's) before the service stops. */
  onStop(dispose: () => Promise<void>): void;
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
  const disposers: (() => Promise<void>)[] = [];
  let stopped = false;
  return {
    service,
    port,
    onStop(dispose) {
      disposers.push(dispose);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled(disposers.map((dispose) => dispose()));
      await service.stop();
      if (dataDir === undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Every item of a client's read or subscription, in order (either client's ResolvedEvent). */
export async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}

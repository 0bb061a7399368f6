// A whole service in this process whose log lines are recorded, every operation "slow" (past
// 0 ms, so each call logs its `slow operation` line): for tests of what the log says about calls.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatAddress, loadConfig } from "../../src/config/config.js";
import type { Logger } from "../../src/logger.js";
import { createRpcClient } from "../../src/client/rpc-client.js";
import { startService, type Listener } from "../../src/service.js";

export const recordingAdminPassword = "admin-password-1";

export interface LogLine {
  message: string;
  fields: Record<string, unknown>;
}

/** Starts the service with `settings` over an RPC and a REST listener on port 0; logged in as admin. */
export async function startRecordingService(settings: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-recording-"));
  const lines: LogLine[] = [];
  const record = (message: string, fields: Record<string, unknown> = {}) => lines.push({ message, fields });
  const logger: Logger = { debug: record, info: record, warn: record, error: record, child: () => logger };
  const config = loadConfig({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_RPC_ADDRESS: "127.0.0.1:0",
    SERVICE_REST_ENABLED: "true",
    SERVICE_REST_ADDRESS: "127.0.0.1:0",
    SERVICE_ADMIN_PASSWORD: recordingAdminPassword,
    ...settings,
  });
  const service = await startService(config, { logger, stopGraceMs: 2000, slowOperationMs: 0 });
  const address = formatAddress(service.rpcAddress);
  const client = createRpcClient({ address });
  const { access_token: token } = await client.login(
    { token: null },
    { username: "admin", password: recordingAdminPassword },
  );
  return {
    address,
    token,
    /** The fields of every `slow operation` line so far. */
    slowLines: () => lines.filter((l) => l.message === "slow operation").map((l) => l.fields),
    listener: (name: Listener["name"]) =>
      formatAddress(service.listeners.find((l) => l.name === name)!.address),
    async close() {
      client.close();
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

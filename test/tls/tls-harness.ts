// A whole service in this process with TLS on every listener (certificates from a test CA made
// with openssl), and a gRPC client of it over TLS trusting that CA, logged in as the admin.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRpcClient, type RpcClient } from "../../src/client/rpc-client.js";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import type { CallContext } from "../../src/operations/contract.js";
import { startService, type Service } from "../../src/service.js";
import { createTestCa, type ServerCert, type TestCa } from "../helpers/tls-certs.js";

export const adminPassword = "tls-admin-password";

export interface TlsService {
  service: Service;
  ca: TestCa;
  cert: ServerCert;
  client: RpcClient;
  admin: CallContext;
  rpcPort: number;
  restPort: number;
  wsPort: number;
  kurrentPort: number;
  close(): Promise<void>;
}

export async function startTlsService(settings: Record<string, string> = {}): Promise<TlsService> {
  const ca = createTestCa();
  const cert = ca.issue("server");
  const dataDir = await mkdtemp(join(tmpdir(), "ess-tls-data-"));
  const service = await startService(
    loadConfig({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_RPC_ADDRESS: "127.0.0.1:0",
      SERVICE_REST_ENABLED: "true",
      SERVICE_REST_ADDRESS: "127.0.0.1:0",
      SERVICE_WS_ENABLED: "true",
      SERVICE_WS_ADDRESS: "127.0.0.1:0",
      SERVICE_KURRENT_ENABLED: "true",
      SERVICE_KURRENT_ADDRESS: "127.0.0.1:0",
      SERVICE_ADMIN_PASSWORD: adminPassword,
      // A chain (server certificate, then the CA's): what an operator usually has.
      SERVICE_TLS_CERT_FILE: cert.chainFile,
      SERVICE_TLS_KEY_FILE: cert.keyFile,
      ...settings,
    }),
    { logger: createLogger({}, 100), stopGraceMs: 5000 },
  );
  const portOf = (name: string): number => service.listeners.find((l) => l.name === name)!.address.port;
  const rpcPort = service.rpcAddress.port;
  const client = createRpcClient({ address: `127.0.0.1:${rpcPort}`, tls: { ca: ca.ca }, deadlineMs: 20_000 });
  const login = await client.login({ token: null }, { username: "admin", password: adminPassword });
  return {
    service,
    ca,
    cert,
    client,
    admin: { token: login.access_token },
    rpcPort,
    restPort: portOf("rest"),
    wsPort: portOf("ws"),
    kurrentPort: portOf("kurrent"),
    async close() {
      client.close();
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
      ca.remove();
    },
  };
}

// The slow-operation log line says which carrier served the call: the gRPC server's fast carrier,
// grpc-js (behind the hop, or alone with SERVICE_RPC_FAST_CARRIER=false), or the REST gateway.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { formatAddress, loadConfig } from "../../src/config/config.js";
import type { Logger } from "../../src/logger.js";
import { createRpcClient } from "../../src/client/rpc-client.js";
import { proto } from "../../src/rpc/proto.js";
import { startService } from "../../src/service.js";

const adminPassword = "admin-password-1";

async function startRecording(fastCarrier: boolean) {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-slow-"));
  const slow: Record<string, unknown>[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields = {}) => {
      if (message === "slow operation") slow.push(fields);
    },
    error: () => undefined,
    child: () => logger,
  };
  const config = loadConfig({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_RPC_ADDRESS: "127.0.0.1:0",
    SERVICE_RPC_FAST_CARRIER: String(fastCarrier),
    SERVICE_REST_ENABLED: "true",
    SERVICE_REST_ADDRESS: "127.0.0.1:0",
    SERVICE_ADMIN_PASSWORD: adminPassword,
  });
  // Every operation is "slow" past 0 ms: each call logs its line.
  const service = await startService(config, { logger, stopGraceMs: 2000, slowOperationMs: 0 });
  const address = formatAddress(service.rpcAddress);
  const client = createRpcClient({ address });
  const { access_token: token } = await client.login(
    { token: null },
    { username: "admin", password: adminPassword },
  );
  const rest = service.listeners.find((l) => l.name === "rest")!;
  return {
    slow,
    address,
    token,
    restPort: rest.address.port,
    /** The carrier of the last slow Streams.Append line. */
    lastAppendCarrier: () => slow.filter((fields) => fields.rpc === "Streams.Append").at(-1)?.carrier,
    async close() {
      client.close();
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function grpcAppend(address: string, token: string, options: grpc.ChannelOptions): Promise<void> {
  const client = new proto.ess.v1.Streams(address, grpc.credentials.createInsecure(), options);
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return new Promise((resolve, reject) =>
    client.Append(
      { stream_id: "slow", events: [{ event_type: "E", data: Buffer.from("{}") }] },
      metadata,
      (error) => {
        client.close();
        if (error) reject(error);
        else resolve();
      },
    ),
  );
}

test("a slow call's log line names the carrier that served it", async () => {
  const withFastCarrier = await startRecording(true);
  try {
    await grpcAppend(withFastCarrier.address, withFastCarrier.token, {});
    assert.equal(withFastCarrier.lastAppendCarrier(), "fast");
    await grpcAppend(withFastCarrier.address, withFastCarrier.token, {
      "grpc.default_compression_algorithm": 2,
    });
    assert.equal(withFastCarrier.lastAppendCarrier(), "grpc-js");
    const answer = await fetch(`http://127.0.0.1:${withFastCarrier.restPort}/v1/streams/slow/append`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${withFastCarrier.token}` },
      body: JSON.stringify({ event_type: "E", data: {} }),
    });
    assert.equal(answer.status, 200);
    assert.equal(withFastCarrier.lastAppendCarrier(), "rest");
    assert.ok(withFastCarrier.slow.every((fields) => typeof fields.duration_ms === "number"));
  } finally {
    await withFastCarrier.close();
  }

  const grpcJsAlone = await startRecording(false);
  try {
    await grpcAppend(grpcJsAlone.address, grpcJsAlone.token, {});
    assert.equal(grpcJsAlone.lastAppendCarrier(), "grpc-js");
  } finally {
    await grpcJsAlone.close();
  }
});

// Starts the subscription service and the WebSocket listener on 127.0.0.1 port 0 for a test.
import { randomUUID } from "node:crypto";
import type { StorageEngine } from "../../src/storage/engine.js";
import { EssError } from "../../src/errors.js";
import { SubscriptionHub } from "../../src/operations/subscription/hub.js";
import { SubscriptionService, type SubscriberIdentity } from "../../src/operations/subscribe.js";
import { startWebSocketServer, type RunningWebSocketServer } from "../../src/ws/server.js";
import type { Role } from "../../src/contract/bodies.js";
import { MemoryEngine } from "./memory-engine.js";
import { createLogger } from "../../src/logger.js";
import type { Operations } from "../../src/operations/contract.js";
import { startRpcServer, type RpcServer } from "../../src/rpc/server.js";
import { createSubscribeHandler, type SubscribeHandler } from "../../src/rpc/subscribe-handler.js";

export interface Harness {
  engine: StorageEngine;
  hub: SubscriptionHub;
  service: SubscriptionService;
  server: RunningWebSocketServer;
  port: number;
  token(options?: { username?: string; tenant?: string; role?: Role; ttlMs?: number }): string;
  append(tenant: string, stream: string, count: number, data?: (i: number) => string): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  bufferBytesMax?: number;
  stallMsMax?: number;
  pingIntervalMs?: number;
  authTimeoutMs?: number;
  closeTimeoutMs?: number;
  /** The engine to serve (closed with the harness); default a fresh MemoryEngine. */
  engine?: StorageEngine;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { engine = new MemoryEngine(), ...serverOptions } = options;
  const hub = new SubscriptionHub(engine);
  const tokens = new Map<string, SubscriberIdentity>();
  const subscriptions = new SubscriptionService({
    hub,
    authenticate: async ({ token }) => {
      await Promise.resolve();
      const identity = token === null ? undefined : tokens.get(token);
      if (identity === undefined || identity.expires_at_ms <= Date.now()) {
        throw new EssError("UNAUTHENTICATED", "missing, bad or expired token");
      }
      return identity;
    },
  });
  const server = await startWebSocketServer({
    address: { host: "127.0.0.1", port: 0 },
    subscriptions,
    ...serverOptions,
  });
  let counter = 0;
  return {
    engine,
    hub,
    service: subscriptions,
    server,
    port: server.address.port,
    token({ username = "alice", tenant = "acme", role = "writer", ttlMs = 3_600_000 } = {}) {
      const token = `t${++counter}`;
      tokens.set(token, { username, tenant_id: tenant, role, expires_at_ms: Date.now() + ttlMs });
      return token;
    },
    async append(tenant, stream, count, data = (i) => `{"i":${i}}`) {
      const events = Array.from({ length: count }, (_, i) => ({
        event_id: randomUUID(),
        event_type: "Tested",
        data: data(i),
        metadata: "{}",
      }));
      await engine.append({ tenant_id: tenant, stream_id: stream, events, expected_revision: "any" });
    },
    async close() {
      hub.close();
      await server.close();
      await engine.close();
    },
  };
}

/**
 * A gRPC server on 127.0.0.1 port 0 serving only Streams.Subscribe from the harness's
 * subscription service (the server authenticates a call with the service's rule before it
 * decodes the request), and its handler (for its stats).
 */
export async function startSubscribeServer(
  h: Harness,
  options: { stallMsMax?: number } = {},
): Promise<{ rpc: RpcServer; handler: SubscribeHandler }> {
  const logger = createLogger({}, 100);
  const handler = createSubscribeHandler(h.service, { stallMsMax: options.stallMsMax, logger });
  const rpc = await startRpcServer({
    operations: {
      authenticate: (ctx) => h.service.options.authenticate(ctx),
    } as Partial<Operations> as Operations,
    address: { host: "127.0.0.1", port: 0 },
    logger,
    subscribe: handler,
  });
  return { rpc, handler };
}

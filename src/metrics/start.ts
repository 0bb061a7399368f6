/**
 * The metrics as the service wires them (../service.ts): made before the engine opens, so the
 * engine reports its commits from the first one, and listening once the rest has started.
 */
import type { ListenAddress } from "../config/config.js";
import type { Logger } from "../logger.js";
import type { EngineOptions, StorageEngine } from "../storage/engine.js";
import type { SubscriptionHub } from "../operations/subscription/hub.js";
import { subscriptionBufferedBytes } from "../operations/subscription/flow-gate.js";
import { ServiceMetrics } from "./metrics.js";
import { startMetricsServer } from "./server.js";

export interface ServiceMetricsWiring {
  readonly metrics: ServiceMetrics;
  /** The engine options with the metrics' commit observer added. */
  engineOptions(options: EngineOptions | undefined): EngineOptions;
  /** Serves /metrics on `address`; the gauges read `engine` and `hub` at scrape time. */
  listen(
    address: ListenAddress,
    engine: StorageEngine,
    hub: SubscriptionHub,
    logger: Logger,
  ): Promise<{ name: "metrics"; address: ListenAddress; close(): Promise<void> }>;
}

export function wireServiceMetrics(): ServiceMetricsWiring {
  let engine: StorageEngine | null = null;
  let hub: SubscriptionHub | null = null;
  const metrics = new ServiceMetrics({
    storageStatus: () => (engine === null ? Promise.reject(new Error("no engine yet")) : engine.status()),
    liveSubscriptions: () => hub?.size ?? 0,
    subscriptionBufferedBytes,
  });
  return {
    metrics,
    engineOptions: (options) => ({ ...options, commitObserver: metrics.commitObserver }),
    async listen(address, openEngine, openHub, logger) {
      engine = openEngine;
      hub = openHub;
      const server = await startMetricsServer(metrics, address, logger);
      return { name: "metrics", address: server.address, close: () => server.close() };
    },
  };
}

/**
 * The frame every operation runs in (./operations.ts): refused with UNAVAILABLE once the service
 * drains, counted in the metrics by outcome, logged when slow, and an unexpected failure logged
 * here once and answered as a bare INTERNAL. `drain()` waits for the calls in flight.
 */
import { performance } from "node:perf_hooks";
import { isEssError, toEssError, unavailable, type ErrorCode } from "../errors.js";
import type { Logger } from "../logger.js";
import type { ServiceMetrics } from "../metrics/metrics.js";
import type { CallContext, OperationName } from "./contract.js";
import { rpcNames } from "./contract.js";

/** The fields a log line about a call carries: its request id when an interface gave one. */
export function requestFields(ctx: CallContext | null): Record<string, string> {
  return ctx?.request_id === undefined ? {} : { request_id: ctx.request_id };
}

export interface CallRunner {
  /** Runs an operation; `ctx` (null for one without a caller) names its carrier in the slow-operation log. */
  run: <T>(name: OperationName, ctx: CallContext | null, body: () => Promise<T>) => Promise<T>;
  /** Refuses new calls with UNAVAILABLE from now on; resolves once the calls in flight are done. */
  drain: () => Promise<void>;
}

export function createCallRunner(options: {
  logger: Logger;
  metrics: ServiceMetrics | undefined;
  /** Calls slower than this many milliseconds are logged. */
  slowOperationMs: number;
}): CallRunner {
  const { logger, metrics, slowOperationMs } = options;
  let draining = false;
  let inFlight = 0;
  let drained: (() => void) | null = null;
  let drainedPromise: Promise<void> | null = null;

  async function run<T>(name: OperationName, ctx: CallContext | null, body: () => Promise<T>): Promise<T> {
    if (draining) throw unavailable("the service is shutting down");
    inFlight++;
    const started = performance.now();
    let outcome: ErrorCode | null = null;
    try {
      return await body();
    } catch (error) {
      if (!isEssError(error)) {
        logger.error("operation failed", {
          rpc: rpcNames[name],
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          ...requestFields(ctx),
        });
      }
      const essError = toEssError(error);
      outcome = essError.code;
      throw essError;
    } finally {
      inFlight--;
      const durationMs = performance.now() - started;
      // An interface's admission check is no request of its own (CallContext.admission).
      if (ctx?.admission !== true) metrics?.request(ctx, name, outcome, durationMs / 1000);
      if (durationMs > slowOperationMs) {
        logger.warn("slow operation", {
          rpc: rpcNames[name],
          duration_ms: Math.round(durationMs),
          ...(ctx?.carrier === undefined ? {} : { carrier: ctx.carrier }),
          ...requestFields(ctx),
        });
      }
      if (draining && inFlight === 0) drained?.();
    }
  }

  return {
    run,
    drain(): Promise<void> {
      draining = true;
      if (inFlight === 0) return Promise.resolve();
      drainedPromise ??= new Promise((resolve) => {
        drained = resolve;
      });
      return drainedPromise;
    },
  };
}

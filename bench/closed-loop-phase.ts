/**
 * One closed-loop benchmark phase, shared by the gRPC and the storage-beside-postgres benches:
 * `concurrency` workers each keep one call outstanding for `seconds` after a 0.5 s warm-up, and
 * every completed call's latency is kept for the percentiles.
 */

export interface ClosedLoopPhaseResult {
  concurrency: number;
  operations: number;
  operations_per_second: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
}

/** Nearest-rank percentile of ascending `sorted`, in the samples' unit, rounded to 3 decimals. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, index)] ?? 0) * 1000) / 1000;
}

export async function runClosedLoopPhase(
  concurrency: number,
  seconds: number,
  call: (worker: number) => Promise<unknown>,
): Promise<ClosedLoopPhaseResult> {
  const latencies: number[] = [];
  const warmUpEnd = Date.now() + 500;
  while (Date.now() < warmUpEnd) await Promise.all(Array.from({ length: concurrency }, (_, w) => call(w)));
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await call(w);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    operations: latencies.length,
    operations_per_second: Math.round(latencies.length / elapsedSeconds),
    latency_p50_ms: percentile(latencies, 50),
    latency_p99_ms: percentile(latencies, 99),
  };
}

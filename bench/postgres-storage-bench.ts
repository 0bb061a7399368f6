/**
 * Storage-level benchmark, postgres engine beside the log engine: the same phases through the
 * StorageEngine interface, in this process, on the same machine in the same run.
 *
 * Phases: durable appends of one 200-byte event per append at concurrency 1, 16 and 64 (each
 * worker its own stream; an append counts when it resolves, i.e. fsync'd / committed), then
 * reads of 100 events from a 1,000-event stream at concurrency 1, 16 and 64. Each phase runs
 * BENCH_SECONDS seconds (default 5) after a 0.5 s warm-up.
 *
 * PostgreSQL: a fresh database on ESS_BENCH_PG (default postgres://postgres@127.0.0.1:5432),
 * dropped afterwards (./bench-postgres.ts).
 * Run: npm run build && node dist/bench/postgres-storage-bench.js [--rpc]
 * (--rpc: the gRPC benchmark of bench/rpc-bench.ts with its server on the postgres engine).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StorageEngine } from "../src/storage/engine.js";
import { openLogEngine } from "../src/storage/log/index.js";
import { openPostgresEngine } from "../src/storage/postgres/postgres-engine.js";
import { withBenchDatabase, withPostgresService } from "./bench-postgres.js";
import { runClosedLoopPhase, type ClosedLoopPhaseResult } from "./closed-loop-phase.js";
import { runRpcBench, type RpcBenchResult } from "./rpc-bench.js";

export interface StoragePhaseResult extends ClosedLoopPhaseResult {
  engine: "log" | "postgres";
  operation: "append" | "read100";
}

/** JSON object text of exactly `bytes` bytes. */
function payload(bytes: number): string {
  const base = JSON.stringify({ order_id: "o-123456", amount_cents: 4250, pad: "" });
  return JSON.stringify({ order_id: "o-123456", amount_cents: 4250, pad: "x".repeat(bytes - base.length) });
}

async function benchEngine(
  kind: "log" | "postgres",
  engine: StorageEngine,
  seconds: number,
): Promise<StoragePhaseResult[]> {
  const data = payload(200);
  const results: StoragePhaseResult[] = [];
  for (const concurrency of [1, 16, 64]) {
    const r = await runClosedLoopPhase(concurrency, seconds, (w) =>
      engine.append({
        tenant_id: "bench",
        stream_id: `append-${concurrency}-${w}`,
        events: [{ event_id: randomUUID(), event_type: "OrderPlaced", data, metadata: "{}" }],
        expected_revision: "any",
      }),
    );
    results.push({ engine: kind, operation: "append", ...r });
  }
  for (let batch = 0; batch < 10; batch++) {
    await engine.append({
      tenant_id: "bench",
      stream_id: "read-bench",
      events: Array.from({ length: 100 }, () => ({
        event_id: randomUUID(),
        event_type: "OrderPlaced",
        data,
        metadata: "{}",
      })),
      expected_revision: "any",
    });
  }
  for (const concurrency of [1, 16, 64]) {
    const r = await runClosedLoopPhase(concurrency, seconds, async () => {
      const page = await engine.readStream({
        tenant_id: "bench",
        stream_id: "read-bench",
        direction: "forward",
        from_revision: Math.floor(Math.random() * 900),
        limit: 100,
      });
      if (page.events.length !== 100) throw new Error(`read ${page.events.length} events, expected 100`);
    });
    results.push({ engine: kind, operation: "read100", ...r });
  }
  return results;
}

/**
 * The RPC benchmark (bench/rpc-bench.ts) with its `ess serve` child on the postgres engine
 * (a fresh database, see ./bench-postgres.ts).
 */
export async function runRpcBenchOnPostgres(): Promise<RpcBenchResult> {
  return withPostgresService(() => runRpcBench());
}

export async function runPostgresStorageBench(
  seconds = Number(process.env.BENCH_SECONDS ?? 5),
): Promise<StoragePhaseResult[]> {
  const results: StoragePhaseResult[] = [];

  const dataDir = await mkdtemp(join(tmpdir(), "ess-storage-bench-"));
  try {
    const log = await openLogEngine({ dataDir });
    try {
      results.push(...(await benchEngine("log", log, seconds)));
    } finally {
      await log.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }

  await withBenchDatabase(async (url) => {
    const engine = await openPostgresEngine({ url });
    try {
      results.push(...(await benchEngine("postgres", engine, seconds)));
    } finally {
      await engine.close();
    }
  });
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes("--rpc")) {
  const result = await runRpcBenchOnPostgres();
  console.log(JSON.stringify({ bench: "rpc-postgres", date: new Date().toISOString(), result }));
  for (const p of result.phases) {
    console.log(
      `postgres ${p.operation.padEnd(8)} c=${String(p.concurrency).padStart(2)}  ` +
        `${String(p.operations_per_second).padStart(6)} ops/s  p50 ${p.latency_p50_ms} ms  p99 ${p.latency_p99_ms} ms`,
    );
  }
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const phases = await runPostgresStorageBench();
  const machine = { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version };
  console.log(
    JSON.stringify({ bench: "postgres-storage", date: new Date().toISOString(), ...machine, phases }),
  );
  for (const p of phases) {
    console.log(
      `${p.engine.padEnd(8)} ${p.operation.padEnd(8)} c=${String(p.concurrency).padStart(2)}  ` +
        `${String(p.operations_per_second).padStart(6)} ops/s  p50 ${p.latency_p50_ms} ms  p99 ${p.latency_p99_ms} ms`,
    );
  }
}

/**
 * Open-loop load on the RPC server: requests leave at a fixed rate whatever the answers do, as
 * independent users' requests would, instead of the closed loop of the other benchmarks (each
 * worker waits for its answer before it sends again). A closed loop lets the server pace its
 * clients, so batching tricks that only reshape the loop's rhythm can look better there than they
 * are; an open loop shows what a user waits for at a given arrival rate.
 *
 * Latency is measured from when a request was due, not from when it was sent, so a stalled
 * client loop counts against the server (no coordinated omission). A rate the server cannot keep
 * up with shows as a growing backlog: the phase stops once `maxOutstanding` requests wait.
 *
 * `node dist/bench/open-loop-bench.js`; BENCH_OPEN_APPEND_RATES / BENCH_OPEN_READ_RATES (lists
 * per second), BENCH_SECONDS (per rate), BENCH_OPEN_CONNECTIONS, BENCH_ESS_CLI (the ess build to
 * measure: another tree's dist/src/cli/main.js, to compare two builds with one load generator).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CallContext } from "../src/operations/contract.js";
import type { RpcClient } from "../src/client/rpc-client.js";
import { percentile } from "./closed-loop-phase.js";
import { startEssChild } from "./ess-child.js";
import { createLoadClient } from "./grpc-load/load-client.js";

const password = "open-loop-bench-password";
const maxOutstanding = 20_000;
const tickMs = 1;

export interface OpenLoopPhase {
  operation: string;
  target_per_second: number;
  achieved_per_second: number;
  /** The backlog passed maxOutstanding: the server could not keep this rate. */
  saturated: boolean;
  errors: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  latency_p999_ms: number;
}

/** Sends `call()` at `rate` per second for `seconds`, round-robin over nothing but time. */
export async function runOpenLoopPhase(
  operation: string,
  rate: number,
  seconds: number,
  call: (n: number) => Promise<unknown>,
): Promise<OpenLoopPhase> {
  const latencies: number[] = [];
  let sent = 0;
  let outstanding = 0;
  let errors = 0;
  let saturated = false;
  const start = performance.now();
  const end = start + seconds * 1000;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      const due = Math.min(
        Math.floor(((Math.min(now, end) - start) / 1000) * rate),
        Math.floor(seconds * rate),
      );
      while (sent < due && !saturated) {
        // The time this request was due: latency counts from here, not from when the loop got to it.
        const dueAt = start + (sent / rate) * 1000;
        const n = sent++;
        outstanding++;
        if (outstanding > maxOutstanding) saturated = true;
        call(n).then(
          () => {
            latencies.push(performance.now() - dueAt);
            outstanding--;
          },
          () => {
            errors++;
            outstanding--;
          },
        );
      }
      if ((now >= end || saturated) && outstanding === 0) resolve();
      else setTimeout(tick, tickMs);
    };
    tick();
  });
  const elapsedS = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const ms = (v: number): number => Math.round(v * 100) / 100;
  return {
    operation,
    target_per_second: rate,
    achieved_per_second: Math.round(latencies.length / elapsedS),
    saturated,
    errors,
    latency_p50_ms: ms(percentile(latencies, 50)),
    latency_p99_ms: ms(percentile(latencies, 99)),
    latency_p999_ms: ms(percentile(latencies, 99.9)),
  };
}

function rates(name: string, fallback: string): number[] {
  return (process.env[name] ?? fallback).split(",").map((r) => Number(r.trim()));
}

export async function runOpenLoopBench(): Promise<OpenLoopPhase[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const connections = Number(process.env.BENCH_OPEN_CONNECTIONS ?? 4);
  const dataDir = await mkdtemp(join(tmpdir(), "ess-open-loop-"));
  const server = await startEssChild({
    dataDir,
    adminPassword: password,
    listener: "rpc",
    ...(process.env.BENCH_ESS_CLI ? { cli: process.env.BENCH_ESS_CLI } : {}),
  });
  const clients: RpcClient[] = [];
  try {
    for (let i = 0; i < connections; i++) clients.push(createLoadClient({ address: server.address }));
    const first = clients[0] as RpcClient;
    const login = await first.login({ token: null }, { username: "admin", password });
    const ctx: CallContext = { token: login.access_token };
    const client = (n: number): RpcClient => clients[n % connections] as RpcClient;
    const data = {
      order_id: "o-123456",
      amount_cents: 4250,
      currency: "EUR",
      lines: [{ sku: "a-1", qty: 2 }],
    };
    const phases: OpenLoopPhase[] = [];

    for (const rate of rates("BENCH_OPEN_APPEND_RATES", "2000,5000,10000,15000,20000")) {
      const phase = await runOpenLoopPhase("append", rate, seconds, (n) =>
        client(n).append(ctx, {
          stream_id: `open-${rate}-${n % 64}`,
          event_type: "OrderPlaced",
          data,
          event_id: randomUUID(),
        }),
      );
      phases.push(phase);
      report(phase);
    }

    const readStream = "open-read";
    for (let batch = 0; batch < 10; batch++) {
      await first.append(ctx, {
        stream_id: readStream,
        events: Array.from({ length: 100 }, (_, i) => ({ event_type: "OrderPlaced", data: { ...data, i } })),
      });
    }
    for (const rate of rates("BENCH_OPEN_READ_RATES", "2000,5000,10000,15000")) {
      const phase = await runOpenLoopPhase("read100", rate, seconds, (n) =>
        client(n).read(ctx, { stream_id: readStream, from: (n * 37) % 900, limit: 100 }),
      );
      phases.push(phase);
      report(phase);
    }
    return phases;
  } finally {
    for (const c of clients) c.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function report(p: OpenLoopPhase): void {
  console.log(
    `${p.operation.padEnd(8)} target ${String(p.target_per_second).padStart(6)}/s  achieved ${String(p.achieved_per_second).padStart(6)}/s` +
      `  p50 ${p.latency_p50_ms} ms  p99 ${p.latency_p99_ms} ms  p99.9 ${p.latency_p999_ms} ms` +
      (p.saturated ? "  SATURATED" : "") +
      (p.errors > 0 ? `  errors ${p.errors}` : ""),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const phases = await runOpenLoopBench();
  const machine = { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version };
  console.log(JSON.stringify({ bench: "open-loop", date: new Date().toISOString(), ...machine, phases }));
}

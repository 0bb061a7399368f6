/**
 * RPC benchmark: durable appends per second and 100-event reads per second over gRPC, with p50
 * and p99 latency, at concurrency 1, 16 and 64.
 *
 * The server is a real `ess serve` child process (log engine in a temporary directory); this
 * process is the client, so client and server do not share an event loop (they do share the
 * machine's cores, hence the load generator's cheaper client, bench/grpc-load/). An append is
 * counted when its answer arrives, which the server sends only once the event is fsync'd. Each
 * phase runs BENCH_SECONDS seconds (default 5) after a short warm-up. Run: npm run build && node dist/bench/rpc-bench.js
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CallContext } from "../src/operations/contract.js";
import type { RpcClient } from "../src/client/rpc-client.js";
import { createLoadClient } from "./grpc-load/load-client.js";
import { runClosedLoopPhase, type ClosedLoopPhaseResult } from "./closed-loop-phase.js";
import { startEssChild, type EssChild } from "./ess-child.js";

export interface RpcPhaseResult extends ClosedLoopPhaseResult {
  operation: "append" | "read100";
}

export interface RpcBenchResult {
  seconds_per_phase: number;
  phases: RpcPhaseResult[];
}

const cli = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const password = "bench-admin-password";

async function runPhase(
  operation: RpcPhaseResult["operation"],
  concurrency: number,
  seconds: number,
  call: (worker: number) => Promise<unknown>,
): Promise<RpcPhaseResult> {
  return { operation, ...(await runClosedLoopPhase(concurrency, seconds, call)) };
}

function startServer(dataDir: string): Promise<EssChild> {
  return startEssChild({ dataDir, adminPassword: password, listener: "rpc", cli });
}

export async function runRpcBench(seconds = Number(process.env.BENCH_SECONDS ?? 5)): Promise<RpcBenchResult> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-rpc-bench-"));
  const server = await startServer(dataDir);
  let client: RpcClient | null = null;
  try {
    client = createLoadClient({ address: server.address });
    const rpc = client;
    const login = await rpc.login({ token: null }, { username: "admin", password });
    const ctx: CallContext = { token: login.access_token };
    const phases: RpcPhaseResult[] = [];
    const payload = {
      order_id: "o-123456",
      amount_cents: 4250,
      currency: "EUR",
      lines: [{ sku: "a-1", qty: 2 }],
    };

    for (const concurrency of [1, 16, 64]) {
      phases.push(
        await runPhase("append", concurrency, seconds, (w) =>
          rpc.append(ctx, {
            stream_id: `append-${concurrency}-${w}`,
            event_type: "OrderPlaced",
            data: payload,
            event_id: randomUUID(),
          }),
        ),
      );
    }

    const readStream = "read-bench";
    for (let batch = 0; batch < 10; batch++) {
      await rpc.append(ctx, {
        stream_id: readStream,
        events: Array.from({ length: 100 }, (_, i) => ({
          event_type: "OrderPlaced",
          data: { ...payload, i },
        })),
      });
    }
    for (const concurrency of [1, 16, 64]) {
      phases.push(
        await runPhase("read100", concurrency, seconds, async () => {
          const from = Math.floor(Math.random() * 900);
          const page = await rpc.read(ctx, { stream_id: readStream, from, limit: 100 });
          if (page.events.length !== 100) throw new Error(`read ${page.events.length} events, expected 100`);
        }),
      );
    }
    return { seconds_per_phase: seconds, phases };
  } finally {
    client?.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await runRpcBench();
  const machine = { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version };
  console.log(JSON.stringify({ bench: "rpc", date: new Date().toISOString(), ...machine, result }));
  for (const p of result.phases) {
    console.log(
      `${p.operation.padEnd(8)} c=${String(p.concurrency).padStart(2)}  ${String(p.operations_per_second).padStart(6)} ops/s` +
        `  p50 ${p.latency_p50_ms} ms  p99 ${p.latency_p99_ms} ms`,
    );
  }
}

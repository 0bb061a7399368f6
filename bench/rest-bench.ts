/**
 * REST benchmark: durable single-event appends per second and 100-event reads per second
 * through the REST gateway, with p50 and p99 latency, at concurrency 1, 16 and 64.
 *
 * The server is a real `ess serve` child process (log engine in a temporary directory,
 * SERVICE_REST_ENABLED=true); the load comes from autocannon in a third process
 * (bench/rest-load.ts), so neither shares an event loop with the server (all share the
 * machine's cores). An append is counted when its answer arrives, which the server sends only
 * once the event is fsync'd. Each phase runs BENCH_SECONDS seconds (default 5).
 * Run: npm run build && node dist/bench/rest-bench.js [--postgres]
 * (--postgres: the server on SERVICE_STORAGE=postgres in a fresh database, ./bench-postgres.ts;
 * an append then counts once its transaction has committed).
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { withPostgresService } from "./bench-postgres.js";
import type { LoadResult, LoadSpec } from "./rest-load.js";
import { startEssChild } from "./ess-child.js";

export interface RestPhaseResult extends LoadResult {
  operation: "append" | "read100";
  concurrency: number;
}

export interface RestBenchResult {
  /** The server's storage engine (SERVICE_STORAGE the child inherited; log when unset). */
  storage: string;
  seconds_per_phase: number;
  load_average_1m: number;
  phases: RestPhaseResult[];
  /** The log engine's group-commit figures after the run (fsyncs shared by concurrent appends). */
  writer: unknown;
}

const cli = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const loader = fileURLToPath(new URL("./rest-load.js", import.meta.url));
const password = "bench-admin-password";

async function startServer(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = await startEssChild({ dataDir, adminPassword: password, listener: "rest", cli, nodeArgs });
  return { url: `http://${child.address}`, stop: child.stop };
}

function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [loader, JSON.stringify(spec)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`the load generator exited with ${code}`));
      else resolve(JSON.parse(out) as LoadResult);
    });
  });
}

async function post(url: string, token: string | null, body: unknown): Promise<unknown> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

export async function runRestBench(
  seconds = Number(process.env.BENCH_SECONDS ?? 5),
): Promise<RestBenchResult> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-rest-bench-"));
  const server = await startServer(dataDir);
  try {
    const login = (await post(`${server.url}/v1/auth/login`, null, { username: "admin", password })) as {
      access_token: string;
    };
    const token = login.access_token;
    const stream = "read-bench";
    for (let batch = 0; batch < 10; batch++) {
      await post(`${server.url}/v1/streams/${stream}/append`, token, {
        events: Array.from({ length: 100 }, (_, i) => ({
          event_type: "OrderPlaced",
          data: {
            order_id: "o-123456",
            amount_cents: 4250,
            currency: "EUR",
            lines: [{ sku: "a-1", qty: 2 }],
            i,
          },
        })),
      });
    }
    const phases: RestPhaseResult[] = [];
    const only = process.env.BENCH_ONLY; // "append" or "read100" to run one kind
    for (const kind of ["append", "read100"] as const) {
      if (only && only !== kind) continue;
      for (const concurrency of [1, 16, 64]) {
        // Warm-up: a short run whose figures are dropped (JIT, connection set-up, index caches).
        await runLoad({ url: server.url, token, kind, connections: concurrency, seconds: 1, stream });
        const result = await runLoad({
          url: server.url,
          token,
          kind,
          connections: concurrency,
          seconds,
          stream,
        });
        if (result.non_2xx > 0 || result.errors > 0) {
          throw new Error(
            `${kind} c=${concurrency}: ${result.non_2xx} non-2xx answers, ${result.errors} errors`,
          );
        }
        phases.push({ operation: kind, concurrency, ...result });
      }
    }
    const status = await fetch(`${server.url}/v1/admin/storage-status`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const writer = ((await status.json()) as { writer?: unknown }).writer ?? null;
    return {
      storage: process.env.SERVICE_STORAGE ?? "log",
      seconds_per_phase: seconds,
      load_average_1m: Math.round((loadavg()[0] ?? 0) * 10) / 10,
      phases,
      writer,
    };
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The REST benchmark with its `ess serve` child on the postgres engine (a fresh database). */
export async function runRestBenchOnPostgres(
  seconds = Number(process.env.BENCH_SECONDS ?? 5),
): Promise<RestBenchResult> {
  return withPostgresService(() => runRestBench(seconds));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = process.argv.includes("--postgres") ? await runRestBenchOnPostgres() : await runRestBench();
  const machine = { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version };
  console.log(JSON.stringify({ bench: "rest", date: new Date().toISOString(), ...machine, result }));
  for (const p of result.phases) {
    console.log(
      `${result.storage.padEnd(8)} ${p.operation.padEnd(8)} c=${String(p.concurrency).padStart(2)}  ${String(p.per_second).padStart(6)} req/s` +
        `  p50 ${p.latency_p50_ms} ms  p99 ${p.latency_p99_ms} ms`,
    );
  }
}

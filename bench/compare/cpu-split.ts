/**
 * Server and load generator CPU per operation, side by side, for rows of the comparison: where
 * an operation's CPU goes when the client's own cost matters as much as the server's (the
 * KurrentDB client row, issue 28: docs/kurrent.md, "Performance"). For each row: `ess serve` as
 * bench:compare starts it, the row's adapter in this process, appends at c=64 (one event each,
 * exact expected revision) and 100-event reads at c=16, each 1 s warm-up then BENCH_SECONDS
 * (default 5) measured; server CPU from /proc, this process's from process.cpuUsage() (every
 * thread: the KurrentDB client's native bridge too).
 * Usage: node dist/bench/compare/cpu-split.js [row ids, comma-separated; default ess-kurrent,ess-grpc-session]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openAdapter } from "./open-adapter.js";
import { rowDefinitions } from "./rows.js";
import { makeEventJson } from "./workload.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rowIds = (process.argv[2] ?? "ess-kurrent,ess-grpc-session").split(",");

function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `op` on `concurrency` workers; prints operations/s and each side's CPU µs per operation. */
async function phase(
  label: string,
  concurrency: number,
  serverCpu: () => number | null,
  op: (worker: number, i: number) => Promise<void>,
): Promise<void> {
  let stop = false;
  let ops = 0;
  const worker = async (w: number) => {
    for (let i = 0; !stop; i++) {
      await op(w, i);
      ops++;
    }
  };
  const workers = Array.from({ length: concurrency }, (_, w) => worker(w));
  await sleep(1000);
  const [s0, c0, o0, t0] = [serverCpu() ?? 0, ownCpuSeconds(), ops, performance.now()];
  await sleep(seconds * 1000);
  const [s1, c1, o1, t1] = [serverCpu() ?? 0, ownCpuSeconds(), ops, performance.now()];
  stop = true;
  await Promise.all(workers);
  const n = Math.max(1, o1 - o0);
  const perOp = (cpuSeconds: number) => ((cpuSeconds * 1e6) / n).toFixed(0);
  console.log(
    `${label}: ${((n * 1000) / (t1 - t0)).toFixed(0)}/s, server ${perOp(s1 - s0)} µs CPU/op, ` +
      `load generator ${perOp(c1 - c0)} µs CPU/op`,
  );
}

for (const id of rowIds) {
  const row = rowDefinitions.find((r) => r.id === id);
  if (row === undefined) throw new Error(`no row ${id}`);
  const dir = mkdtempSync(join(tmpdir(), "cpu-split-"));
  const started = await row.start({ dir, postgresUrl: "", postgresPoolSize: 1, essCpuProfileDir: null });
  try {
    const adapter = await openAdapter(started.target);
    const serverCpu = () => started.server?.cpuSeconds() ?? null;
    console.log(`${row.label} (load average ${loadavg()[0]!.toFixed(1)})`);
    await phase("  append c=64", 64, serverCpu, (w, i) => adapter.append(`a-${w}`, i - 1, makeEventJson(i)));
    for (let s = 0; s < 100; s++) {
      await adapter.appendBatch(
        `r-${s}`,
        Array.from({ length: 100 }, (_, i) => makeEventJson(i)),
      );
    }
    await phase("  read 100 events c=16", 16, serverCpu, async (w, i) => {
      const count = await adapter.read(`r-${(w * 7 + i) % 100}`, 100);
      if (count !== 100) throw new Error(`a read returned ${count} events`);
    });
    await adapter.close();
  } finally {
    await started.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
process.exit(0);

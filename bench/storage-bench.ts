/**
 * `npm run bench:storage`: the log engine in-process, without any transport.
 *
 * - durable appends/s of single-event appends (200-byte `data`) over 1,000 streams at
 *   concurrency 1, 16 and 64 (`concurrency` appends always outstanding; each resolves only
 *   after its group's fdatasync), with latency percentiles and events per fsync;
 * - events/s of 100-event stream reads (forward, from a random revision of a 1,000-event stream).
 *
 * Prints the machine (cores, CPU model, RAM, disk of the data directory, load average) and a
 * Markdown table to paste into BENCHMARKS.md. BENCH_SECONDS sets each phase's length (default 5);
 * BENCH_CONCURRENCY the append phases' concurrencies (default "1,16,64"); the data directory is
 * made under os.tmpdir() (TMPDIR=/dev/shm takes the disk out, to see the CPU bound).
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openLogEngine, type LogEngine } from "../src/storage/log/index.js";
import { createLogger } from "../src/logger.js";
import type { EventToAppend } from "../src/storage/engine.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "1,16,64").split(",").map(Number);

function payload(bytes: number): string {
  const head = '{"pad":"';
  return head + "x".repeat(bytes - head.length - 2) + '"}';
}
const data200 = payload(200);

function newEvent(): EventToAppend {
  return { event_id: randomUUID(), event_type: "bench-event", data: data200, metadata: "{}" };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface AppendPhase {
  concurrency: number;
  events_per_second: number;
  p50_ms: number;
  p99_ms: number;
  events_per_fsync: number;
  /** CPU time of this process (every thread, user and system) per append, in µs. */
  cpu_us_per_append: number;
}

export async function appendPhase(
  engine: LogEngine,
  concurrency: number,
  durationMs: number,
): Promise<AppendPhase> {
  const statusBefore = await engine.status();
  const latencies: number[] = [];
  let counter = 0;
  let done = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const stream = `bench-${counter++ % 1000}`;
      const t0 = performance.now();
      await engine.append({
        tenant_id: "bench",
        stream_id: stream,
        events: [newEvent()],
        expected_revision: "any",
      });
      latencies.push(performance.now() - t0);
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const statusAfter = await engine.status();
  const fsyncs = statusAfter.writer!.fsyncs - statusBefore.writer!.fsyncs;
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    events_per_second: Math.round(done / elapsed),
    p50_ms: Number(percentile(latencies, 50).toFixed(2)),
    p99_ms: Number(percentile(latencies, 99).toFixed(2)),
    events_per_fsync: Number((done / Math.max(1, fsyncs)).toFixed(1)),
    cpu_us_per_append: Number(((cpu.user + cpu.system) / Math.max(1, done)).toFixed(1)),
  };
}

export interface ReadPhase {
  events_per_second: number;
  /** Events per second of this process's own CPU time: what the code costs, whatever the load. */
  events_per_cpu_second: number;
  reads_per_second: number;
  p50_ms: number;
  p99_ms: number;
}

async function readPhase(engine: LogEngine, durationMs: number): Promise<ReadPhase> {
  // 100 streams of 1,000 events, appended in batches of 100.
  for (let s = 0; s < 100; s++) {
    const pending = [];
    for (let b = 0; b < 10; b++) {
      pending.push(
        engine.append({
          tenant_id: "reads",
          stream_id: `r-${s}`,
          events: Array.from({ length: 100 }, newEvent),
          expected_revision: "any",
        }),
      );
    }
    await Promise.all(pending);
  }
  const latencies: number[] = [];
  let events = 0;
  let reads = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + durationMs;
  while (performance.now() < deadline) {
    const t0 = performance.now();
    const result = await engine.readStream({
      tenant_id: "reads",
      stream_id: `r-${Math.floor(Math.random() * 100)}`,
      direction: "forward",
      from_revision: Math.floor(Math.random() * 900),
      limit: 100,
    });
    latencies.push(performance.now() - t0);
    events += result.events.length;
    reads++;
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  return {
    events_per_second: Math.round(events / elapsed),
    events_per_cpu_second: Math.round(events / ((cpu.user + cpu.system) / 1e6)),
    reads_per_second: Math.round(reads / elapsed),
    p50_ms: Number(percentile(latencies, 50).toFixed(3)),
    p99_ms: Number(percentile(latencies, 99).toFixed(3)),
  };
}

/** fdatasync latency of this disk right now (16 KiB appended before each), in ms. */
function probeFsync(dir: string): { p50: number; p99: number } {
  const file = path.join(dir, "fsync-probe.bin");
  const fd = fs.openSync(file, "w");
  const buf = Buffer.alloc(16 * 1024);
  const latencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    fs.writeSync(fd, buf, 0, buf.length, i * buf.length);
    const t0 = performance.now();
    fs.fdatasyncSync(fd);
    latencies.push(performance.now() - t0);
  }
  fs.closeSync(fd);
  fs.unlinkSync(file);
  latencies.sort((a, b) => a - b);
  return {
    p50: Number(percentile(latencies, 50).toFixed(3)),
    p99: Number(percentile(latencies, 99).toFixed(3)),
  };
}

function machine(dir: string): Record<string, string | number> {
  let cpuModel = os.cpus()[0]?.model ?? "unknown";
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync("/proc/cpuinfo", "utf8"));
    if (m?.[1]) cpuModel = m[1].trim();
  } catch {
    // Not Linux: os.cpus() has the model.
  }
  let disk = "unknown";
  try {
    disk = execFileSync("df", ["-h", "--output=source,fstype,size", dir], { encoding: "utf8" })
      .trim()
      .split("\n")
      .pop()!
      .replace(/\s+/g, " ");
  } catch {
    // df missing: leave unknown.
  }
  return {
    date: new Date().toISOString().slice(0, 16).replace("T", " "),
    nproc: os.cpus().length,
    cpu: cpuModel,
    ram_gib: Math.round(os.totalmem() / 2 ** 30),
    disk,
    node: process.version,
    load_average: os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" "),
  };
}

export async function runStorageBench(): Promise<{
  machine: Record<string, string | number>;
  appends: AppendPhase[];
  reads: ReadPhase;
  index: unknown;
}> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ess-storage-bench-"));
  const engine = await openLogEngine({ dataDir: dir, logger: createLogger({}, 40) });
  try {
    const fsyncBefore = probeFsync(dir);
    const m = { ...machine(dir), fdatasync_p50_ms: fsyncBefore.p50, fdatasync_p99_ms: fsyncBefore.p99 };
    const appends: AppendPhase[] = [];
    for (const c of concurrencies) {
      await appendPhase(engine, c, 500); // warm-up
      appends.push(await appendPhase(engine, c, seconds * 1000));
    }
    const reads = await readPhase(engine, seconds * 1000);
    const status = await engine.status();
    return {
      machine: { ...m, load_average_after: os.loadavg()[0]!.toFixed(1) },
      appends,
      reads,
      index: status.index,
    };
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runStorageBench();
  console.log(JSON.stringify(result, null, 2));
  const m = result.machine;
  const a = (c: number): string => {
    const p = result.appends.find((x) => x.concurrency === c);
    if (p === undefined) return "-";
    return (
      `${p.events_per_second.toLocaleString("en-US")} (${p.p50_ms} / ${p.p99_ms} ms, ` +
      `${p.events_per_fsync}/fsync, ${p.cpu_us_per_append} µs CPU)`
    );
  };
  const r = result.reads;
  console.log(
    `\n| ${m.date} | load ${m.load_average}, fdatasync p50 ${m.fdatasync_p50_ms} ms | ` +
      `${a(1)} | ${a(16)} | ${a(64)} | ${r.events_per_second.toLocaleString("en-US")} ` +
      `(${r.events_per_cpu_second.toLocaleString("en-US")} per CPU-second; ${r.p50_ms} / ${r.p99_ms} ms per read) |`,
  );
}

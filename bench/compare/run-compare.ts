/**
 * `npm run bench:compare`: measures `ess` and the event stores that run on this machine, on the
 * same workload in one run, and writes the "Comparison with peers" section of BENCHMARKS.md.
 *
 * For each row: start the system (own process, own temp dir, free loopback port), fork one
 * driver process (the load generator), run the cells (appends at each concurrency, a preload of
 * the read set, reads), read the server's footprint from /proc and its data directory, stop it.
 * Invariants: every cell is bounded in time; everything started is stopped and every temp
 * directory and schema removed at the end, also after a failure or Ctrl-C.
 *
 * Rounds: the whole sequence of rows runs BENCH_ROUNDS times (default 3), in alternating order
 * (forward, then backward, ...), each row with a fresh server every round. On a shared or
 * virtual machine throughput drifts by tens of percent within minutes, for the peers as much as
 * for us; the table gives each cell's median over the rounds, and each ratio's median and range
 * over the rounds, every ratio computed between rows of the same round.
 *
 * Settings (environment): BENCH_ROUNDS (3), BENCH_SECONDS (measured seconds per cell, default 5),
 * BENCH_WARMUP_SECONDS (1), BENCH_READ_STREAMS (1000), BENCH_APPEND_CONCURRENCY (1,16,64) and
 * BENCH_READS=0 (no read cell) for focused profiling runs, BENCH_ROWS (comma-separated row ids,
 * default all), BENCH_POSTGRES_URL, BENCH_PG_POOL (32), BENCH_NATS_SERVER (the nats-server binary,
 * default /usr/sbin/nats-server), BENCH_ESS_CPU_PROF (a directory: run
 * `ess serve` under node --cpu-prof and keep the profiles there), BENCH_DRIVER_CPU_PROF (the same
 * for the load generators), BENCH_ESS_NODE_ARGS (more node flags for `ess serve`, space-separated),
 * BENCH_DRIVER_NODE_ARGS (the same for the load generators, e.g. --trace-gc),
 * BENCH_NO_WRITE=1 (print, do not
 * touch BENCHMARKS.md), BENCH_JSON_OUT (also write the raw results as JSON to this path).
 * To tell a server's cost from its load generator's, one build can be measured with another's:
 * BENCH_ESS_MAIN (another build's dist/src/cli/main.js: the ess rows run that build's server) and
 * BENCH_LOAD_GENERATOR (another build's dist/bench/compare/driver.js: every row's load generator is
 * that build's). Either one leaves BENCHMARKS.md as it is.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { essVersion, machineFacts } from "../benchmarks-md.js";
import type { CellResult, DriverCommand, DriverReply } from "./driver.js";
import { runningProcesses } from "./processes.js";
import { renderGenerated, writeBenchmarksSection, type RowResult, type RunResult } from "./report.js";
import { commandVersion, natsServerPath, repoRoot, rowDefinitions, type RowSettings } from "./rows.js";

const appendConcurrency = (process.env.BENCH_APPEND_CONCURRENCY ?? "1,16,64")
  .split(",")
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const readConcurrency = 16;
const preloadConcurrency = 16;

function numberSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}: '${raw}' is not a positive number`);
  return value;
}

const rounds = Math.round(numberSetting("BENCH_ROUNDS", 3));
const seconds = numberSetting("BENCH_SECONDS", 5);
const warmupSeconds = numberSetting("BENCH_WARMUP_SECONDS", 1);
const readStreams = Math.round(numberSetting("BENCH_READ_STREAMS", 1000));
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const postgresPoolSize = Math.round(numberSetting("BENCH_PG_POOL", 32));
const essCpuProfileDir = process.env.BENCH_ESS_CPU_PROF ?? null;
const rowFilter = (process.env.BENCH_ROWS ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter((s) => s !== "");

const driverPath = process.env.BENCH_LOAD_GENERATOR ?? fileURLToPath(new URL("./driver.js", import.meta.url));

/** Set by Ctrl-C: no new command goes to a driver, and running drivers are killed. */
let interrupted = false;
const drivers = new Set<Driver>();

/** One driver child process; commands go one at a time, each with its own time limit. */
class Driver {
  private readonly child: ChildProcess;
  private pending: { resolve: (reply: DriverReply) => void; reject: (error: Error) => void } | null = null;

  constructor() {
    const profileDir = process.env.BENCH_DRIVER_CPU_PROF;
    // BENCH_DRIVER_NODE_ARGS: more node flags for the load generator (e.g. --trace-gc).
    const nodeArgs = (process.env.BENCH_DRIVER_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "");
    const execArgv = [...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []), ...nodeArgs];
    this.child = fork(driverPath, [], { stdio: ["ignore", "inherit", "inherit", "ipc"], execArgv });
    drivers.add(this);
    this.child.on("message", (reply: DriverReply) => {
      const pending = this.pending;
      this.pending = null;
      pending?.resolve(reply);
    });
    this.child.on("exit", (code, signal) => {
      const pending = this.pending;
      this.pending = null;
      pending?.reject(new Error(`driver exited (${signal ?? code ?? "?"})`));
    });
  }

  async send(command: DriverCommand, timeoutMs: number): Promise<DriverReply & { type: "ok" }> {
    if (this.pending !== null) throw new Error("driver is busy");
    if (interrupted) throw new Error("interrupted");
    const reply = await new Promise<DriverReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = null;
        reject(new Error(`driver did not finish '${command.type}' within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      this.pending = {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.child.send(command);
    });
    if (reply.type === "error") throw new Error(`${command.type}: ${reply.message}`);
    return reply;
  }

  kill(): void {
    drivers.delete(this);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }
}

/** The load generator's CPU per operation in the measured window (every thread of its process). */
function driverMicrosPerOp(cell: CellResult | undefined): number {
  if (cell === undefined || cell.ops === 0) return NaN;
  return Math.round(((cell.driverCpuPercent / 100) * cell.seconds * 1e6) / cell.ops);
}

function log(message: string): void {
  console.log(`[bench:compare ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

async function postgresVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: postgresUrl });
  try {
    await client.connect();
    return (
      (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? "?"
    );
  } catch (error) {
    return `unreachable (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function versions(postgres: string): Record<string, string> {
  const redis = commandVersion("redis-server", ["--version"]);
  const nats = commandVersion(natsServerPath, ["--version"]);
  return {
    ess: essVersion(),
    node: process.version,
    postgres,
    redis: redis === null ? "not installed" : (/v=(\S+)/.exec(redis)?.[1] ?? redis),
    "nats-server": nats === null ? "not installed" : nats.replace(/^nats-server:\s*/, ""),
  };
}

async function runRow(
  definition: (typeof rowDefinitions)[number],
  settings: RowSettings,
): Promise<RowResult> {
  const result: RowResult = {
    id: definition.id,
    label: definition.label,
    durable: definition.durable,
    durability: definition.durability,
    status: "ok",
    cells: [],
  };
  const unavailable = definition.unavailable();
  if (unavailable !== null) {
    log(`${definition.id}: skipped (${unavailable})`);
    return { ...result, status: "skipped", reason: unavailable };
  }
  let started: Awaited<ReturnType<typeof definition.start>> | null = null;
  let driver: Driver | null = null;
  const cellTimeoutMs = (warmupSeconds + seconds + 60) * 1000;
  try {
    log(`${definition.id}: starting`);
    started = await definition.start(settings);
    result.configuration = started.configuration;
    const cpuAtStart = started.server?.cpuSeconds() ?? null;
    driver = new Driver();
    await driver.send({ type: "open", target: started.target }, 60_000);
    let eventsStored = 0;
    const server = started.server;
    /** Runs a cell and adds the server's CPU per operation when the server is one process of ours. */
    const cpuNow = async (): Promise<Map<number, number> | null> => {
      if (server !== null) {
        const seconds = server.cpuSeconds();
        return seconds === null ? null : new Map([[server.pid, seconds]]);
      }
      return started?.cpuByProcess ? await started.cpuByProcess() : null;
    };
    const cell = async (command: DriverCommand): Promise<DriverReply & { type: "ok" }> => {
      const before = await cpuNow();
      const reply = await driver!.send(command, cellTimeoutMs);
      const after = await cpuNow();
      if (reply.cell) {
        if (before !== null && after !== null && reply.cell.opsTotal > 0) {
          let used = 0;
          for (const [pid, seconds] of after) used += seconds - (before.get(pid) ?? 0);
          reply.cell.serverCpuMicrosPerOp = (used * 1e6) / reply.cell.opsTotal;
        }
        result.cells.push(reply.cell);
      }
      return reply;
    };
    for (const concurrency of appendConcurrency) {
      const reply = await cell({ type: "append", concurrency, warmupSeconds, seconds });
      eventsStored = reply.eventsStored;
      log(
        `${definition.id}: append c=${concurrency}: ${Math.round(reply.cell?.opsPerSecond ?? 0)}/s ` +
          `p50 ${reply.cell?.p50Ms.toFixed(2)} ms p99 ${reply.cell?.p99Ms.toFixed(2)} ms, ` +
          `server CPU ${Math.round(reply.cell?.serverCpuMicrosPerOp ?? NaN)} µs/op, ` +
          `load generator CPU ${driverMicrosPerOp(reply.cell)} µs/op`,
      );
    }
    // BENCH_READS=0 leaves the read cell out (append-only profiles).
    if (process.env.BENCH_READS !== "0") {
      const preload = await driver.send(
        { type: "preload", streams: readStreams, concurrency: preloadConcurrency },
        300_000,
      );
      result.preloadSeconds = preload.preloadSeconds;
      log(`${definition.id}: preloaded ${readStreams} streams in ${preload.preloadSeconds?.toFixed(1)} s`);
      const read = await cell({
        type: "read",
        concurrency: readConcurrency,
        warmupSeconds,
        seconds,
        streams: readStreams,
      });
      eventsStored = read.eventsStored;
      log(
        `${definition.id}: read c=${readConcurrency}: ${Math.round(read.cell?.opsPerSecond ?? 0)}/s ` +
          `p50 ${read.cell?.p50Ms.toFixed(2)} ms p99 ${read.cell?.p99Ms.toFixed(2)} ms, ` +
          `server CPU ${Math.round(read.cell?.serverCpuMicrosPerOp ?? NaN)} µs/op, ` +
          `load generator CPU ${driverMicrosPerOp(read.cell)} µs/op`,
      );
    }
    result.eventsStored = eventsStored;
    const rssNote = started.peakRssNote ? await started.peakRssNote() : null;
    if (rssNote !== null) {
      result.peakRssBytes = rssNote.bytes;
      result.peakRssNote = rssNote.note;
    }
    await driver.send({ type: "close" }, 30_000);
    result.diskBytes = await started.diskBytes();
    if (started.server !== null) {
      result.peakRssBytes = started.server.peakRssBytes() ?? undefined;
      const cpuAtEnd = started.server.cpuSeconds();
      if (cpuAtStart !== null && cpuAtEnd !== null) result.serverCpuSeconds = cpuAtEnd - cpuAtStart;
    }
    if (started.facts) result.facts = (await started.facts()) ?? undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`${definition.id}: FAILED: ${message}`);
    result.status = "failed";
    result.reason = message.replace(/\|/g, "/").replace(/\n/g, " ");
  } finally {
    driver?.kill();
    await started?.stop().catch((error: unknown) => log(`${definition.id}: stop failed: ${String(error)}`));
  }
  return result;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  // Taken before anything runs: the commit (and whether the tree is clean) of the code measured,
  // whatever is edited while the run goes on.
  const runVersions = versions(await postgresVersion());
  const loadAverageStart = os.loadavg();
  const tempRoot = mkdtempSync(join(os.tmpdir(), "ess-bench-compare-"));
  const cleanUp = async (): Promise<void> => {
    await Promise.all(runningProcesses().map((p) => p.stop(5000)));
    rmSync(tempRoot, { recursive: true, force: true });
  };
  // Ctrl-C: stop the servers now, which fails the row in progress at once; its own clean-up
  // (driver killed, PostgreSQL schema dropped) then runs, and so does the rest below.
  process.once("SIGINT", () => {
    interrupted = true;
    log("interrupted: stopping everything started");
    for (const driver of drivers) driver.kill();
    void Promise.all(runningProcesses().map((p) => p.stop(5000)));
  });
  if (essCpuProfileDir !== null) mkdirSync(essCpuProfileDir, { recursive: true });
  if (process.env.BENCH_ESS_MAIN !== undefined) log(`ess server: ${process.env.BENCH_ESS_MAIN}`);
  if (process.env.BENCH_LOAD_GENERATOR !== undefined) log(`load generator: ${driverPath}`);

  const roundRows: RowResult[][] = [];
  try {
    const chosen = rowDefinitions.filter((r) => rowFilter.length === 0 || rowFilter.includes(r.id));
    if (chosen.length === 0)
      throw new Error(`BENCH_ROWS names no row; rows: ${rowDefinitions.map((r) => r.id).join(", ")}`);
    for (let round = 1; round <= rounds && !interrupted; round++) {
      // Every other round runs the rows backwards, so that a machine that gets faster or slower
      // during the run does not favour the rows that come first.
      const order = round % 2 === 1 ? chosen : [...chosen].reverse();
      log(`round ${round} of ${rounds}: ${order.map((d) => d.id).join(", ")}`);
      const results = new Map<string, RowResult>();
      for (const definition of order) {
        if (interrupted) break;
        const dir = join(tempRoot, `${definition.id}-round-${round}`);
        mkdirSync(dir);
        results.set(
          definition.id,
          await runRow(definition, { dir, postgresUrl, postgresPoolSize, essCpuProfileDir }),
        );
      }
      roundRows.push(chosen.flatMap((d) => results.get(d.id) ?? []));
    }
  } finally {
    await cleanUp();
  }
  if (interrupted) {
    log("interrupted: everything started was stopped and removed; BENCHMARKS.md left as it is");
    process.exitCode = 130;
    return;
  }

  const run: RunResult = {
    startedAt: startedAt.toISOString().replace(/\.\d+Z$/, "Z"),
    durationSeconds: (Date.now() - startedAt.getTime()) / 1000,
    machine: machineFacts(),
    loadAverageStart,
    loadAverageEnd: os.loadavg(),
    versions: runVersions,
    settings: { rounds, seconds, warmupSeconds, readStreams, appendConcurrency },
    rounds: roundRows,
    rerun: "npm run bench:compare",
  };
  const generated = renderGenerated(run);
  console.log(`\n${generated}\n`);
  if (process.env.BENCH_JSON_OUT) writeFileSync(process.env.BENCH_JSON_OUT, JSON.stringify(run, null, 2));
  if (process.env.BENCH_NO_WRITE === "1") {
    log("BENCH_NO_WRITE=1: BENCHMARKS.md left as it is");
  } else if (
    rowFilter.length > 0 ||
    process.env.BENCH_ESS_MAIN !== undefined ||
    process.env.BENCH_LOAD_GENERATOR !== undefined ||
    process.env.BENCH_APPEND_CONCURRENCY !== undefined ||
    process.env.BENCH_READS === "0"
  ) {
    log(
      "BENCH_ROWS, BENCH_APPEND_CONCURRENCY, BENCH_READS, BENCH_ESS_MAIN or BENCH_LOAD_GENERATOR limit or mix the run: BENCHMARKS.md left as it is (a partial table would mislead)",
    );
  } else {
    writeBenchmarksSection(join(repoRoot, "BENCHMARKS.md"), generated);
    log("wrote the 'Comparison with peers' section of BENCHMARKS.md");
  }
  if (roundRows.some((round) => round.some((r) => r.status === "failed"))) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

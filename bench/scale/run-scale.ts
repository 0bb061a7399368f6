/**
 * `npm run bench:scale`: how the log engine behaves as the store grows. Loads N events into a
 * real `ess serve` child process (log engine, fresh temp data directory, REST gateway on
 * 127.0.0.1) through POST /v1/streams/{id}/append in batches from several concurrent clients,
 * then measures what the store costs, restarts it after kill -9 and after a clean stop, and
 * samples random reads; prints the results and writes the "Scale" section of BENCHMARKS.md.
 *
 * Steps: start on the empty directory (timed to healthy); load, sampling the server's VmRSS and
 * the rate at every tenth of N; read Admin storage-status and the directory's size; kill -9 at
 * once (the restart reads again whatever the index files on disk do not cover) and time the
 * restart to a healthy GET /v1/health; SIGTERM and time the clean restart; after each restart
 * check that every acknowledged event is there; then time random single-event reads.
 * Invariants: loopback only; the run is bounded (BENCH_SCALE_MAX_MINUTES) and ends by itself;
 * the server is killed and the temp directory removed on every way out (error, Ctrl-C, SIGTERM).
 *
 * Settings (environment): BENCH_SCALE_EVENTS (N, default 10,000,000; at least ten batches),
 * BENCH_SCALE_CLIENTS (concurrent load clients, 4), BENCH_SCALE_STREAMS (10,000),
 * BENCH_SCALE_BATCH (events per append, 1,000, at most the server's limit),
 * BENCH_SCALE_READS (random reads at the end, 2,000), BENCH_SCALE_MAX_MINUTES (the whole run's
 * bound, 180), BENCH_SCALE_DIR (where the temp data directory goes, default the OS temp dir),
 * BENCH_SCALE_KEEP=1 (keep that directory and the server log), BENCH_NO_WRITE=1 (print only,
 * leave BENCHMARKS.md as it is), BENCH_SCALE_TRACE (a file to write the load's readings to, one
 * JSON line per hundredth).
 *
 * Beside the rate, each tenth records the server's garbage collections (the server runs with
 * --trace-gc; its log is read as it grows), its main thread's CPU apart from its other threads',
 * and the machine's page reclaim, page cache and CPU (probes.ts).
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { Pool } from "undici";
import { limits } from "../../src/limits.js";
import { essMain, essVersion, machineFacts, repoRoot } from "../benchmarks-md.js";
import {
  diskBytes,
  essSegmentFile,
  freePort,
  readVmHwmBytes,
  readCpuTimes,
  readVmRssBytes,
  runningProcesses,
  startProcess,
  type ServerProcess,
} from "../compare/processes.js";
import { LatencyRecorder, eventBytes, eventType, makeEventJson, nowMicros } from "../compare/workload.js";
import {
  renderScale,
  TenthsRecorder,
  writeScaleSection,
  type RestartResult,
  type ScaleResult,
} from "./report.js";
import {
  GcLogTally,
  MachineSpeed,
  findReclaimThreads,
  readCpuSum,
  readMachineCpu,
  readMainThreadCpu,
  readMeminfo,
  readVmstat,
  type GcTotals,
  type ProbeReading,
  type VmstatReading,
} from "./probes.js";

function integerSetting(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw.replace(/_/g, ""));
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    // Read before anything starts, so there is nothing to clean up.
    console.error(`bench:scale: ${name}: '${raw}' is not a whole number from ${min} to ${max}`);
    process.exit(2);
  }
  return value;
}

const batch = integerSetting("BENCH_SCALE_BATCH", 1000, 1, limits.appendEventsMax);
const events = integerSetting("BENCH_SCALE_EVENTS", 10_000_000, 10 * batch);
const clients = integerSetting("BENCH_SCALE_CLIENTS", 4, 1, 256);
const streams = integerSetting("BENCH_SCALE_STREAMS", 10_000, 1);
const readCount = integerSetting("BENCH_SCALE_READS", 2000, 1, 10_000_000);
const maxMinutes = integerSetting("BENCH_SCALE_MAX_MINUTES", 180, 1);
const keep = process.env.BENCH_SCALE_KEEP === "1";
/** A generous guess of the disk a stored event takes, with its index. */
const diskBytesPerEventGuess = 600;
/** How long a restart may take to become healthy, and a clean stop to end, before the run fails. */
const restartTimeoutMs = 15 * 60_000;
const stopGraceMs = 15 * 60_000;
const password = randomBytes(12).toString("hex");
const deadline = Date.now() + maxMinutes * 60_000;

let interrupted = false;

function log(message: string): void {
  console.log(`[bench:scale ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** Throws when the run has to end: Ctrl-C, SIGTERM or the time bound. */
function checkGoOn(): void {
  if (interrupted) throw new Error("interrupted");
  if (Date.now() > deadline)
    throw new Error(`the run took longer than BENCH_SCALE_MAX_MINUTES=${maxMinutes}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function streamName(index: number): string {
  return `scale-${index}`;
}

interface Answer {
  status: number;
  text: string;
}

/** One server generation's HTTP client: an undici Pool with one keep-alive connection per client. */
class EssClient {
  private readonly pool: Pool;
  private token = "";

  constructor(baseUrl: string, connections: number) {
    this.pool = new Pool(baseUrl, { connections, pipelining: 1 });
  }

  async call(
    method: "GET" | "POST",
    path: string,
    body?: string | Buffer,
    timeoutMs = 300_000,
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.token !== "") headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await this.pool.request({
      method,
      path,
      headers,
      body: body ?? null,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return { status: response.statusCode, text: await response.body.text() };
  }

  async login(): Promise<void> {
    const answer = await this.call("POST", "/v1/auth/login", JSON.stringify({ username: "admin", password }));
    if (answer.status !== 200) throw new Error(`login failed: HTTP ${answer.status} ${answer.text}`);
    this.token = (JSON.parse(answer.text) as { access_token: string }).access_token;
  }

  async getJson<T>(path: string): Promise<T> {
    const answer = await this.call("GET", path);
    if (answer.status !== 200)
      throw new Error(`GET ${path}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
    return JSON.parse(answer.text) as T;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

interface StorageStatus {
  events_total: number;
  streams_total: number;
  bytes_total: number;
  segments: unknown[];
  index?: { memory_bytes: number };
}

/** The server as it runs now; replaced on each restart. */
interface Running {
  process: ServerProcess;
  client: EssClient;
}

interface Ports {
  rest: number;
  rpc: number;
}

function startEss(dir: string, dataDir: string, ports: Ports): Running {
  // The server gets only the settings chosen here: an operator's SERVICE_* (TLS, postgres,
  // other listeners) must not change what is measured.
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("SERVICE_")) env[key] = value;
  Object.assign(env, {
    SERVICE_STORAGE: "log",
    SERVICE_DATA_DIR: dataDir,
    SERVICE_RPC_ADDRESS: `127.0.0.1:${ports.rpc}`,
    SERVICE_REST_ENABLED: "true",
    SERVICE_REST_ADDRESS: `127.0.0.1:${ports.rest}`,
    SERVICE_WS_ENABLED: "false",
    SERVICE_ADMIN_PASSWORD: password,
    // A load of 50M events can outlast the default hour of a token.
    SERVICE_TOKEN_TTL: String(7 * 24 * 3600),
  });
  // --trace-gc: one line per collection in the server's log, which the load reads per tenth.
  const serverProcess = startProcess("ess serve", process.execPath, ["--trace-gc", essMain, "serve"], {
    logPath: join(dir, "ess.log"),
    cwd: dir,
    env,
  });
  return { process: serverProcess, client: new EssClient(`http://127.0.0.1:${ports.rest}`, clients) };
}

/** Seconds from startedAt until GET /v1/health answers "ok"; throws if the server exits first. */
async function waitHealthy(server: Running, startedAt: number): Promise<number> {
  const state: { exit: string | null } = { exit: null };
  void server.process.exited.then((how) => (state.exit = how));
  const until = Math.min(deadline, Date.now() + restartTimeoutMs);
  while (Date.now() < until) {
    if (interrupted) throw new Error("interrupted");
    if (state.exit !== null) throw new Error(`ess serve exited (${state.exit}) before it was healthy`);
    try {
      const answer = await server.client.call("GET", "/v1/health", undefined, 5000);
      if (answer.status === 200 && (JSON.parse(answer.text) as { status?: string }).status === "ok")
        return (performance.now() - startedAt) / 1000;
    } catch {
      // Not listening yet (connection refused) or not answering yet.
    }
    await sleep(20);
  }
  throw new Error(
    `ess serve was not healthy ${Math.round((performance.now() - startedAt) / 1000)} s after it started`,
  );
}

function batchBody(firstSequence: number, size: number): Buffer {
  const items: string[] = [];
  for (let i = 0; i < size; i++)
    items.push(`{"event_type":"${eventType}","data":${makeEventJson(firstSequence + i)}}`);
  return Buffer.from(`{"events":[${items.join(",")}]}`);
}

/** Counts how many events each stream holds, for the random reads. */
interface Loaded {
  streamEvents: Uint32Array;
  batches: number;
}

async function load(server: Running, tenths: TenthsRecorder): Promise<Loaded & { seconds: number }> {
  const batches = Math.ceil(events / batch);
  const lastSize = events - (batches - 1) * batch;
  // A few distinct bodies, built once: the load generator must not take the CPU the server needs.
  const bodies = Array.from({ length: 8 }, (_, k) => batchBody(k * batch, batch));
  const lastBody = batchBody(0, lastSize);
  const streamEvents = new Uint32Array(Math.min(streams, batches));
  const pid = server.process.pid;
  const startCpu = readCpuTimes(pid);
  const speed = new MachineSpeed();
  speed.start();
  const probe = probeSince(pid, server.process.logPath, speed);
  const trace = hundredthsTrace(pid, probeSince(pid, server.process.logPath, null));
  const started = performance.now();
  let next = 0;
  let acknowledged = 0;
  // An object, so that the checks after the workers see what they set.
  const state: { failure: Error | null } = { failure: null };
  const worker = async (): Promise<void> => {
    while (state.failure === null) {
      const b = next++;
      if (b >= batches) return;
      try {
        checkGoOn();
        const size = b === batches - 1 ? lastSize : batch;
        const stream = b % streams;
        const body = size === batch ? bodies[b % bodies.length]! : lastBody;
        const answer = await server.client.call("POST", `/v1/streams/${streamName(stream)}/append`, body);
        if (answer.status !== 200)
          throw new Error(
            `append to ${streamName(stream)}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`,
          );
        const result = JSON.parse(answer.text) as { count: number };
        if (result.count !== size)
          throw new Error(`append to ${streamName(stream)} stored ${result.count} of ${size}`);
        streamEvents[stream]! += size;
        acknowledged += size;
        trace?.(acknowledged, (performance.now() - started) / 1000);
        for (const sample of tenths.record(
          acknowledged,
          (performance.now() - started) / 1000,
          () => readVmRssBytes(pid),
          () => {
            const cpu = readCpuTimes(pid);
            return cpu === null || startCpu === null
              ? null
              : { user: cpu.user - startCpu.user, system: cpu.system - startCpu.system };
          },
          probe,
        )) {
          log(
            `${sample.tenth}/10: ${sample.events} events in ${sample.seconds.toFixed(1)} s, ` +
              `RSS ${sample.rssBytes === null ? "?" : Math.round(sample.rssBytes / 1024 / 1024)} MiB, ` +
              `server CPU ${sample.cpuSeconds === null ? "?" : sample.cpuSeconds.toFixed(1)} s ` +
              `(system ${sample.systemCpuSeconds === null ? "?" : sample.systemCpuSeconds.toFixed(1)} s)` +
              probeLine(sample.probe ?? null),
          );
        }
      } catch (error) {
        state.failure ??= error instanceof Error ? error : new Error(String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, () => worker()));
  speed.stop();
  if (state.failure !== null) throw state.failure;
  return { streamEvents, batches, seconds: (performance.now() - started) / 1000 };
}

/**
 * A reader of the probes (probes.ts) whose running totals start at 0 now: the server's GC from
 * its log, its main thread's CPU, and the machine's reclaim counters (the page cache as it is).
 */
function probeSince(pid: number, logPath: string, speed: MachineSpeed | null): () => ProbeReading {
  const tally = new GcLogTally(logPath);
  const gc0 = tally.read();
  const main0 = readMainThreadCpu(pid);
  const vm0 = readVmstat();
  const cpu0 = readMachineCpu();
  const reclaimPids = findReclaimThreads();
  const reclaim0 = readCpuSum(reclaimPids);
  return () => {
    const cpu = readMachineCpu();
    const gc = tally.read();
    const main = readMainThreadCpu(pid);
    const vm = readVmstat();
    const gcSince: GcTotals = {
      scavenges: gc.scavenges - gc0.scavenges,
      scavengeMs: gc.scavengeMs - gc0.scavengeMs,
      markCompacts: gc.markCompacts - gc0.markCompacts,
      markCompactMs: gc.markCompactMs - gc0.markCompactMs,
      incrementalMs: gc.incrementalMs - gc0.incrementalMs,
      heapAfterMarkCompactMb: gc.heapAfterMarkCompactMb,
    };
    let vmSince: VmstatReading | null = null;
    if (vm !== null && vm0 !== null) {
      vmSince = { ...vm };
      for (const key of Object.keys(vm) as (keyof VmstatReading)[]) vmSince[key] = vm[key] - vm0[key];
    }
    return {
      gc: gcSince,
      mainThread:
        main === null || main0 === null
          ? null
          : { user: main.user - main0.user, system: main.system - main0.system },
      vmstat: vmSince,
      meminfo: readMeminfo(),
      machineCpu:
        cpu === null || cpu0 === null
          ? null
          : { busy: cpu.busy - cpu0.busy, idle: cpu.idle - cpu0.idle, steal: cpu.steal - cpu0.steal },
      reclaimCpuSeconds: readCpuSum(reclaimPids) - reclaim0,
      speed: speed?.take() ?? null,
    };
  };
}

/**
 * With BENCH_SCALE_TRACE=<file>: one line of JSON per hundredth of the load (events, seconds,
 * the server's CPU and the probes' running totals), to see the shape of a slow stretch that a
 * tenth would average away.
 */
function hundredthsTrace(
  pid: number,
  probe: () => ProbeReading,
): ((acknowledged: number, seconds: number) => void) | null {
  const path = process.env.BENCH_SCALE_TRACE;
  if (path === undefined || path === "") return null;
  writeFileSync(path, "");
  const step = Math.max(1, Math.floor(events / 100));
  let next = step;
  return (acknowledged, seconds) => {
    if (acknowledged < next) return;
    while (next <= acknowledged) next += step;
    appendFileSync(
      path,
      `${JSON.stringify({ events: acknowledged, seconds, cpu: readCpuTimes(pid), rss: readVmRssBytes(pid), ...probe() })}\n`,
    );
  };
}

/** The probe's running totals, for the progress line. */
function probeLine(p: ProbeReading | null): string {
  if (p === null) return "";
  const parts: string[] = [];
  if (p.mainThread !== null)
    parts.push(`main thread ${(p.mainThread.user + p.mainThread.system).toFixed(1)} s`);
  if (p.gc !== null)
    parts.push(
      `GC: ${p.gc.scavenges} scavenges ${Math.round(p.gc.scavengeMs)} ms, ${p.gc.markCompacts} mark-compacts ` +
        `${Math.round(p.gc.markCompactMs)} + ${Math.round(p.gc.incrementalMs)} ms, heap ${p.gc.heapAfterMarkCompactMb} MB`,
    );
  if (p.vmstat !== null) parts.push(`pgscan ${p.vmstat.pgscan_kswapd}/${p.vmstat.pgscan_direct}`);
  if (p.meminfo !== null) parts.push(`Cached ${Math.round(p.meminfo.cached / 1048576)} MiB`);
  return `; ${parts.join(", ")}`;
}

async function storageStatus(server: Running): Promise<StorageStatus> {
  return server.client.getJson<StorageStatus>("/v1/admin/storage-status");
}

async function restart(
  current: Running,
  kind: RestartResult["kind"],
  start: () => Running,
): Promise<{ server: Running; result: RestartResult }> {
  checkGoOn();
  const stopAt = performance.now();
  if (kind === "kill -9") await current.process.kill();
  else await current.process.stop(stopGraceMs);
  const stopSeconds = (performance.now() - stopAt) / 1000;
  const exit = await current.process.exited;
  await current.client.close();
  const startedAt = performance.now();
  const server = start();
  const healthySeconds = await waitHealthy(server, startedAt);
  const rssBytes = readVmRssBytes(server.process.pid);
  await server.client.login();
  const status = await storageStatus(server);
  if (status.events_total !== events)
    throw new Error(
      `after ${kind} the server holds ${status.events_total} events; ${events} were acknowledged`,
    );
  log(
    `${kind}: stopped in ${stopSeconds.toFixed(2)} s (${exit}), healthy ${healthySeconds.toFixed(2)} s after ` +
      `restart, RSS ${rssBytes === null ? "?" : Math.round(rssBytes / 1024 / 1024)} MiB`,
  );
  return {
    server,
    result: { kind, stopSeconds, exit, healthySeconds, rssBytes, eventsAfter: status.events_total },
  };
}

async function randomReads(server: Running, loaded: Loaded): Promise<ScaleResult["reads"]> {
  const recorder = new LatencyRecorder(readCount);
  let maxMicros = 0;
  for (let i = 0; i < readCount; i++) {
    checkGoOn();
    // A random batch's stream: streams are picked in proportion to the events they hold.
    const stream = Math.floor(Math.random() * loaded.batches) % streams;
    const revision = Math.floor(Math.random() * loaded.streamEvents[stream]!);
    const path = `/v1/streams/${streamName(stream)}?from=${revision}&limit=1`;
    const t0 = nowMicros();
    const answer = await server.client.call("GET", path);
    const micros = nowMicros() - t0;
    if (answer.status !== 200)
      throw new Error(`GET ${path}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
    const got = (JSON.parse(answer.text) as { events: { revision: number }[] }).events;
    if (got.length !== 1 || got[0]!.revision !== revision)
      throw new Error(`GET ${path} did not return revision ${revision}`);
    recorder.record(micros);
    maxMicros = Math.max(maxMicros, micros);
  }
  const [p50Ms, p99Ms] = recorder.percentilesMs([50, 99]);
  return { count: readCount, limit: 1, p50Ms: p50Ms!, p99Ms: p99Ms!, maxMs: maxMicros / 1000 };
}

async function run(dir: string, startedAt: Date): Promise<ScaleResult> {
  const dataDir = join(dir, "data");
  mkdirSync(dataDir);
  const ports = { rest: await freePort(), rpc: await freePort() };
  const start = (): Running => startEss(dir, dataDir, ports);
  const loadAverageStart = os.loadavg();

  let t0 = performance.now();
  let server = start();
  const firstStartSeconds = await waitHealthy(server, t0);
  await server.client.login();
  log(
    `ess serve (pid ${server.process.pid}) healthy in ${firstStartSeconds.toFixed(2)} s; loading ${events} events`,
  );

  const tenths = new TenthsRecorder(events);
  const loaded = await load(server, tenths);
  const peakRssBytes = readVmHwmBytes(server.process.pid);
  log(`loaded in ${loaded.seconds.toFixed(1)} s (${Math.round(events / loaded.seconds)} events/s)`);

  const status = await storageStatus(server);
  if (status.events_total !== events)
    throw new Error(`storage-status reports ${status.events_total} events; ${events} were acknowledged`);
  const storage: ScaleResult["storage"] = {
    eventsTotal: status.events_total,
    streamsTotal: status.streams_total,
    segments: status.segments.length,
    indexMemoryBytes: status.index?.memory_bytes ?? NaN,
    indexFileBytes: indexFilesBytes(dataDir),
    indexFileBytesAfterStop: NaN,
    logBytes: status.bytes_total,
    diskBytes: diskBytes(dataDir, essSegmentFile),
  };

  const restarts: RestartResult[] = [];
  for (const kind of ["kill -9", "clean stop (SIGTERM)"] as const) {
    const next = await restart(server, kind, start);
    server = next.server;
    restarts.push(next.result);
  }

  log(`${readCount} random reads`);
  t0 = performance.now();
  const reads = await randomReads(server, loaded);
  log(
    `reads: p50 ${reads.p50Ms.toFixed(2)} ms, p99 ${reads.p99Ms.toFixed(2)} ms (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  await server.process.stop(stopGraceMs);
  await server.client.close();
  storage.indexFileBytesAfterStop = indexFilesBytes(dataDir);

  return {
    startedAt: startedAt.toISOString().replace(/\.\d+Z$/, "Z"),
    durationSeconds: (Date.now() - startedAt.getTime()) / 1000,
    machine: machineFacts(),
    loadAverageStart,
    loadAverageEnd: os.loadavg(),
    versions: { ess: essVersion(), node: process.version },
    settings: { events, batch, clients, streams, eventBytes },
    firstStartSeconds,
    tenths: tenths.samples,
    loadSeconds: loaded.seconds,
    peakRssBytes,
    storage,
    restarts,
    reads,
    rerun: events === 10_000_000 ? "npm run bench:scale" : `BENCH_SCALE_EVENTS=${events} npm run bench:scale`,
  };
}

/** Bytes of the index's files: one per sealed segment (`*.idx`), or an older version's `index.ckpt`. */
function indexFilesBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    if (name.endsWith(".idx") || name === "index.ckpt") total += statSync(join(dir, name)).size;
  }
  return total;
}

/** The last lines of the server's log, for an error message. */
function logTail(path: string): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-15).join("\n");
  } catch {
    return "(no server log)";
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  if (!existsSync(essMain)) throw new Error(`${essMain} is missing: run npm run build first`);
  const parent = process.env.BENCH_SCALE_DIR ?? os.tmpdir();
  const fs = statfsSync(parent);
  const free = fs.bavail * fs.bsize;
  const needed = events * diskBytesPerEventGuess;
  if (free < needed)
    throw new Error(
      `${parent} has ${(free / 1024 ** 3).toFixed(1)} GiB free; ${events} events need about ` +
        `${(needed / 1024 ** 3).toFixed(1)} GiB (set BENCH_SCALE_DIR to a roomier place)`,
    );
  const dir = mkdtempSync(join(parent, "ess-bench-scale-"));
  const killAll = (): void => {
    for (const p of runningProcesses()) void p.kill();
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupted = true;
    log(`${signal}: killing the server and stopping`);
    killAll();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  // Whatever else happens, no server outlives this process.
  process.once("exit", () => {
    for (const p of runningProcesses()) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
  log(`N=${events}, ${clients} clients, ${streams} streams, ${batch}-event batches; data in ${dir}`);
  let result: ScaleResult;
  try {
    result = await run(dir, startedAt);
  } catch (error) {
    if (!interrupted) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${message}\nlast lines of the server log:\n${logTail(join(dir, "ess.log"))}`, {
        cause: error,
      });
    }
    throw error;
  } finally {
    killAll();
    await Promise.all(runningProcesses().map((p) => p.exited));
    if (keep) log(`BENCH_SCALE_KEEP=1: data and server log kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  const generated = renderScale(result);
  console.log(`\n${generated}\n`);
  if (process.env.BENCH_NO_WRITE === "1") {
    log("BENCH_NO_WRITE=1: BENCHMARKS.md left as it is");
  } else {
    writeScaleSection(join(repoRoot, "BENCHMARKS.md"), generated);
    log("wrote the 'Scale' section of BENCHMARKS.md");
  }
}

main().catch((error: unknown) => {
  if (interrupted) {
    log("interrupted: the server was killed and its directory removed; BENCHMARKS.md left as it is");
    process.exitCode = 130;
  } else {
    console.error(`bench:scale failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
});

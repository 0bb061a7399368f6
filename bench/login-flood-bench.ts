/**
 * Login flood benchmark: does a flood of wrong-password logins slow other clients' appends?
 *
 * The server is a real `ess serve` child process (log engine in a temporary directory, REST on
 * 127.0.0.1). One client appends single events one after another on a keep-alive connection and
 * records each append's latency (answered only once fsync'd), in three phases of
 * BENCH_SECONDS seconds (default 8):
 *   - quiet: nothing else runs;
 *   - flood, one address: 64 connections from 127.0.0.1 send wrong-password logins for `admin`
 *     as fast as they are answered (ignoring Retry-After, as an attacker would);
 *   - flood, 64 addresses: the same from 127.0.3.1 .. 127.0.3.64, each login for a random
 *     username, so neither the per-username nor (for the few seconds of a phase) the per-address
 *     throttle holds it back: what protects the appends is the bound on hashing alone;
 *   - for reference, flood of health checks: 64 connections sending `GET /v1/health` as fast as
 *     they are answered, the cheapest request there is: what any request flood of that size costs
 *     the appends (event-loop turns and CPU), with no password in it.
 * The flood runs in a child process of its own (this file with --flood), so it shares no event
 * loop with the measuring client; all three processes share the machine's cores.
 *
 * Run: npm run bench:login-flood. BENCH_ESS_CLI=/path/to/dist/src/cli/main.js runs another
 * build of the server (for example the code before the hashing bound and the throttle).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startEssChild } from "./ess-child.js";

const password = "bench-admin-password";
const floodConnections = 64;

interface FloodSpec {
  url: string;
  /** Source addresses, one per connection (cycled). */
  addresses: string[];
  /** true: a random username per login; false: always `admin`. */
  randomUsernames: boolean;
  /** true: GET /v1/health instead of logins. */
  health?: boolean;
}

interface FloodCounts {
  answered: Record<string, number>;
  errors: number;
}

interface Answer {
  status: number;
  body: string;
}

function send(
  url: URL,
  agent: Agent,
  method: string,
  path: string,
  body: unknown,
  token: string | null,
): Promise<Answer> {
  const text = body === undefined ? "" : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent,
        headers: {
          ...(body === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(text) }),
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        },
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (data += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** The flood child: requests on `floodConnections` connections until SIGTERM, then its counts on stdout. */
async function flood(spec: FloodSpec): Promise<void> {
  const url = new URL(spec.url);
  const counts: FloodCounts = { answered: {}, errors: 0 };
  let running = true;
  process.on("SIGTERM", () => {
    running = false;
  });
  const worker = async (i: number): Promise<void> => {
    const localAddress = spec.addresses[i % spec.addresses.length];
    const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress });
    while (running) {
      const username = spec.randomUsernames ? randomUUID() : "admin";
      try {
        const answer =
          spec.health === true
            ? await send(url, agent, "GET", "/v1/health", undefined, null)
            : await send(url, agent, "POST", "/v1/auth/login", { username, password: "wrong" }, null);
        counts.answered[answer.status] = (counts.answered[answer.status] ?? 0) + 1;
      } catch {
        counts.errors++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    agent.destroy();
  };
  await Promise.all(Array.from({ length: floodConnections }, (_, i) => worker(i)));
  process.stdout.write(JSON.stringify(counts));
}

function startFlood(spec: FloodSpec): { stop: () => Promise<FloodCounts> } {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--flood", JSON.stringify(spec)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
      return JSON.parse(out) as FloodCounts;
    },
  };
}

async function startServer(
  cli: string,
  dataDir: string,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = await startEssChild({ dataDir, adminPassword: password, listener: "rest", cli });
  return { url: `http://${child.address}`, stop: child.stop };
}

interface PhaseResult {
  phase: string;
  appends: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Flood answers by HTTP status during the phase (none for quiet). */
  logins: Record<string, number>;
  login_errors: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, index)] ?? Number.NaN) * 10) / 10;
}

/** Sequential single-event appends for `seconds`, each one's latency in milliseconds. */
async function measureAppends(url: URL, token: string, stream: string, seconds: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let i = 0;
  while (performance.now() < end) {
    const started = performance.now();
    const answer = await send(
      url,
      agent,
      "POST",
      `/v1/streams/${stream}/append`,
      { event_type: "Tick", data: { i: i++, note: "an append during a login flood" } },
      token,
    );
    if (answer.status !== 200) throw new Error(`append answered ${answer.status}: ${answer.body}`);
    latencies.push(performance.now() - started);
  }
  agent.destroy();
  return latencies;
}

export async function runLoginFloodBench(
  cli = process.env.BENCH_ESS_CLI ?? fileURLToPath(new URL("../src/cli/main.js", import.meta.url)),
  seconds = Number(process.env.BENCH_SECONDS ?? 8),
): Promise<{ cli: string; seconds_per_phase: number; load_average_1m: number; phases: PhaseResult[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-login-flood-"));
  const server = await startServer(cli, dataDir);
  try {
    const url = new URL(server.url);
    const setup = new Agent({ keepAlive: false });
    const login = await send(url, setup, "POST", "/v1/auth/login", { username: "admin", password }, null);
    const token = (JSON.parse(login.body) as { access_token: string }).access_token;
    // Warm-up (JIT, the stream's first segment), not counted.
    await measureAppends(url, token, "warm-up", 1);

    const phases: PhaseResult[] = [];
    const specs: { phase: string; flood: FloodSpec | null }[] = [
      { phase: "quiet", flood: null },
      {
        phase: "flood, one address",
        flood: { url: server.url, addresses: ["127.0.0.1"], randomUsernames: false },
      },
      {
        phase: "flood, 64 addresses",
        flood: {
          url: server.url,
          addresses: Array.from({ length: floodConnections }, (_, i) => `127.0.3.${i + 1}`),
          randomUsernames: true,
        },
      },
      {
        phase: "health flood (ref.)",
        flood: { url: server.url, addresses: ["127.0.0.1"], randomUsernames: false, health: true },
      },
    ];
    for (const { phase, flood: spec } of specs) {
      const running = spec === null ? null : startFlood(spec);
      // Let the flood's connections open and its first logins arrive before measuring.
      if (running !== null) await new Promise((resolve) => setTimeout(resolve, 500));
      const latencies = (await measureAppends(url, token, `appends-${phases.length}`, seconds)).sort(
        (a, b) => a - b,
      );
      const counts = running === null ? { answered: {}, errors: 0 } : await running.stop();
      phases.push({
        phase,
        appends: latencies.length,
        p50_ms: percentile(latencies, 50),
        p99_ms: percentile(latencies, 99),
        max_ms: percentile(latencies, 100),
        logins: counts.answered,
        login_errors: counts.errors,
      });
      // Let hashes still queued from the flood drain before the next phase.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    return {
      cli,
      seconds_per_phase: seconds,
      load_average_1m: Math.round((loadavg()[0] ?? 0) * 10) / 10,
      phases,
    };
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const floodAt = process.argv.indexOf("--flood");
  if (floodAt !== -1) {
    await flood(JSON.parse(process.argv[floodAt + 1] ?? "{}") as FloodSpec);
  } else {
    const result = await runLoginFloodBench();
    const machine = { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version };
    console.log(JSON.stringify({ bench: "login-flood", date: new Date().toISOString(), ...machine, result }));
    const quiet = result.phases[0];
    for (const p of result.phases) {
      const ratio =
        quiet === undefined || p === quiet
          ? ""
          : `  (x${(p.p50_ms / quiet.p50_ms).toFixed(1)} / x${(p.p99_ms / quiet.p99_ms).toFixed(1)} of quiet)`;
      const logins = Object.entries(p.logins)
        .map(([status, n]) => `${status}: ${n}`)
        .join(", ");
      console.log(
        `${p.phase.padEnd(20)} ${String(p.appends).padStart(5)} appends  p50 ${p.p50_ms} ms  p99 ${p.p99_ms} ms  max ${p.max_ms} ms${ratio}` +
          (logins === ""
            ? ""
            : `  flood answers ${logins}${p.login_errors > 0 ? `, errors: ${p.login_errors}` : ""}`),
      );
    }
  }
}

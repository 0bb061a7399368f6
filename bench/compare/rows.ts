/**
 * The rows of the comparison: for each, how to start the system (our own server process on a
 * free loopback port and a fresh temp directory, or our own schema on the shared PostgreSQL),
 * what the driver connects to, how durable an acknowledged append is, and how to measure its
 * footprint. Every row's stop() leaves nothing behind: processes ended, schemas dropped.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { connect, RetentionPolicy, StorageType } from "nats";
import pg from "pg";
import { createRpcClient } from "../../src/client/rpc-client.js";
import { essMain, repoRoot } from "../benchmarks-md.js";
import type { Target } from "./adapter.js";
import { postgresSchemaSql } from "./adapters/postgres.js";
import {
  diskBytes,
  essSegmentFile,
  freePort,
  readCpuSeconds,
  readVmHwmBytes,
  startProcess,
  waitForPort,
  type ServerProcess,
} from "./processes.js";

export interface RowSettings {
  /** Root for this row's files; removed by the orchestrator. */
  dir: string;
  postgresUrl: string;
  postgresPoolSize: number;
  /** When set, `ess serve` runs under `node --cpu-prof` and writes its profile here on exit. */
  essCpuProfileDir: string | null;
}

/** A started row: what the driver needs, what the table says, and how to measure and stop it. */
export interface StartedRow {
  target: Target;
  /** One line on how the system was configured. */
  configuration: string;
  /** The server process whose peak RSS and CPU are reported; null for a shared server. */
  server: ServerProcess | null;
  /** Bytes on disk of everything the row stored. */
  diskBytes(): Promise<number>;
  /**
   * CPU seconds the server used so far, when it is not one process of ours (PostgreSQL: the
   * backends serving our connections), keyed by process so new backends count from zero.
   */
  cpuByProcess?(): Promise<Map<number, number>>;
  /** Peak RSS when it is not one process of ours (PostgreSQL backends), else null. */
  peakRssNote?(): Promise<{ bytes: number; note: string } | null>;
  /** Extra facts read after the run (fsync counts and the like), for the notes. */
  facts?(): Promise<string | null>;
  stop(): Promise<void>;
}

export interface RowDefinition {
  id: string;
  label: string;
  /** True when every acknowledged append was fsync'd before the acknowledgement. */
  durable: boolean;
  durability: string;
  /** Why the row cannot run here, or null. */
  unavailable(): string | null;
  start(settings: RowSettings): Promise<StartedRow>;
}

function commandVersion(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch {
    return null;
  }
}

/**
 * The nats-server the NATS rows run: BENCH_NATS_SERVER, else the machine's. Debian 12 ships 2.9,
 * which cannot fsync before acknowledging; a newer one can be unpacked beside it without
 * installing (BENCHMARKS.md, "NATS JetStream with sync_interval: always").
 */
export const natsServerPath = process.env.BENCH_NATS_SERVER ?? "/usr/sbin/nats-server";

/** `v2.9.10` -> [2, 9, 10]; null when nats-server is missing. */
export function natsServerVersion(): number[] | null {
  const out = commandVersion(natsServerPath, ["--version"]);
  const match = out === null ? null : /v(\d+)\.(\d+)\.(\d+)/.exec(out);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

function natsSupportsSyncInterval(): boolean {
  const v = natsServerVersion();
  // sync_interval (and `always`) arrived in nats-server 2.10.0.
  return v !== null && ((v[0] ?? 0) > 2 || ((v[0] ?? 0) === 2 && (v[1] ?? 0) >= 10));
}

function randomPassword(): string {
  return randomBytes(12).toString("hex");
}

/**
 * The `ess` build whose server the ess rows run: BENCH_ESS_MAIN (another build's
 * dist/src/cli/main.js), else this build's. With BENCH_LOAD_GENERATOR (run-compare.ts) it lets one
 * build's load generator drive another build's server, to tell the two apart.
 */
const essServerMain = process.env.BENCH_ESS_MAIN ?? essMain;

const essRowLabels = {
  grpc: "ess (gRPC)",
  "grpc-session": "ess (gRPC sessions)",
  rest: "ess (REST)",
  kurrent: "ess (KurrentDB client)",
} as const;

/**
 * `ess serve` reached over unary gRPC calls, over gRPC with appends pipelined on one
 * Streams.AppendSession and reads on one Streams.ReadSession per load generator, or over the
 * REST gateway.
 */
function essRow(kind: keyof typeof essRowLabels): RowDefinition {
  return {
    id: `ess-${kind}`,
    label: essRowLabels[kind],
    durable: true,
    durability: "fsync before ack (log engine, group commit)",
    unavailable: () => {
      const help = commandVersion(process.execPath, [essServerMain, "--help"]);
      if (help === null || !/\bserve\b/.test(help)) return "`ess serve` is not built on this branch yet";
      return null;
    },
    async start(settings) {
      const dataDir = join(settings.dir, "data");
      mkdirSync(dataDir);
      const rpcPort = await freePort();
      const restPort = await freePort();
      const kurrentPort = await freePort();
      const password = randomPassword();
      // BENCH_ESS_METRICS=1: ess serves its Prometheus metrics (SERVICE_METRICS_ENABLED) and the
      // bench scrapes them every second, as Prometheus would: for measuring their cost (issue 24).
      const metricsPort = process.env.BENCH_ESS_METRICS === "1" ? await freePort() : null;
      // BENCH_ESS_NODE_ARGS: more node flags for `ess serve` (e.g. --perf-basic-prof for perf).
      const nodeArgs = (process.env.BENCH_ESS_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "");
      if (settings.essCpuProfileDir !== null) {
        nodeArgs.push(
          "--cpu-prof",
          `--cpu-prof-dir=${settings.essCpuProfileDir}`,
          // One profile per row and round: ess-rest-round-1.cpuprofile, ...
          `--cpu-prof-name=${basename(settings.dir)}.cpuprofile`,
        );
      }
      const server = startProcess("ess", process.execPath, [...nodeArgs, essServerMain, "serve"], {
        logPath: join(settings.dir, "ess.log"),
        cwd: settings.dir,
        env: {
          ...process.env,
          SERVICE_DATA_DIR: dataDir,
          SERVICE_RPC_ADDRESS: `127.0.0.1:${rpcPort}`,
          // The REST row needs the gateway; the gRPC row runs without it, as a gRPC-only deployment would.
          SERVICE_REST_ENABLED: kind === "rest" ? "true" : "false",
          SERVICE_REST_ADDRESS: `127.0.0.1:${restPort}`,
          SERVICE_WS_ENABLED: "false",
          SERVICE_ADMIN_PASSWORD: password,
          SERVICE_METRICS_ENABLED: metricsPort === null ? "false" : "true",
          SERVICE_METRICS_ADDRESS: `127.0.0.1:${metricsPort ?? 0}`,
          ...(kind === "kurrent"
            ? {
                SERVICE_KURRENT_ENABLED: "true",
                SERVICE_KURRENT_ADDRESS: `127.0.0.1:${kurrentPort}`,
                SERVICE_KURRENT_ANONYMOUS_USER: "admin",
              }
            : {}),
        },
      });
      await waitForPort(server, kind === "rest" ? restPort : kind === "kurrent" ? kurrentPort : rpcPort);
      const scraper =
        metricsPort === null ? null : scrapeEverySecond(`http://127.0.0.1:${metricsPort}/metrics`);
      const address = `127.0.0.1:${rpcPort}`;
      const configurations = {
        grpc: "gRPC only, one unary call per operation",
        "grpc-session":
          "gRPC only; appends pipelined over one Streams.AppendSession and reads over one Streams.ReadSession per load generator",
        rest: "REST gateway in-process; load generator: undici Pool, one keep-alive connection per concurrent request",
        kurrent:
          "KurrentDB listener (tls=false, anonymous user admin); load generator: @kurrent/kurrentdb-client, " +
          "appends over its BatchAppend stream, reads through its native bridge with Basic credentials",
      } as const;
      const targets = {
        grpc: { system: "ess-grpc", address, password },
        "grpc-session": { system: "ess-grpc-session", address, password },
        rest: { system: "ess-rest", baseUrl: `http://127.0.0.1:${restPort}`, password },
        kurrent: { system: "ess-kurrent", address: `127.0.0.1:${kurrentPort}`, password },
      } as const satisfies Record<typeof kind, Target>;
      return {
        target: targets[kind],
        configuration:
          `\`ess serve\`, log engine, fresh data dir, ${configurations[kind]}` +
          (settings.essCpuProfileDir !== null ? ", under node --cpu-prof" : "") +
          (essServerMain !== essMain ? `, server ${essServerMain}` : "") +
          (metricsPort !== null ? ", metrics on (scraped every second)" : ""),
        server,
        // Segment files (seg-*.log) end in zeroed room while the engine runs: not stored data.
        diskBytes: () => Promise.resolve(diskBytes(dataDir, essSegmentFile)),
        async facts() {
          // The engine's own count of fsyncs: evidence that appends were made durable, and how
          // well group commit shared them.
          const client = createRpcClient({ address: `127.0.0.1:${rpcPort}`, deadlineMs: 10_000 });
          try {
            const login = await client.login({ token: null }, { username: "admin", password });
            const status = await client.getStorageStatus({ token: login.access_token });
            const w = status.writer;
            if (w === undefined) return null;
            return (
              `engine: ${w.fsyncs} fsyncs over ${w.batches} group writes, ` +
              `${w.avg_batch_events.toFixed(1)} events per group on average`
            );
          } finally {
            client.close();
          }
        },
        stop: () => {
          if (scraper !== null) clearInterval(scraper);
          return server.stop();
        },
      };
    },
  };
}

const postgresRow: RowDefinition = {
  id: "postgres",
  label: "PostgreSQL (events table)",
  durable: true,
  durability: "fsync before ack (commit waits for the WAL flush)",
  unavailable: () => null,
  async start(settings) {
    const schema = `ess_bench_compare_${process.pid}_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: settings.postgresUrl });
    await admin.connect();
    const show = async (name: string): Promise<string> =>
      (await admin.query<{ v: string }>(`SELECT current_setting('${name}') AS v`)).rows[0]?.v ?? "?";
    const fsync = await show("fsync");
    const synchronousCommit = await show("synchronous_commit");
    const walSync = await show("wal_sync_method");
    const sharedBuffers = await show("shared_buffers");
    if (fsync !== "on" || synchronousCommit === "off") {
      await admin.end();
      throw new Error(
        `PostgreSQL runs with fsync=${fsync}, synchronous_commit=${synchronousCommit}: not durable`,
      );
    }
    for (const sql of postgresSchemaSql(schema)) await admin.query(sql);
    return {
      target: { system: "postgres", url: settings.postgresUrl, schema, poolSize: settings.postgresPoolSize },
      configuration:
        `the machine's PostgreSQL (shared with others) at 127.0.0.1:5432, own schema dropped after; ` +
        `fsync=${fsync}, synchronous_commit=${synchronousCommit}, wal_sync_method=${walSync}, ` +
        `shared_buffers=${sharedBuffers}; pool of ${settings.postgresPoolSize} connections; ` +
        `append = INSERT … SELECT … WHERE max(revision) = expected, UNIQUE (stream_id, revision), jsonb data`,
      server: null,
      async diskBytes() {
        const result = await admin.query<{ bytes: string }>(
          `SELECT pg_total_relation_size('${schema}.events')::text AS bytes`,
        );
        return Number(result.rows[0]?.bytes ?? NaN);
      },
      async cpuByProcess() {
        const result = await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE application_name = 'ess-bench-compare'`,
        );
        const cpu = new Map<number, number>();
        for (const { pid } of result.rows) cpu.set(pid, readCpuSeconds(pid) ?? 0);
        return cpu;
      },
      async peakRssNote() {
        // PostgreSQL is a process per connection; report the largest of our backends' peaks
        // (shared buffers they touched count in each, so they do not add up).
        const result = await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE application_name = 'ess-bench-compare'`,
        );
        const peaks = result.rows.map((row) => readVmHwmBytes(row.pid) ?? 0);
        if (peaks.length === 0) return null;
        return { bytes: Math.max(...peaks), note: `largest of ${peaks.length} backends` };
      },
      async stop() {
        try {
          await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        } finally {
          await admin.end();
        }
      },
    };
  },
};

function redisRow(fsync: "always" | "everysec"): RowDefinition {
  return {
    id: `redis-${fsync}`,
    label: `Redis Streams (AOF ${fsync})`,
    durable: fsync === "always",
    durability:
      fsync === "always"
        ? "fsync before ack (appendfsync always: one AOF write and fsync per event loop turn, before replies)"
        : "no fsync before ack (appendfsync everysec: up to ~1 s of acknowledged appends lost on power loss)",
    unavailable: () =>
      commandVersion("redis-server", ["--version"]) === null ? "redis-server is not installed" : null,
    async start(settings) {
      const dataDir = join(settings.dir, "data");
      mkdirSync(dataDir);
      const port = await freePort();
      const args = [
        "--port", String(port), "--bind", "127.0.0.1", "--dir", dataDir, "--save", "",
        "--appendonly", "yes", "--appendfsync", fsync, "--daemonize", "no", "--protected-mode", "yes",
      ]; // prettier-ignore
      const server = startProcess("redis-server", "redis-server", args, {
        logPath: join(settings.dir, "redis.log"),
      });
      await waitForPort(server, port);
      return {
        target: { system: "redis", port },
        configuration:
          `own redis-server on 127.0.0.1:${port}, fresh --dir, --appendonly yes --appendfsync ${fsync} --save ""; ` +
          `one connection (pipelined); append = Lua: XLEN == expected+1 then XADD id 0-<revision+1>`,
        server,
        diskBytes: () => Promise.resolve(diskBytes(dataDir)),
        stop: () => server.stop(),
      };
    },
  };
}

function natsRow(sync: "default" | "always"): RowDefinition {
  return {
    id: `nats-${sync}`,
    label: sync === "always" ? "NATS JetStream (sync always)" : "NATS JetStream (default sync)",
    durable: sync === "always",
    durability:
      sync === "always"
        ? "fsync before ack (sync_interval: always)"
        : "no fsync before ack (the file store syncs on a timer, every 2 min by default)",
    unavailable: () => {
      if (natsServerVersion() === null) return `${natsServerPath} is not installed`;
      if (sync === "always" && !natsSupportsSyncInterval()) {
        return "nats-server here is older than 2.10, which added sync_interval; it cannot fsync before acknowledging";
      }
      return null;
    },
    async start(settings) {
      const storeDir = join(settings.dir, "jetstream");
      mkdirSync(storeDir);
      const port = await freePort();
      const configPath = join(settings.dir, "nats.conf");
      writeFileSync(
        configPath,
        [
          `listen: 127.0.0.1:${port}`,
          `jetstream {`,
          `  store_dir: ${JSON.stringify(storeDir)}`,
          ...(sync === "always" ? [`  sync_interval: always`] : []),
          `}`,
          ``,
        ].join("\n"),
      );
      const server = startProcess("nats-server", natsServerPath, ["-c", configPath], {
        logPath: join(settings.dir, "nats.log"),
      });
      await waitForPort(server, port);
      const streamName = "ESSBENCH";
      const nc = await connect({ servers: `127.0.0.1:${port}` });
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.add({
          name: streamName,
          subjects: ["essbench.>"],
          storage: StorageType.File,
          retention: RetentionPolicy.Limits,
          num_replicas: 1,
        });
      } finally {
        await nc.close();
      }
      return {
        target: { system: "nats", port, streamName },
        configuration:
          `own nats-server${process.env.BENCH_NATS_SERVER ? ` (${natsServerPath})` : ""} on 127.0.0.1:${port} -js with a fresh store_dir` +
          (sync === "always" ? ", sync_interval: always" : ", sync interval left at its default") +
          `; one stream (file storage, R1), one subject per event stream; append = publish with ` +
          `expected last subject sequence; read = ordered consumer on the subject, fetch 100, delete`,
        server,
        diskBytes: () => Promise.resolve(diskBytes(storeDir)),
        stop: () => server.stop(),
      };
    },
  };
}

/** Every row, durable ones first; ours first of all. */
export const rowDefinitions: RowDefinition[] = [
  essRow("grpc"),
  essRow("grpc-session"),
  essRow("rest"),
  essRow("kurrent"),
  postgresRow,
  redisRow("always"),
  natsRow("always"),
  redisRow("everysec"),
  natsRow("default"),
];

export { commandVersion, repoRoot, essMain };

/** Fetches `url` every second, as a Prometheus scrape would, until the timer is cleared. */
function scrapeEverySecond(url: string): NodeJS.Timeout {
  return setInterval(() => {
    fetch(url).then(
      (response) => response.text(),
      () => undefined,
    );
  }, 1000);
}

// A real Prometheus scrapes ess: Debian's `prometheus` (ESS_PROMETHEUS names another binary;
// .ci/run installs the package when it is missing) on a loopback port of its own, with a
// temporary configuration scraping ess's /metrics every second and a temporary storage
// directory. Appends and reads go through REST and gRPC; then Prometheus's own query API
// (/api/v1/query) must answer the counters and the latency histogram with the right values.
// Bounded: every wait polls with a deadline, and Prometheus is stopped at the end.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { formatAddress } from "../../src/config/config.js";
import { startTestService, type TestService } from "../rpc/service-harness.js";
import { metricsUrl } from "./scrape.js";

const prometheusPath = process.env.ESS_PROMETHEUS ?? "/usr/bin/prometheus";
const waitMs = 60_000;

let ts: TestService;
let dir: string;
let prometheus: ChildProcess | null = null;
let prometheusUrl: string;
let prometheusLog = "";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Calls `probe` every 250 ms until it returns a value (not undefined), at most `waitMs`. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, last: () => string): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      assert.fail(`${what} within ${waitMs / 1000} s; last: ${last()}\n${prometheusLog}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface QueryResult {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(expression: string): Promise<QueryResult[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expression)}`);
  const body = (await response.json()) as {
    status: string;
    data?: { result: QueryResult[] };
    error?: string;
  };
  if (body.status !== "success" || body.data === undefined) {
    throw new Error(`query ${expression}: ${body.error ?? response.status}`);
  }
  return body.data.result;
}

before(async () => {
  if (!existsSync(prometheusPath)) {
    assert.fail(
      `this test needs Prometheus at ${prometheusPath}: install Debian's package ` +
        "(apt-get install -y prometheus; .ci/run does it when missing) or set ESS_PROMETHEUS to its binary",
    );
  }
  ts = await startTestService({
    SERVICE_REST_ENABLED: "true",
    SERVICE_REST_ADDRESS: "127.0.0.1:0",
    SERVICE_METRICS_ENABLED: "true",
    SERVICE_METRICS_ADDRESS: "127.0.0.1:0",
  });
  dir = await mkdtemp(join(tmpdir(), "ess-prometheus-"));
  const target = new URL(metricsUrl(ts.service)).host;
  const config = join(dir, "prometheus.yml");
  await writeFile(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "  evaluation_interval: 1s",
      "scrape_configs:",
      "  - job_name: ess",
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    prometheusPath,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  prometheus.stderr?.on("data", (chunk: Buffer) => {
    prometheusLog = (prometheusLog + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((_resolve, reject) =>
    prometheus?.once("exit", (code) => reject(new Error(`prometheus exited (${code}): ${prometheusLog}`))),
  );
  exited.catch(() => undefined);
  await Promise.race([
    exited,
    until(
      "Prometheus ready",
      async () => ((await fetch(`${prometheusUrl}/-/ready`)).ok ? true : undefined),
      () => "not ready",
    ),
  ]);
});

after(async () => {
  if (prometheus !== null && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus?.once("exit", resolve));
    prometheus.kill("SIGTERM");
    await exited;
  }
  await ts?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

test("Prometheus scrapes ess: request counters, appends and the latency histogram arrive with the right values", async () => {
  const restUrl = `http://${formatAddress(ts.service.listeners.find((l) => l.name === "rest")!.address)}`;
  for (let n = 0; n < 3; n++) {
    await ts.client.append(ts.admin, {
      stream_id: "prom",
      events: [{ event_type: "E", data: { n } }],
    });
  }
  for (let n = 3; n < 5; n++) {
    const response = await fetch(`${restUrl}/v1/streams/prom/append`, {
      method: "POST",
      headers: { authorization: `Bearer ${ts.admin.token}`, "content-type": "application/json" },
      body: JSON.stringify({ events: [{ event_type: "E", data: { n } }] }),
    });
    assert.equal(response.status, 200);
  }
  assert.equal((await ts.client.read(ts.admin, { stream_id: "prom" })).events.length, 5);
  const read = await fetch(`${restUrl}/v1/streams/prom`, {
    headers: { authorization: `Bearer ${ts.admin.token}` },
  });
  assert.equal(read.status, 200);
  await read.body?.cancel();

  // What Prometheus holds once it has scraped after the calls above.
  const expected: Record<string, string> = {
    'ess_requests_total{interface="grpc",operation="Streams.Append",outcome="ok"}': "3",
    'ess_requests_total{interface="rest",operation="Streams.Append",outcome="ok"}': "2",
    'ess_requests_total{interface="grpc",operation="Streams.Read",outcome="ok"}': "1",
    'ess_requests_total{interface="rest",operation="Streams.Read",outcome="ok"}': "1",
    ess_appends_total: "5",
    ess_events_written_total: "5",
    ess_reads_total: "2",
    ess_events_read_total: "10",
    'sum(ess_request_duration_seconds_count{operation="Streams.Append",outcome="ok"})': "5",
    'sum(ess_request_duration_seconds_bucket{operation="Streams.Append",outcome="ok",le="+Inf"})': "5",
    ess_group_commit_appends_sum: "5",
    'up{job="ess"}': "1",
  };
  let seen: Record<string, string | null> = {};
  await until(
    "Prometheus to hold the expected values",
    async () => {
      seen = {};
      for (const expression of Object.keys(expected)) {
        const result = await query(expression);
        seen[expression] = result.length === 1 ? result[0]!.value[1] : null;
      }
      return Object.entries(expected).every(([expression, value]) => seen[expression] === value)
        ? true
        : undefined;
    },
    () => JSON.stringify(seen),
  );

  // The histogram is one Prometheus can compute with: a median within its bucket range, and
  // fsync durations as a histogram too.
  const median = await query(
    'histogram_quantile(0.5, sum by (le) (ess_request_duration_seconds_bucket{operation="Streams.Append"}))',
  );
  assert.equal(median.length, 1);
  const seconds = Number(median[0]!.value[1]);
  assert.ok(seconds > 0 && seconds <= 10, `median append latency ${seconds}`);
  const fsyncs = await query("ess_fsync_duration_seconds_count");
  assert.ok(Number(fsyncs[0]?.value[1]) >= 1);
  // prom-client's process metrics arrive too.
  assert.equal((await query('process_cpu_seconds_total{job="ess"}')).length, 1);
});

test("docs/operations.md's scrape configuration and alert rules pass promtool, and the rules' queries run", async () => {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const page = await readFile(join(root, "docs/operations.md"), "utf8");
  const [scrapeConfig, rules] = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(scrapeConfig !== undefined && rules !== undefined, "two yaml blocks in docs/operations.md");
  const rulesFile = join(dir, "ess-alerts.yml");
  await writeFile(rulesFile, rules);
  const configFile = join(dir, "sample.yml");
  await writeFile(configFile, scrapeConfig.replace("- ess-alerts.yml", `- ${rulesFile}`));
  const promtool = join(dirname(prometheusPath), "promtool");
  for (const args of [
    ["check", "rules", rulesFile],
    ["check", "config", configFile],
  ]) {
    const checked = spawnSync(promtool, args, { encoding: "utf8", timeout: 30_000 });
    assert.equal(checked.status, 0, `promtool ${args.join(" ")}: ${checked.stdout}${checked.stderr}`);
  }
  // Each rule's expression runs on the Prometheus that scrapes ess (the names it uses exist).
  for (const [, expression] of rules.matchAll(/expr: (?:\|\n)?([\s\S]*?)\n\s+for:/g)) {
    await query(expression!.trim());
  }
  assert.ok((await query("ess_storage_disk_free_bytes / ess_storage_disk_size_bytes")).length === 1);
});

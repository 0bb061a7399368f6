/**
 * `npm run bench:filtered-read`: the scanning rate of a filtered `$all` read (issue 27). A log
 * engine in a temporary directory holds EVENTS events (default 1,000,000) of one tenant, ~100
 * bytes of data each; one in 1,000 is in a stream `match-<n>` with type `Matched`, the rest in
 * 1,000 streams `noise-<n>` with type `Noise`. Each measurement reads the tenant's whole `$all`
 * with one filter, page by page (limit 1000, the default skip bound), and reports events scanned
 * per second (EVENTS / wall time, and EVENTS / CPU time of the process) and the matches found:
 * - in-process, on the engine: stream prefix, event type prefix, stream regex, event type
 *   regex, and the stream prefix backward;
 * - over REST (`GET /v1/events`, the real service on 127.0.0.1, one client): stream prefix and
 *   event type regex.
 * Each figure is the best of ROUNDS (default 3) runs. Prints one JSON object.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { formatAddress, loadConfig } from "../src/config/config.js";
import { noFilter, type EventFilter } from "../src/contract/event-filter.js";
import type { ReadDirection } from "../src/contract/bodies.js";
import { createLogger } from "../src/logger.js";
import { startService } from "../src/service.js";
import type { EventToAppend, StorageEngine } from "../src/storage/engine.js";
import { openLogEngine } from "../src/storage/log/index.js";

const eventsTotal = Number(process.env.EVENTS ?? 1_000_000);
const rounds = Number(process.env.ROUNDS ?? 3);
const tenant = "default";
const adminPassword = "bench-password-1";
const data = `{"pad":"${"x".repeat(88)}"}`;

async function fill(engine: StorageEngine): Promise<number> {
  let matches = 0;
  for (let done = 0; done < eventsTotal;) {
    // One append per stream run: 999 noise events of one stream, then the one match.
    const noise: EventToAppend[] = [];
    const count = Math.min(999, eventsTotal - done);
    for (let i = 0; i < count; i++) {
      noise.push({ event_id: randomUUID(), event_type: "Noise", data, metadata: "{}" });
    }
    const stream = `noise-${(done / 1000) % 1000}`;
    await engine.append({ tenant_id: tenant, stream_id: stream, events: noise, expected_revision: "any" });
    done += count;
    if (done >= eventsTotal) break;
    const match = { event_id: randomUUID(), event_type: "Matched", data, metadata: "{}" };
    await engine.append({
      tenant_id: tenant,
      stream_id: `match-${matches++}`,
      events: [match],
      expected_revision: "any",
    });
    done += 1;
  }
  return matches;
}

interface Rate {
  /** EVENTS / wall time. */
  events_scanned_per_s: number;
  /** EVENTS / CPU time of this process (user + system): less sensitive to a shared machine. */
  events_scanned_per_cpu_s: number;
  ms: number;
  cpu_ms: number;
  pages: number;
  matches: number;
}

async function best(run: () => Promise<{ pages: number; matches: number }>): Promise<Rate> {
  let fastest: Rate | null = null;
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    const { pages, matches } = await run();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const cpu = process.cpuUsage(cpuStart);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const rate = {
      events_scanned_per_s: Math.round(eventsTotal / (ms / 1000)),
      events_scanned_per_cpu_s: Math.round(eventsTotal / (cpuMs / 1000)),
      ms: Math.round(ms),
      cpu_ms: Math.round(cpuMs),
      pages,
      matches,
    };
    if (fastest === null || rate.ms < fastest.ms) fastest = rate;
  }
  return fastest!;
}

async function readInProcess(engine: StorageEngine, filter: Partial<EventFilter>, direction: ReadDirection) {
  let from: number | null = null;
  let pages = 0;
  let matches = 0;
  for (;;) {
    const page = await engine.readAll({
      tenant_id: tenant,
      direction,
      from_position: from,
      limit: 1000,
      filter: { ...noFilter, ...filter },
      stored_bytes: true,
    });
    pages++;
    matches += page.events.length;
    if (page.is_end) return { pages, matches };
    from = page.next_position;
  }
}

async function readOverRest(baseUrl: string, token: string, query: string) {
  let from = "";
  let pages = 0;
  let matches = 0;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/events?limit=1000&${query}${from}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status !== 200)
      throw new Error(`GET /v1/events: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as {
      events: unknown[];
      next_position: number | null;
      is_end: boolean;
    };
    pages++;
    matches += page.events.length;
    if (page.is_end) return { pages, matches };
    from = `&from_position=${page.next_position}`;
  }
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-filtered-bench-"));
  const logger = createLogger({}, 100);
  try {
    const engine = await openLogEngine({ dataDir, logger });
    const fillStart = Date.now();
    const stored = await fill(engine);
    const fillMs = Date.now() - fillStart;
    const inProcess = {
      stream_prefix: await best(() => readInProcess(engine, { stream_prefix: ["match-"] }, "forward")),
      stream_prefix_backward: await best(() =>
        readInProcess(engine, { stream_prefix: ["match-"] }, "backward"),
      ),
      event_type_prefix: await best(() => readInProcess(engine, { event_type_prefix: ["Match"] }, "forward")),
      stream_regex: await best(() => readInProcess(engine, { stream_regex: "^match-\\d+$" }, "forward")),
      event_type_regex: await best(() => readInProcess(engine, { event_type_regex: "^Match" }, "forward")),
    };
    await engine.close();

    const service = await startService(
      loadConfig({
        SERVICE_DATA_DIR: dataDir,
        SERVICE_RPC_ADDRESS: "127.0.0.1:0",
        SERVICE_REST_ENABLED: "true",
        SERVICE_REST_ADDRESS: "127.0.0.1:0",
        SERVICE_ADMIN_PASSWORD: adminPassword,
      }),
      { logger, stopGraceMs: 2000 },
    );
    let rest;
    try {
      const listener = service.listeners.find((l) => l.name === "rest")!;
      const baseUrl = `http://${formatAddress(listener.address)}`;
      const login = await fetch(`${baseUrl}/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "admin", password: adminPassword }),
      });
      const { access_token: token } = (await login.json()) as { access_token: string };
      rest = {
        stream_prefix: await best(() => readOverRest(baseUrl, token, "stream_prefix=match-")),
        event_type_regex: await best(() =>
          readOverRest(baseUrl, token, `event_type_regex=${encodeURIComponent("^Match")}`),
        ),
      };
    } finally {
      await service.stop();
    }
    const machine = { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version };
    console.log(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          ...machine,
          events: eventsTotal,
          matches_stored: stored,
          fill_ms: fillMs,
          in_process: inProcess,
          rest,
        },
        null,
        2,
      ),
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();

/**
 * Fan-out benchmark of the WebSocket interface: one stream, 100 subscribers on real sockets
 * (127.0.0.1), the real log engine in a temporary directory.
 *
 * - throughput: events delivered per second to all subscribers together, while a writer appends
 *   batches of 100 events as fast as it can;
 * - latency: from the append's acknowledgement (its promise resolving: the event is durable) to
 *   the moment each subscriber has parsed the event, for single-event appends at a steady rate.
 *
 * Clients and server share this one process (and the machine's cores): figures are for the
 * whole loop, not the server alone. Run: npm run build && node dist/bench/fanout-bench.js [--postgres]
 * (--postgres, or `storage: "postgres"`: the postgres engine in a fresh database instead of the
 * log engine, ./bench-postgres.ts; delivery then goes through its LISTEN/NOTIFY wake-ups).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import type { StorageEngine } from "../src/storage/engine.js";
import { openLogEngine } from "../src/storage/log/index.js";
import { openPostgresEngine } from "../src/storage/postgres/postgres-engine.js";
import { SubscriptionHub } from "../src/operations/subscription/hub.js";
import { SubscriptionService } from "../src/operations/subscribe.js";
import { startWebSocketServer } from "../src/ws/server.js";
import { withBenchDatabase } from "./bench-postgres.js";

export interface FanoutResult {
  storage: "log" | "postgres";
  subscribers: number;
  events: number;
  delivered_events_per_second: number;
  latency_samples: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
}

interface Options {
  /** Storage engine under the hub. Default log. */
  storage?: "log" | "postgres";
  subscribers?: number;
  throughputEvents?: number;
  latencyEvents?: number;
  latencyRatePerSecond?: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function runFanoutBench(options: Options = {}): Promise<FanoutResult> {
  if (options.storage === "postgres") {
    return withBenchDatabase(async (url) => {
      const engine = await openPostgresEngine({ url });
      try {
        return await fanoutOn("postgres", engine, options);
      } finally {
        await engine.close();
      }
    });
  }
  const dataDir = await mkdtemp(join(tmpdir(), "ess-fanout-"));
  try {
    const engine = await openLogEngine({ dataDir });
    try {
      return await fanoutOn("log", engine, options);
    } finally {
      await engine.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function fanoutOn(
  storage: FanoutResult["storage"],
  engine: StorageEngine,
  options: Options,
): Promise<FanoutResult> {
  const subscribers = options.subscribers ?? 100;
  const throughputEvents = options.throughputEvents ?? 20_000;
  const latencyEvents = options.latencyEvents ?? 1_000;
  const ratePerSecond = options.latencyRatePerSecond ?? 200;

  const hub = new SubscriptionHub(engine);
  const service = new SubscriptionService({
    hub,
    authenticate: () =>
      Promise.resolve({
        username: "bench",
        tenant_id: "bench",
        role: "writer",
        expires_at_ms: Date.now() + 3_600_000,
      }),
  });
  const server = await startWebSocketServer({
    address: { host: "127.0.0.1", port: 0 },
    subscriptions: service,
  });

  // Per subscriber: how many events it has, and a hook for the latency phase.
  const counts = new Array<number>(subscribers).fill(0);
  const ackAt = new Map<string, number>();
  const receipts: { id: string; at: number }[] = [];
  let measuring = false;
  let target = 0;
  let onProgress: (() => void) | null = null;

  const clients = await Promise.all(
    Array.from({ length: subscribers }, (_, index) => {
      const ws = new WebSocket(`ws://127.0.0.1:${server.address.port}/v1/subscribe`, {
        headers: { Authorization: "Bearer bench" },
        perMessageDeflate: false,
      });
      ws.on("message", (data: Buffer) => {
        const message = JSON.parse(data.toString()) as { type: string; event?: { event_id: string } };
        if (message.type !== "event") return;
        counts[index] = (counts[index] ?? 0) + 1;
        if (measuring && message.event !== undefined) {
          receipts.push({ id: message.event.event_id, at: performance.now() });
        }
        if (counts[index] === target) onProgress?.();
      });
      return new Promise<WebSocket>((resolve, reject) => {
        ws.once("open", () => {
          ws.send(JSON.stringify({ type: "subscribe", id: "b", stream: "fan", from: "end" }));
          resolve(ws);
        });
        ws.once("error", reject);
      });
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 300)); // every subscription is live

  const data = JSON.stringify({ order: 12345, amount: 99.5, currency: "EUR", note: "x".repeat(100) });
  const makeEvents = (count: number) =>
    Array.from({ length: count }, () => ({
      event_id: randomUUID(),
      event_type: "OrderPlaced",
      data,
      metadata: "{}",
    }));
  const allReached = (count: number) =>
    new Promise<void>((resolve) => {
      target = count;
      const check = () => {
        if (counts.every((c) => c >= count)) {
          onProgress = null;
          resolve();
        }
      };
      onProgress = check;
      check();
    });

  // Throughput.
  const started = performance.now();
  const done = allReached(throughputEvents);
  for (let written = 0; written < throughputEvents; written += 100) {
    await engine.append({
      tenant_id: "bench",
      stream_id: "fan",
      events: makeEvents(100),
      expected_revision: "any",
    });
  }
  await done;
  const seconds = (performance.now() - started) / 1000;
  const deliveredPerSecond = (throughputEvents * subscribers) / seconds;

  // Latency: single events at a steady rate, each measured from its acknowledgement.
  measuring = true;
  const latencyDone = allReached(throughputEvents + latencyEvents);
  const intervalMs = 1000 / ratePerSecond;
  const phaseStart = performance.now();
  for (let i = 0; i < latencyEvents; i++) {
    const wait = phaseStart + i * intervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const events = makeEvents(1);
    const id = events[0]!.event_id;
    // The ack time is taken the moment the append resolves. A delivery can beat it (the notice
    // fires as the batch becomes durable, before the writer's promise continues): counted as 0.
    const appended = engine.append({
      tenant_id: "bench",
      stream_id: "fan",
      events,
      expected_revision: "any",
    });
    void appended.then(() => ackAt.set(id, performance.now()));
    await appended;
  }
  await latencyDone;
  measuring = false;

  for (const ws of clients) ws.terminate();
  hub.close();
  await server.close();

  const sorted = receipts.map((r) => Math.max(0, r.at - (ackAt.get(r.id) ?? r.at))).sort((a, b) => a - b);
  return {
    storage,
    subscribers,
    events: throughputEvents,
    delivered_events_per_second: Math.round(deliveredPerSecond),
    latency_samples: sorted.length,
    latency_p50_ms: Number(percentile(sorted, 50).toFixed(2)),
    latency_p99_ms: Number(percentile(sorted, 99).toFixed(2)),
  };
}

const isMain = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const result = await runFanoutBench({ storage: process.argv.includes("--postgres") ? "postgres" : "log" });
  console.log(
    JSON.stringify({ bench: "fanout", cpu: cpus()[0]?.model, cores: cpus().length, ...result }, null, 2),
  );
}

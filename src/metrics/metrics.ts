/**
 * The service's Prometheus metrics (docs/operations.md, "Metrics"), on prom-client: one
 * Registry per service (tests run several services in one process), the families below, and
 * prom-client's default process metrics.
 *
 * Cost on the hot paths: a request is counted once, in the operations layer's `run`
 * (../operations/operations.ts), which every interface's call passes through, as plain numbers
 * (./request-counts.ts; the series of every (interface, operation) pair with outcome "ok" bound
 * up front), and so are appends and reads: prom-client reads them when Prometheus scrapes. The storage engines report once per committed group, not per event
 * (`CommitObserver`, ../storage/engine.ts). Gauges of state (storage size, segments, live
 * subscriptions, buffered bytes) are read when Prometheus scrapes (`collect`), from counters the
 * service keeps anyway.
 *
 * Labels are of bounded cardinality only: interface (grpc, rest, ws), operation (the RPC name,
 * ../operations/contract.ts `rpcNames`) and outcome ("ok" or an error code of ../errors.ts);
 * never a stream, tenant or user.
 */
import type { StatsFs as StatFs } from "node:fs";
import { statfs } from "node:fs/promises";
import * as client from "prom-client";
import type { ErrorCode } from "../errors.js";
import { rpcNames } from "../operations/contract.js";
import type { CallContext, OperationName } from "../operations/contract.js";
import type { StorageStatus } from "../contract/bodies.js";
import { RequestCounts, type RequestSeries } from "./request-counts.js";

/** Which interface carried a subscription's session. */
export type SubscribeCarrier = "ws" | "grpc" | "kurrent";

/** Which interface carried a call: the label `interface`. */
export type MetricsInterface = "grpc" | "rest" | "ws" | "kurrent";
const interfaces: readonly MetricsInterface[] = ["grpc", "rest", "ws", "kurrent"];

/** The interface of a call's context; `none` for a call made in-process (no carrier). */
export function interfaceOf(ctx: CallContext | null): MetricsInterface | "none" {
  switch (ctx?.carrier) {
    case "fast":
    case "grpc-js":
      return "grpc";
    case "rest":
      return "rest";
    case "ws":
      return "ws";
    case "kurrent":
      return "kurrent";
    default:
      return "none";
  }
}

/** Seconds: from half a millisecond (a cached read) to ten seconds (a slow scavenge). */
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds of one fdatasync or COMMIT: from 50 microseconds (a write cache) to a stalled disk. */
const syncBuckets = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Appends in one committed group. */
const groupBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** A counter kept as a plain number on the hot path; prom-client reads it when scraped. */
interface PlainCounter {
  value: number;
}

/** Where the gauges of state are read from at scrape time. */
export interface MetricsSources {
  /** The engine's status (../storage/engine.ts `status`): size, events and segments. */
  storageStatus(): Promise<StorageStatus>;
  /** Subscriptions open now (../operations/subscription/hub.ts `size`). */
  liveSubscriptions(): number;
  /** Bytes queued to subscribers and not yet written (../operations/subscription/flow-gate.ts). */
  subscriptionBufferedBytes(): number;
}

export class ServiceMetrics {
  readonly registry = new client.Registry();
  private readonly requests = new RequestCounts(latencyBuckets);
  /** [interface][operation] with outcome ok, bound at construction. */
  private readonly okSeries = new Map<string, Map<string, RequestSeries>>();
  private readonly appends: PlainCounter;
  private readonly eventsWritten: PlainCounter;
  private readonly bytesWritten: PlainCounter;
  private readonly reads: PlainCounter;
  private readonly eventsRead: PlainCounter;
  private readonly fsync: client.Histogram;
  private readonly postgresCommit: client.Histogram;
  private readonly groupSize: client.Histogram;
  private readonly loginFailures: client.Counter;
  private readonly loginsThrottled: client.Counter;
  private readonly verifyRuns: client.Counter<"outcome">;
  private readonly scavengeRuns: client.Counter<"outcome">;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    // prom-client's process metrics under their usual names (process_*, nodejs_*), as dashboards expect.
    client.collectDefaultMetrics({ register: this.registry });
    this.requests.register(this.registry);
    // Every pair of a network interface and an operation is bound here, so that its request
    // counter is written (at 0) from the first scrape and rate() sees it (its histogram series
    // appear with its first call: 66 of them at 17 lines each would weigh on every scrape);
    // other outcomes and calls made in-process ("none") are bound on first use.
    for (const iface of interfaces) {
      const byOperation = new Map<string, RequestSeries>();
      for (const operation of Object.values(rpcNames)) {
        byOperation.set(operation, this.requests.series(iface, operation, "ok"));
      }
      this.okSeries.set(iface, byOperation);
    }
    const counter = (name: string, help: string): client.Counter =>
      new client.Counter({ name, help, registers });
    const plainCounter = (name: string, help: string): PlainCounter => {
      const box = { value: 0 };
      new client.Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(box.value);
        },
      });
      return box;
    };
    this.appends = plainCounter(
      "ess_appends_total",
      "Appends acknowledged (each one or more events; an idempotent repeat included).",
    );
    this.eventsWritten = plainCounter("ess_events_written_total", "Events in the appends acknowledged.");
    this.bytesWritten = plainCounter(
      "ess_bytes_written_total",
      "Bytes of event data and metadata (UTF-8 JSON) in the appends acknowledged.",
    );
    this.reads = plainCounter("ess_reads_total", "Read pages served (Streams.Read and Streams.ReadAll).");
    this.eventsRead = plainCounter("ess_events_read_total", "Events in the read pages served.");
    this.fsync = new client.Histogram({
      name: "ess_fsync_duration_seconds",
      help: "Log engine: time of the one fdatasync that makes a group of appends durable.",
      buckets: syncBuckets,
      registers,
    });
    this.postgresCommit = new client.Histogram({
      name: "ess_postgres_commit_duration_seconds",
      help: "PostgreSQL engine: time of the one transaction (to COMMIT) that stores a batch of appends.",
      buckets: syncBuckets,
      registers,
    });
    this.groupSize = new client.Histogram({
      name: "ess_group_commit_appends",
      help: "Appends made durable together by one fdatasync (log) or one transaction (postgres).",
      buckets: groupBuckets,
      registers,
    });
    this.loginFailures = counter(
      "ess_login_failures_total",
      "Logins refused for a wrong username or password.",
    );
    this.loginsThrottled = counter(
      "ess_logins_throttled_total",
      "Logins refused with RATE_LIMITED (the login throttle, or password hashing full).",
    );
    this.verifyRuns = new client.Counter({
      name: "ess_verify_runs_total",
      help: "Verify runs (the route or a job), by outcome (ok or the error code).",
      labelNames: ["outcome"],
      registers,
    });
    this.scavengeRuns = new client.Counter({
      name: "ess_scavenge_runs_total",
      help: "Scavenge runs, dry runs included (the route or a job), by outcome (ok or the error code).",
      labelNames: ["outcome"],
      registers,
    });
    registerStateGauges(registers, sources);
  }

  /** One request's end: its outcome (null: ok) and how long it took. */
  request(ctx: CallContext | null, name: OperationName, outcome: ErrorCode | null, seconds: number): void {
    const iface = interfaceOf(ctx);
    const operation = rpcNames[name];
    const series =
      (outcome === null ? this.okSeries.get(iface)?.get(operation) : undefined) ??
      this.requests.series(iface, operation, outcome ?? "ok");
    this.requests.observe(series, seconds);
  }

  /**
   * A request an interface refused before its operation ran (Operations.refused): counted in
   * ess_requests_total only; no operation ran, so it has no latency to observe.
   */
  refused(ctx: CallContext, name: OperationName, outcome: ErrorCode): void {
    this.requests.countOnly(this.requests.series(interfaceOf(ctx), rpcNames[name], outcome));
  }

  /** A subscribe request (WebSocket or gRPC Streams.Subscribe) opened or refused. */
  subscribeRequest(iface: SubscribeCarrier, outcome: ErrorCode | null, seconds: number): void {
    this.requests.observe(this.requests.series(iface, "Streams.Subscribe", outcome ?? "ok"), seconds);
  }

  /** An append acknowledged: its events and their payload bytes. */
  appended(events: number, bytes: number): void {
    this.appends.value++;
    this.eventsWritten.value += events;
    this.bytesWritten.value += bytes;
  }

  /** A read page served with `events` events. */
  served(events: number): void {
    this.reads.value++;
    this.eventsRead.value += events;
  }

  loginFailed(): void {
    this.loginFailures.inc();
  }

  loginThrottled(): void {
    this.loginsThrottled.inc();
  }

  /** A verify or scavenge run ended (null: ok). */
  maintenanceRun(kind: "verify" | "scavenge", outcome: ErrorCode | null): void {
    (kind === "verify" ? this.verifyRuns : this.scavengeRuns).inc({ outcome: outcome ?? "ok" });
  }

  /** The engines' `CommitObserver` (../storage/engine.ts): one call per durable group. */
  readonly commitObserver = {
    committed: (engine: "log" | "postgres", appends: number, seconds: number): void => {
      (engine === "log" ? this.fsync : this.postgresCommit).observe(seconds);
      this.groupSize.observe(appends);
    },
  };

  /** The text Prometheus scrapes, and its content type. */
  async exposition(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

/**
 * The gauges read at scrape time. The storage ones share one `status()` call per scrape: the
 * registry collects every metric at once, and the first to ask starts the call the others wait for.
 */
function registerStateGauges(registers: client.Registry[], sources: MetricsSources): void {
  let pending: Promise<StorageStatus> | null = null;
  const status = (): Promise<StorageStatus> => {
    pending ??= sources.storageStatus().finally(() => {
      pending = null;
    });
    return pending;
  };
  // A gauge read at scrape time; when the storage cannot answer (the database is down), or has
  // no such value, the last value stays.
  const scrapedGauge = (name: string, help: string, read: () => Promise<number | null>): void => {
    new client.Gauge({
      name,
      help,
      registers,
      async collect() {
        const value = await read().catch(() => null);
        if (value !== null) this.set(value);
      },
    });
  };
  const storageGauge = (name: string, help: string, value: (status: StorageStatus) => number): void =>
    scrapedGauge(name, help, async () => value(await status()));
  storageGauge(
    "ess_storage_size_bytes",
    "Bytes the stored events take: the log engine's segment files, PostgreSQL's event rows.",
    (s) => s.bytes_total,
  );
  storageGauge("ess_storage_events", "Events stored.", (s) => s.events_total);
  storageGauge(
    "ess_storage_segments",
    "Log engine: segment files (0 on the PostgreSQL engine).",
    (s) => s.segments?.length ?? 0,
  );
  // The log engine's file system, for the disk-space alert (docs/operations.md); PostgreSQL's
  // disk is the database server's to watch.
  const diskGauge = (name: string, help: string, value: (fs: StatFs) => number): void =>
    scrapedGauge(name, help, async () => {
      const dir = (await status()).data_dir;
      return dir === undefined ? null : value(await statfs(dir));
    });
  diskGauge(
    "ess_storage_disk_free_bytes",
    "Log engine: bytes free for ess on its data directory's file system.",
    (fs) => fs.bavail * fs.bsize,
  );
  diskGauge(
    "ess_storage_disk_size_bytes",
    "Log engine: size in bytes of its data directory's file system.",
    (fs) => fs.blocks * fs.bsize,
  );
  scrapedGauge(
    "ess_subscriptions_live",
    "Subscriptions open now (WebSocket and gRPC Streams.Subscribe).",
    () => Promise.resolve(sources.liveSubscriptions()),
  );
  scrapedGauge(
    "ess_subscription_buffered_bytes",
    "Bytes of subscription messages queued to clients and not yet written to their sockets.",
    () => Promise.resolve(sources.subscriptionBufferedBytes()),
  );
}

/**
 * The service's Prometheus metrics (docs/operations.md, "Metrics"), on prom-client: one
 * Registry per service (tests run several services in one process), the families below, and
 * prom-client's default process metrics.
 *
 * Cost on the hot paths: a request is counted once, in the operations layer's `run`
 * (../operations/operations.ts), which every interface's call passes through; the label
 * children of every (interface, operation) pair with outcome "ok" are bound up front, so a
 * successful call costs one counter increment and one histogram observation and no lookup of
 * labels. The storage engines report once per committed group, not per event
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

/** Which interface carried a call: the label `interface`. */
export type MetricsInterface = "grpc" | "rest" | "ws";
const interfaces: readonly MetricsInterface[] = ["grpc", "rest", "ws"];

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

interface RequestChildren {
  count: client.Counter.Internal;
  latency: client.Histogram.Internal<string>;
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
  private readonly requests: client.Counter<string>;
  private readonly latency: client.Histogram<string>;
  /** [interface][operation] with outcome ok, bound at construction. */
  private readonly okChildren = new Map<string, Map<string, RequestChildren>>();
  /**
   * Children of failed outcomes and of in-process calls, bound on first use (bounded:
   * interfaces x operations x error codes).
   */
  private readonly otherChildren = new Map<string, RequestChildren>();
  private readonly appends: client.Counter;
  private readonly eventsWritten: client.Counter;
  private readonly bytesWritten: client.Counter;
  private readonly reads: client.Counter;
  private readonly eventsRead: client.Counter;
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
    this.requests = new client.Counter({
      name: "ess_requests_total",
      help: "Requests served, by interface, operation and outcome (ok or the error code).",
      labelNames: ["interface", "operation", "outcome"],
      registers,
    });
    this.latency = new client.Histogram({
      name: "ess_request_duration_seconds",
      help: "Time from the operation's start to its result, by interface, operation and outcome.",
      labelNames: ["interface", "operation", "outcome"],
      buckets: latencyBuckets,
      registers,
    });
    // Every pair of a network interface and an operation is bound here, and its request counter
    // written at 0, so that rate() sees it from the first scrape (its histogram series appear
    // with the first call: 66 of them at 17 lines each would weigh on every scrape); calls made
    // in-process ("none") are bound on first use.
    for (const iface of interfaces) {
      const byOperation = new Map<string, RequestChildren>();
      for (const operation of Object.values(rpcNames)) {
        byOperation.set(operation, this.bind(iface, operation, "ok"));
        this.requests.inc({ interface: iface, operation, outcome: "ok" }, 0);
      }
      this.okChildren.set(iface, byOperation);
    }
    const counter = (name: string, help: string): client.Counter =>
      new client.Counter({ name, help, registers });
    this.appends = counter("ess_appends_total", "Appends stored (each a batch of one or more events).");
    this.eventsWritten = counter("ess_events_written_total", "Events stored by appends.");
    this.bytesWritten = counter(
      "ess_bytes_written_total",
      "Bytes of event data and metadata (UTF-8 JSON) stored by appends.",
    );
    this.reads = counter("ess_reads_total", "Read pages served (Streams.Read and Streams.ReadAll).");
    this.eventsRead = counter("ess_events_read_total", "Events served by read pages.");
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

  private bind(iface: string, operation: string, outcome: string): RequestChildren {
    return {
      count: this.requests.labels(iface, operation, outcome),
      latency: this.latency.labels(iface, operation, outcome),
    };
  }

  /** One request's end: its outcome (null: ok) and how long it took. */
  request(ctx: CallContext | null, name: OperationName, outcome: ErrorCode | null, seconds: number): void {
    const iface = interfaceOf(ctx);
    const operation = rpcNames[name];
    let children: RequestChildren | undefined;
    if (outcome === null) children = this.okChildren.get(iface)?.get(operation);
    if (children === undefined) {
      const label = outcome ?? "ok";
      const key = `${iface} ${operation} ${label}`;
      children = this.otherChildren.get(key);
      if (children === undefined) {
        children = this.bind(iface, operation, label);
        this.otherChildren.set(key, children);
      }
    }
    children.count.inc();
    children.latency.observe(seconds);
  }

  /**
   * A request an interface refused before its operation ran (Operations.refused): counted in
   * ess_requests_total only; no operation ran, so it has no latency to observe.
   */
  refused(ctx: CallContext, name: OperationName, outcome: ErrorCode): void {
    this.requests.labels(interfaceOf(ctx), rpcNames[name], outcome).inc();
  }

  /** A subscribe request (WebSocket or gRPC Streams.Subscribe) opened or refused. */
  subscribeRequest(iface: "ws" | "grpc", outcome: ErrorCode | null, seconds: number): void {
    const labels = { interface: iface, operation: "Streams.Subscribe", outcome: outcome ?? "ok" };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  /** An append stored: its events and their payload bytes. */
  appended(events: number, bytes: number): void {
    this.appends.inc();
    this.eventsWritten.inc(events);
    this.bytesWritten.inc(bytes);
  }

  /** A read page served with `events` events. */
  served(events: number): void {
    this.reads.inc();
    this.eventsRead.inc(events);
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
  const storageGauge = (name: string, help: string, value: (status: StorageStatus) => number): void => {
    new client.Gauge({
      name,
      help,
      registers,
      async collect() {
        try {
          this.set(value(await status()));
        } catch {
          // The storage cannot answer now (the database is down): the last value stays.
        }
      },
    });
  };
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
  const disk = (name: string, help: string, value: (fs: StatFs) => number): void => {
    new client.Gauge({
      name,
      help,
      registers,
      async collect() {
        try {
          const dir = (await status()).data_dir;
          if (dir !== undefined) this.set(value(await statfs(dir)));
        } catch {
          // As above: the last value stays.
        }
      },
    });
  };
  disk(
    "ess_storage_disk_free_bytes",
    "Log engine: bytes free for ess on its data directory's file system.",
    (fs) => fs.bavail * fs.bsize,
  );
  disk(
    "ess_storage_disk_size_bytes",
    "Log engine: size in bytes of its data directory's file system.",
    (fs) => fs.blocks * fs.bsize,
  );
  new client.Gauge({
    name: "ess_subscriptions_live",
    help: "Subscriptions open now (WebSocket and gRPC Streams.Subscribe).",
    registers,
    collect() {
      this.set(sources.liveSubscriptions());
    },
  });
  new client.Gauge({
    name: "ess_subscription_buffered_bytes",
    help: "Bytes of subscription messages queued to clients and not yet written to their sockets.",
    registers,
    collect() {
      this.set(sources.subscriptionBufferedBytes());
    },
  });
}

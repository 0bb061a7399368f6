/**
 * The request counter and latency histogram, kept as plain numbers on the hot path and handed to
 * prom-client when Prometheus scrapes.
 *
 * prom-client's own labelled `inc` and `observe` hash the label set on every call (about a
 * microsecond for the pair, measured): on the operations' path that is a cost per request the
 * service does not need to pay. Here a request adds to the numbers of its series (looked up
 * once per interface and operation for outcome ok, bound at start-up), and a scrape turns them
 * into prom-client's metric values: the counter through its `collect`, the histogram through a
 * metric object of prom-client's `get()` shape registered with the registry, which formats both
 * (no exposition text is written here).
 */
import * as client from "prom-client";

export interface RequestLabels {
  interface: string;
  operation: string;
  outcome: string;
}

/** One label set's numbers. */
export class RequestSeries {
  /** ess_requests_total. */
  count = 0;
  /** The histogram: observations, their sum, and how many fell in each bucket (the last: +Inf). */
  observed = 0;
  sum = 0;
  readonly buckets: number[];

  constructor(
    readonly labels: RequestLabels,
    bucketCount: number,
  ) {
    this.buckets = new Array<number>(bucketCount + 1).fill(0);
  }
}

export class RequestCounts {
  private readonly all: RequestSeries[] = [];
  private readonly byKey = new Map<string, RequestSeries>();

  constructor(private readonly bounds: readonly number[]) {}

  /** The series of a label set, made on first use (label values are from fixed, small sets). */
  series(iface: string, operation: string, outcome: string): RequestSeries {
    const key = `${iface} ${operation} ${outcome}`;
    let series = this.byKey.get(key);
    if (series === undefined) {
      series = new RequestSeries({ interface: iface, operation, outcome }, this.bounds.length);
      this.byKey.set(key, series);
      this.all.push(series);
    }
    return series;
  }

  /** A request that ran: counted, and its latency observed. */
  observe(series: RequestSeries, seconds: number): void {
    series.count++;
    series.observed++;
    series.sum += seconds;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    series.buckets[i]!++;
  }

  /** A request refused before it ran: counted, with no latency. */
  countOnly(series: RequestSeries): void {
    series.count++;
  }

  /** Registers ess_requests_total and ess_request_duration_seconds in `registry`. */
  register(registry: client.Registry): void {
    const all = this.all;
    new client.Counter({
      name: "ess_requests_total",
      help: "Requests answered, by interface, operation and outcome (ok or the error code).",
      labelNames: ["interface", "operation", "outcome"],
      registers: [registry],
      collect() {
        this.reset();
        for (const series of all) this.inc({ ...series.labels }, series.count);
      },
    });
    const name = "ess_request_duration_seconds";
    const help = "Time from the operation's start to its result, by interface, operation and outcome.";
    const histogram = {
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      get: () =>
        Promise.resolve({ name, help, type: "histogram", aggregator: "sum", values: this.values(name) }),
      reset: () => undefined,
    };
    // prom-client's Metric type names its own classes only; a registry takes any object of
    // their `get()` shape (as its cluster aggregation builds them).
    registry.registerMetric(histogram as unknown as client.Metric);
  }

  /** The histogram's values as prom-client's `get()` gives them: cumulative buckets, sum, count. */
  private values(
    name: string,
  ): { labels: Record<string, string | number>; value: number; metricName: string }[] {
    const values = [];
    for (const series of this.all) {
      if (series.observed === 0) continue;
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += series.buckets[i]!;
        const le = i < this.bounds.length ? this.bounds[i]! : "+Inf";
        values.push({ labels: { ...series.labels, le }, value: cumulative, metricName: `${name}_bucket` });
      }
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.observed, metricName: `${name}_count` });
    }
    return values;
  }
}

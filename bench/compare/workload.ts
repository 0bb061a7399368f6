/**
 * The one workload every system in the comparison runs: 200-byte JSON events spread over
 * 1,000 streams, appended with an exact expected revision (optimistic concurrency, as an
 * event-sourced application does after loading an aggregate), and 100-event stream reads.
 * Invariants: every event's JSON text is exactly eventBytes long; stream names are the same
 * for every system; the latency recorder holds at most latencySamplesMax samples.
 */

/** Bytes of JSON text in one event's data. */
export const eventBytes = 200;
/** Streams the appends are spread over. */
export const appendStreamCount = 1000;
/** Events in each stream the read cell reads. */
export const readStreamEvents = 100;
/** The event type every appended event carries. */
export const eventType = "OrderPlaced";
/** Latency samples kept per cell; appends past it are counted but not timed. */
export const latencySamplesMax = 2_000_000;

export function appendStreamName(index: number): string {
  return `cmp-a-${index}`;
}

export function readStreamName(index: number): string {
  return `cmp-r-${index}`;
}

/** Padding characters to slice from (an event's `note`). */
const padding = "x".repeat(eventBytes);

/**
 * One event's data as JSON text of exactly eventBytes bytes (ASCII only, so characters are
 * bytes). The sequence number makes every event distinct. The text is what JSON.stringify
 * writes for { order_id, customer_id, amount_cents, currency, placed_at, note }, built directly:
 * the load generator makes one per append, and its CPU is taken from the server it measures.
 */
export function makeEventJson(sequence: number): string {
  const head =
    `{"order_id":"o-${sequence}","customer_id":"c-${sequence % 9973}",` +
    `"amount_cents":${(sequence * 7919) % 100000},"currency":"EUR",` +
    `"placed_at":"2026-01-01T00:00:00.000Z","note":"`;
  const room = eventBytes - head.length - 2;
  if (room < 0) throw new Error(`event ${sequence} is longer than ${eventBytes} bytes`);
  return head + padding.slice(0, room) + '"}';
}

/** Latencies of one cell in microseconds, bounded; percentiles by sorting once at the end. */
export class LatencyRecorder {
  private readonly samples: Float64Array;
  private length = 0;

  constructor(capacity: number = latencySamplesMax) {
    this.samples = new Float64Array(capacity);
  }

  record(microseconds: number): void {
    if (this.length < this.samples.length) this.samples[this.length++] = microseconds;
  }

  /** Percentile p in 0..100, in milliseconds (nearest rank); NaN when nothing was recorded. */
  percentilesMs(ps: number[]): number[] {
    if (this.length === 0) return ps.map(() => NaN);
    const sorted = this.samples.slice(0, this.length).sort();
    return ps.map((p) => {
      const rank = Math.min(this.length - 1, Math.max(0, Math.ceil((p / 100) * this.length) - 1));
      return (sorted[rank] ?? NaN) / 1000;
    });
  }
}

/** Monotonic microseconds. */
export function nowMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

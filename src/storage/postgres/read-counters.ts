/**
 * The tenants' `reads_total` on the postgres engine: counted in memory per node and added to the
 * tenant rows every second and at close (an UPDATE per read would turn every read into a write).
 *
 * Invariant: flushes and the usage queries that add the counts still in memory run one at a
 * time (gated), so a usage answer counts each read exactly once: in the row or in memory, never
 * both or neither. A failed flush puts its counts back for the next one.
 */
import type pg from "pg";
import type { Logger } from "../../logger.js";

/** Milliseconds between flushes of the in-memory read counters to the tenant rows. */
const readsFlushIntervalMs = 1000;

export class ReadCounters {
  private readonly pending = new Map<string, number>();
  private gate: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
  ) {}

  /** Starts the flushes every readsFlushIntervalMs (the timer does not hold the process). */
  start(): void {
    this.timer = setInterval(() => {
      this.flush().catch((error: Error) => this.log.warn("reads flush failed", { error: error.message }));
    }, readsFlushIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  count(tenantId: string): void {
    this.pending.set(tenantId, (this.pending.get(tenantId) ?? 0) + 1);
  }

  /** Reads of the tenant counted here and not yet added to its row (call inside gated()). */
  pendingFor(tenantId: string): number {
    return this.pending.get(tenantId) ?? 0;
  }

  /**
   * Runs flushes of the read counters and the usage queries one at a time, so a usage answer
   * counts each read exactly once (in the row or still in memory, never both or neither).
   */
  gated<T>(body: () => Promise<T>): Promise<T> {
    const next = this.gate.then(body);
    this.gate = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  flush(): Promise<void> {
    return this.gated(() => this.flushNow());
  }

  private async flushNow(): Promise<void> {
    if (this.pending.size === 0) return;
    const tenants = [...this.pending.keys()];
    const counts = tenants.map((t) => this.pending.get(t) ?? 0);
    this.pending.clear();
    try {
      await this.pool.query(
        `UPDATE ess_tenants t SET reads_total = t.reads_total + u.n
         FROM unnest($1::text[], $2::bigint[]) AS u(tenant_id, n) WHERE t.tenant_id = u.tenant_id`,
        [tenants, counts],
      );
    } catch (error) {
      // Put the counts back; they are added on the next flush.
      tenants.forEach((t, i) => this.pending.set(t, (this.pending.get(t) ?? 0) + (counts[i] ?? 0)));
      throw error;
    }
  }
}

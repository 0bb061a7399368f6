/**
 * Appends and reads per second per tenant, from the running totals the service reports
 * (`appends_total`, `reads_total` of TenantUsage): the difference between two samples over the
 * time between them. The first sample of a tenant has no rate yet (null); so does a sample
 * whose total went down (the service restarted and its counters began again), which becomes
 * the new base.
 */

export interface CounterSample {
  tenant_id: string;
  appends_total: number;
  reads_total: number;
}

export interface TenantRates {
  appendsPerSecond: number | null;
  readsPerSecond: number | null;
}

interface Previous {
  atMs: number;
  appends: number;
  reads: number;
}

function rate(now: number, previous: number, elapsedSeconds: number): number | null {
  if (now < previous || elapsedSeconds <= 0) return null;
  return (now - previous) / elapsedSeconds;
}

export class CounterRates {
  private readonly previous = new Map<string, Previous>();

  /** Takes a sample of every tenant's totals at `atMs`; returns each tenant's rates since the last one. */
  update(atMs: number, samples: readonly CounterSample[]): Map<string, TenantRates> {
    const rates = new Map<string, TenantRates>();
    for (const sample of samples) {
      const before = this.previous.get(sample.tenant_id);
      const elapsedSeconds = before === undefined ? 0 : (atMs - before.atMs) / 1000;
      rates.set(sample.tenant_id, {
        appendsPerSecond: before ? rate(sample.appends_total, before.appends, elapsedSeconds) : null,
        readsPerSecond: before ? rate(sample.reads_total, before.reads, elapsedSeconds) : null,
      });
      this.previous.set(sample.tenant_id, {
        atMs,
        appends: sample.appends_total,
        reads: sample.reads_total,
      });
    }
    return rates;
  }
}

/**
 * `index-state.json`: what the index knows that no record of the log carries: the tenants'
 * `reads_total` counters. Saved whenever a segment's index file is written and at close
 * (atomically: temp file, fsync, rename, fsync dir); a crash loses the reads since the last save.
 */
import { readJsonFile, writeFileAtomic } from "./auth-store.js";
import type { TenantState } from "./log-index.js";

export const INDEX_STATE_FILE = "index-state.json";

export interface IndexState {
  reads: Map<string, number>;
}

export function saveIndexState(dir: string, tenants: Iterable<TenantState>): void {
  const reads: Record<string, number> = {};
  for (const t of tenants) if (t.readsTotal > 0) reads[t.tenantId] = t.readsTotal;
  writeFileAtomic(dir, INDEX_STATE_FILE, JSON.stringify({ reads }) + "\n");
}

/** The saved state; empty without a file, with a reason when the file is not usable. */
export function loadIndexState(dir: string): { value: IndexState; problem: string | null } {
  const empty: IndexState = { reads: new Map() };
  const read = readJsonFile(dir, INDEX_STATE_FILE);
  if (read.value === undefined) return { value: empty, problem: read.problem };
  const v = read.value;
  const saved: unknown = typeof v === "object" && v !== null && "reads" in v ? v.reads : null;
  if (typeof saved !== "object" || saved === null) return { value: empty, problem: "not the expected shape" };
  const reads = new Map<string, number>();
  for (const [tenant, count] of Object.entries(saved)) {
    if (!Number.isSafeInteger(count) || (count as number) < 0)
      return { value: empty, problem: "not the expected shape" };
    reads.set(tenant, count as number);
  }
  return { value: { reads }, problem: null };
}

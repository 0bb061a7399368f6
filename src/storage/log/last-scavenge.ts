/**
 * The last real scavenge's result, kept in `last-scavenge.json` in the data directory so that
 * storage status reports it after a restart (the index is derived from the log, which does not
 * carry it). Written atomically (temp file, fsync, rename, fsync dir).
 */
import type { LastScavenge } from "../../contract/bodies.js";
import { readJsonFile, writeFileAtomic } from "./auth-store.js";

export const LAST_SCAVENGE_FILE = "last-scavenge.json";

const counts = [
  "events_removed",
  "bytes_reclaimed",
  "segments_rewritten",
  "streams_affected",
  "duration_ms",
] as const;

export function saveLastScavenge(dir: string, last: LastScavenge): void {
  writeFileAtomic(dir, LAST_SCAVENGE_FILE, JSON.stringify(last) + "\n");
}

/** The saved result; null without a file, or with a reason when the file is not usable. */
export function loadLastScavenge(dir: string): { value: LastScavenge | null; problem: string | null } {
  const read = readJsonFile(dir, LAST_SCAVENGE_FILE);
  if (read.value === undefined) return { value: null, problem: read.problem };
  const v = read.value as Record<string, unknown> | null;
  const ok =
    typeof v === "object" &&
    v !== null &&
    typeof v.dry_run === "boolean" &&
    typeof v.finished_at === "string" &&
    !Number.isNaN(Date.parse(v.finished_at)) &&
    counts.every((k) => Number.isSafeInteger(v[k]) && (v[k] as number) >= 0);
  if (!ok) return { value: null, problem: "not the expected shape" };
  const last: LastScavenge = {
    dry_run: v.dry_run as boolean,
    events_removed: v.events_removed as number,
    bytes_reclaimed: v.bytes_reclaimed as number,
    segments_rewritten: v.segments_rewritten as number,
    streams_affected: v.streams_affected as number,
    duration_ms: v.duration_ms as number,
    finished_at: v.finished_at as string,
  };
  return { value: last, problem: null };
}

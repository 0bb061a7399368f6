/**
 * The byte budget of one read page, shared by the engines: ReadStreamInput.bytes_max and
 * ReadAllInput.bytes_max, defaulting to limits.readPageBytesMax; and the rest of a ReadAllInput
 * both engines check alike (planReadAll).
 */
import { EventMatcher, isFiltering, parseEventFilter } from "../contract/event-filter.js";
import { invalidArgument } from "../errors.js";
import { limits } from "../limits.js";
import type { ReadAllInput } from "./engine.js";

export function pageBytesMax(bytesMax: number | undefined): number {
  if (bytesMax === undefined) return limits.readPageBytesMax;
  if (!Number.isSafeInteger(bytesMax) || bytesMax < 1) {
    throw invalidArgument("bytes_max must be a whole number >= 1", { field: "bytes_max" });
  }
  return bytesMax;
}

/** What both engines take from a ReadAllInput beyond its tenant, limit and byte budget. */
export interface ReadAllPlan {
  backward: boolean;
  /** As ReadAllInput.from_position. */
  from: number | null;
  /** null: every event passes. */
  matcher: EventMatcher | null;
  skipMax: number;
}

/**
 * Checks a ReadAllInput's direction, start, filter and skip bound (the engine's own guard: the
 * filter is checked again, by the same rules, as a direct caller's may not have been).
 */
export function planReadAll(input: ReadAllInput): ReadAllPlan {
  const from = input.from_position;
  if (from !== null && (!Number.isSafeInteger(from) || from < 0)) {
    throw invalidArgument("from_position must be a whole number >= 0", { field: "from_position" });
  }
  const direction = input.direction ?? "forward";
  if (direction !== "forward" && direction !== "backward") {
    throw invalidArgument("direction must be forward or backward", { field: "direction" });
  }
  const skipMax = input.skip_max ?? limits.readAllSkipMax;
  if (!Number.isSafeInteger(skipMax) || skipMax < 0) {
    throw invalidArgument("skip_max must be a whole number >= 0", { field: "skip_max" });
  }
  const filter = isFiltering(input.filter) ? parseEventFilter(input.filter) : null;
  return {
    backward: direction === "backward",
    from,
    matcher: filter === null ? null : new EventMatcher(filter),
    skipMax,
  };
}

/**
 * The postgres engine's last check of an append before anything is written: the check both
 * engines share (../validate-input.ts, the contract's rules), plus what PostgreSQL itself cannot
 * store. Refuses with INVALID_ARGUMENT / PAYLOAD_TOO_LARGE, never writes half.
 */
import { invalidArgument } from "../../errors.js";
import { limits } from "../../limits.js";
import type { AppendInput } from "../engine.js";
import { checkAppendInput } from "../validate-input.js";

export function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > limits.readPageMax) {
    throw invalidArgument(`limit must be 1..${limits.readPageMax}`, { field: "limit" });
  }
}

export function checkStart(field: "from_revision" | "from_position", value: number | null): void {
  if (value !== null && (!Number.isSafeInteger(value) || value < 0)) {
    throw invalidArgument(`${field} must be a whole number >= 0`, { field });
  }
}

/** Returns each event's byte size (event type, data and metadata as UTF-8). */
export function checkAppend(input: AppendInput): number[] {
  const jsonBytes: number[] = [];
  checkAppendInput(input, jsonBytes);
  return input.events.map((event, i) => {
    // PostgreSQL text cannot hold U+0000, which the contract allows in an event type.
    if (event.event_type.includes("\u0000")) {
      const field = `events[${i}].event_type`;
      throw invalidArgument(`${field} must not hold U+0000 in this engine`, { field });
    }
    return Buffer.byteLength(event.event_type, "utf8") + jsonBytes[i]!;
  });
}

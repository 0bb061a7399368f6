/**
 * An engine's own check of its input, one for both engines, run before anything is queued or
 * written: a bug above, or a caller of the engine itself (the conformance suite, the tools),
 * must never reach disk. It applies the contract's rules with the functions the operations run
 * as the authoritative check of a request (../contract/rules.ts), so a direct call is refused
 * with the same code and message as a request through any interface.
 *
 * What an append the operations already checked pays here: the id, event type, event id and
 * size rules once more (short strings, a few hundred nanoseconds), and for each payload the
 * operations marked (./checked-json.ts) a shape check ("{" ... "}") instead of a second JSON
 * parse and UTF-8 scan. Everything else is fully checked.
 */
import { invalidArgument } from "../errors.js";
import type { Retention } from "../contract/bodies.js";
import {
  isJsonObjectText,
  isStoredEventId,
  requireAppendBytes,
  requireDistinctEventIds,
  requireEventBytes,
  requireEventCount,
  requireEventType,
  requireExpectedRevision,
  requireId,
  requireWellFormedJson,
} from "../contract/rules.js";
import { arePayloadsParsed } from "./checked-json.js";
import type { AppendInput } from "./engine.js";

export function checkId(field: "tenant_id" | "stream_id", value: unknown): asserts value is string {
  requireId(value, field);
}

/** Starts with "{" and ends with "}": what every JSON object text a parser accepted looks like. */
function hasObjectShape(text: string): boolean {
  return text.charCodeAt(0) === 0x7b && text.charCodeAt(text.length - 1) === 0x7d;
}

/** Refuses an append that breaks a rule. Returns each event's bytes of JSON (data plus metadata). */
export function checkAppendInput(input: AppendInput): number[] {
  checkId("tenant_id", input.tenant_id);
  checkId("stream_id", input.stream_id);
  requireExpectedRevision(input.expected_revision);
  const events = input.events;
  if (!Array.isArray(events)) throw invalidArgument("events must be an array", { field: "events" });
  requireEventCount(events.length);
  const jsonBytes: number[] = [];
  let total = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const field = `events[${i}]`;
    if (!isStoredEventId(e.event_id)) {
      throw invalidArgument(`${field}.event_id is not a lowercase UUID`, { field: `${field}.event_id` });
    }
    requireEventType(e.event_type, `${field}.event_type`);
    if (typeof e.data !== "string" || typeof e.metadata !== "string") {
      throw invalidArgument(`${field} data and metadata must be JSON text`, { field });
    }
    const bytes = Buffer.byteLength(e.data, "utf8") + Buffer.byteLength(e.metadata, "utf8");
    requireEventBytes(bytes, `${field}.data`);
    // Payloads a parser above already accepted as objects get only a shape check (checked-json.ts);
    // the operations checked their text is valid UTF-8 too.
    const parsed = arePayloadsParsed(e);
    const isObjectText = parsed ? hasObjectShape : isJsonObjectText;
    if (!isObjectText(e.data)) {
      throw invalidArgument(`${field}.data is not a JSON object`, { field: `${field}.data` });
    }
    if (!isObjectText(e.metadata)) {
      throw invalidArgument(`${field}.metadata is not a JSON object`, { field: `${field}.metadata` });
    }
    if (!parsed) {
      requireWellFormedJson(e.data, `${field}.data`);
      requireWellFormedJson(e.metadata, `${field}.metadata`);
    }
    jsonBytes.push(bytes);
    total += bytes;
  }
  requireAppendBytes(total);
  requireDistinctEventIds(events);
  return jsonBytes;
}

export function checkRetention(retention: Retention): void {
  for (const field of ["max_age_seconds", "max_count", "truncate_before"] as const) {
    const value = retention[field];
    if (value === null) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw invalidArgument(`${field} must be null or a whole number >= 0`, { field });
    }
  }
}

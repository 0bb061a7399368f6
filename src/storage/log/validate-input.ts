/**
 * The engine's own input checks. The operations layer validates first, but the engine refuses
 * bad input again, before anything is queued or written: a bug above must never reach disk.
 */
import { invalidArgument, payloadTooLarge } from "../../errors.js";
import { limits } from "../../limits.js";
import { arePayloadsParsed } from "../checked-json.js";
import { isWellFormed, requireWellFormedJson } from "../../utf8.js";
import type { ExpectedRevision, Retention } from "../../contract/bodies.js";
import type { AppendInput } from "../engine.js";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const controlPattern = /[\u0000-\u001f\u007f-\u009f]/;

export function checkId(what: "tenant_id" | "stream_id", value: unknown): asserts value is string {
  if (typeof value !== "string" || value.length === 0)
    throw invalidArgument(`${what} must be a non-empty string`);
  if (Buffer.byteLength(value, "utf8") > limits.idBytesMax) {
    throw invalidArgument(`${what} is longer than ${limits.idBytesMax} bytes`, { field: what });
  }
  if (value.startsWith("$")) throw invalidArgument(`${what} must not start with '$'`, { field: what });
  if (controlPattern.test(value))
    throw invalidArgument(`${what} must not contain control characters`, { field: what });
  // A lone surrogate would be written as U+FFFD: two ids could land in one stream.
  if (!isWellFormed(value)) throw invalidArgument(`${what} is not valid UTF-8`, { field: what });
}

export function isJsonObjectText(text: string): boolean {
  // Cheap rejection first; JSON.parse only for text that could be an object.
  const first = text.trimStart()[0];
  if (first !== "{") return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Starts with "{" and ends with "}": what every JSON object text a parser accepted looks like. */
function hasObjectShape(text: string): boolean {
  return text.charCodeAt(0) === 0x7b && text.charCodeAt(text.length - 1) === 0x7d;
}

function checkExpectedRevision(value: ExpectedRevision): void {
  if (value === "any" || value === "no_stream" || value === "stream_exists") return;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return;
  throw invalidArgument("expected_revision must be any, no_stream, stream_exists or a revision", {
    field: "expected_revision",
  });
}

export function checkAppendInput(input: AppendInput): void {
  checkId("tenant_id", input.tenant_id);
  checkId("stream_id", input.stream_id);
  checkExpectedRevision(input.expected_revision);
  const events = input.events;
  if (!Array.isArray(events) || events.length === 0)
    throw invalidArgument("an append needs at least one event");
  if (events.length > limits.appendEventsMax) {
    throw invalidArgument(`an append holds at most ${limits.appendEventsMax} events`, {
      count: events.length,
    });
  }
  const seen = new Set<string>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (typeof e.event_id !== "string" || !uuidPattern.test(e.event_id)) {
      throw invalidArgument(`events[${i}].event_id is not a canonical lowercase UUID`, { index: i });
    }
    if (seen.has(e.event_id))
      throw invalidArgument(`events[${i}].event_id appears twice in the batch`, { index: i });
    seen.add(e.event_id);
    if (typeof e.event_type !== "string" || e.event_type.length === 0) {
      throw invalidArgument(`events[${i}].event_type must be a non-empty string`, { index: i });
    }
    if (!isWellFormed(e.event_type)) {
      throw invalidArgument(`events[${i}].event_type is not valid UTF-8`, { index: i });
    }
    if (Buffer.byteLength(e.event_type, "utf8") > limits.eventTypeBytesMax) {
      throw invalidArgument(`events[${i}].event_type is longer than ${limits.eventTypeBytesMax} bytes`, {
        index: i,
      });
    }
    if (typeof e.data !== "string" || typeof e.metadata !== "string") {
      throw invalidArgument(`events[${i}] data and metadata must be JSON text`, { index: i });
    }
    const bytes = Buffer.byteLength(e.data, "utf8") + Buffer.byteLength(e.metadata, "utf8");
    if (bytes > limits.eventBytesMax) {
      throw payloadTooLarge(`events[${i}] is larger than ${limits.eventBytesMax} bytes`, { index: i, bytes });
    }
    // Payloads a parser above already accepted as objects get only a shape check (checked-json.ts);
    // the operations checked their text is valid UTF-8 too.
    const parsed = arePayloadsParsed(e);
    const isObjectText = parsed ? hasObjectShape : isJsonObjectText;
    if (!isObjectText(e.data)) throw invalidArgument(`events[${i}].data is not a JSON object`, { index: i });
    if (!isObjectText(e.metadata)) {
      throw invalidArgument(`events[${i}].metadata is not a JSON object`, { index: i });
    }
    if (!parsed) {
      requireWellFormedJson(e.data, `events[${i}].data`);
      requireWellFormedJson(e.metadata, `events[${i}].metadata`);
    }
  }
}

export function checkRetention(r: Retention): void {
  const fields = ["max_age_seconds", "max_count", "truncate_before"] as const;
  for (const f of fields) {
    const v = r[f];
    if (v === null) continue;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
      throw invalidArgument(`${f} must be null or a whole number >= 0`, { field: f });
    }
  }
}

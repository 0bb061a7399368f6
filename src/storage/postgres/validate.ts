/**
 * The engine's own last check of an append before anything is written (the operations layer
 * validated it already; this guards the database against a caller that did not). Refuses with
 * INVALID_ARGUMENT / PAYLOAD_TOO_LARGE, never writes half.
 */
import { invalidArgument, payloadTooLarge } from "../../errors.js";
import { limits } from "../../limits.js";
import type { ExpectedRevision, Retention } from "../../contract/bodies.js";
import type { AppendInput } from "../engine.js";
import { isWellFormed, requireWellFormedJson } from "../../utf8.js";
import { arePayloadsParsed } from "../checked-json.js";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const controlPattern = /[\u0000-\u001f\u007f]/;

export function checkId(kind: "stream_id" | "tenant_id", value: string): void {
  // A lone surrogate would reach PostgreSQL as U+FFFD (the driver encodes text so): two ids
  // could land in one stream.
  if (!isWellFormed(value)) throw invalidArgument(`${kind} is not valid UTF-8`, { field: kind });
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes < 1 || bytes > limits.idBytesMax || controlPattern.test(value) || value.startsWith("$")) {
    throw invalidArgument(
      `${kind} must be 1..${limits.idBytesMax} bytes, without control characters, not starting with $`,
      {
        field: kind,
      },
    );
  }
}

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

export function checkRetention(retention: Retention): void {
  for (const field of ["max_age_seconds", "max_count", "truncate_before"] as const) {
    const value = retention[field];
    if (value !== null && (!Number.isSafeInteger(value) || value < 0)) {
      throw invalidArgument(`${field} must be null or a whole number >= 0`, { field });
    }
  }
}

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function checkExpected(expected: ExpectedRevision): void {
  if (expected === "any" || expected === "no_stream" || expected === "stream_exists") return;
  if (typeof expected !== "number" || !Number.isSafeInteger(expected) || expected < 0) {
    throw invalidArgument("expected_revision must be any, no_stream, stream_exists or a revision", {
      field: "expected_revision",
    });
  }
}

/** Returns each event's byte size (event type, data and metadata as UTF-8). */
export function checkAppend(input: AppendInput): number[] {
  checkId("tenant_id", input.tenant_id);
  checkId("stream_id", input.stream_id);
  checkExpected(input.expected_revision);
  const count = input.events.length;
  if (count < 1 || count > limits.appendEventsMax) {
    throw invalidArgument(`an append holds 1..${limits.appendEventsMax} events`, { field: "events" });
  }
  const seen = new Set<string>();
  const sizes: number[] = [];
  let total = 0;
  for (const event of input.events) {
    if (!uuidPattern.test(event.event_id)) {
      throw invalidArgument("event_id must be a lowercase UUID", { field: "event_id" });
    }
    if (seen.has(event.event_id)) {
      throw invalidArgument("an append names the same event_id twice", { field: "event_id" });
    }
    seen.add(event.event_id);
    const typeBytes = Buffer.byteLength(event.event_type, "utf8");
    if (typeBytes < 1 || typeBytes > limits.eventTypeBytesMax || event.event_type.includes("\u0000")) {
      throw invalidArgument(`event_type must be 1..${limits.eventTypeBytesMax} bytes`, {
        field: "event_type",
      });
    }
    const bodyBytes = Buffer.byteLength(event.data, "utf8") + Buffer.byteLength(event.metadata, "utf8");
    if (bodyBytes > limits.eventBytesMax) {
      throw payloadTooLarge(`an event holds at most ${limits.eventBytesMax} bytes of JSON`, {
        limit: limits.eventBytesMax,
      });
    }
    if (!isJsonObjectText(event.data)) {
      throw invalidArgument("data must be the JSON text of an object", { field: "data" });
    }
    if (!isJsonObjectText(event.metadata)) {
      throw invalidArgument("metadata must be the JSON text of an object", { field: "metadata" });
    }
    if (!isWellFormed(event.event_type)) {
      throw invalidArgument("event_type is not valid UTF-8", { field: "event_type" });
    }
    // Payloads the operations marked were checked there (../checked-json.ts).
    if (!arePayloadsParsed(event)) {
      requireWellFormedJson(event.data, "data");
      requireWellFormedJson(event.metadata, "metadata");
    }
    const size = typeBytes + bodyBytes;
    sizes.push(size);
    total += size;
  }
  if (total > limits.appendBodyBytesMax) {
    throw payloadTooLarge(`an append holds at most ${limits.appendBodyBytesMax} bytes`, {
      limit: limits.appendBodyBytesMax,
    });
  }
  return sizes;
}

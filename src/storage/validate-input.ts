/**
 * An engine's own check of its input, one for both engines, run before anything is queued or
 * written: a bug above, or a caller of the engine itself (the conformance suite, the tools),
 * must never reach disk. It applies the contract's rules with the functions the operations run
 * as the authoritative check of a request (../contract/rules.ts), so a direct call is refused
 * with the same code and message as a request through any interface.
 *
 * What an append the operations already checked pays here: the id, event type, event id and
 * size rules once more (short strings, a few hundred nanoseconds); its payloads are checked
 * Payloads (../contract/payload.ts), taken as they are, their sizes counted once. Text a direct
 * caller gives, or a payload not checked yet, is checked in full.
 */
import { invalidArgument } from "../errors.js";
import type { Retention } from "../contract/bodies.js";
import { Payload } from "../contract/payload.js";
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
import type { AppendInput, PayloadInput } from "./engine.js";

/** The JSON text of a payload as an engine takes it. */
export function payloadText(payload: PayloadInput): string {
  return typeof payload === "string" ? payload : payload.text;
}

function isPayloadInput(value: unknown): value is PayloadInput {
  return typeof value === "string" || value instanceof Payload;
}

function payloadBytes(payload: PayloadInput): number {
  return typeof payload === "string" ? Buffer.byteLength(payload, "utf8") : payload.byteLength;
}

function isChecked(payload: PayloadInput): boolean {
  return typeof payload !== "string" && payload.isChecked;
}

export function checkId(field: "tenant_id" | "stream_id", value: unknown): asserts value is string {
  requireId(value, field);
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
    const data = e.data;
    const metadata = e.metadata;
    if (!isPayloadInput(data) || !isPayloadInput(metadata)) {
      throw invalidArgument(`${field} data and metadata must be JSON text`, { field });
    }
    const bytes = payloadBytes(data) + payloadBytes(metadata);
    requireEventBytes(bytes, `${field}.data`);
    const dataChecked = isChecked(data);
    const metadataChecked = isChecked(metadata);
    if (!dataChecked && !isJsonObjectText(payloadText(data))) {
      throw invalidArgument(`${field}.data is not a JSON object`, { field: `${field}.data` });
    }
    if (!metadataChecked && !isJsonObjectText(payloadText(metadata))) {
      throw invalidArgument(`${field}.metadata is not a JSON object`, { field: `${field}.metadata` });
    }
    if (!dataChecked) requireWellFormedJson(payloadText(data), `${field}.data`);
    if (!metadataChecked) requireWellFormedJson(payloadText(metadata), `${field}.metadata`);
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

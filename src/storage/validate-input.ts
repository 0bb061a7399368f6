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
import { limits } from "../limits.js";
import type { Retention } from "../contract/bodies.js";
import { Payload } from "../contract/payload.js";
import {
  isEventType,
  isJsonText,
  isPlainWellFormedJson,
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

/** The JSON text of a payload as an engine takes it ("" for bytes: see payloadBinary). */
export function payloadText(payload: PayloadInput): string {
  if (typeof payload === "string") return payload;
  return payload instanceof Payload ? payload.text : "";
}

/** The bytes of a bytes payload (a Buffer, or a bytes Payload); null for JSON text. */
export function payloadBinary(payload: PayloadInput): Buffer | null {
  if (typeof payload === "string") return null;
  return payload instanceof Payload ? payload.bytes : payload;
}

/** A payload as the stored record takes it: its JSON text, or its bytes. */
export function payloadContent(payload: PayloadInput): string | Buffer {
  if (typeof payload === "string") return payload;
  return payload instanceof Payload ? (payload.bytes ?? payload.text) : payload;
}

function isPayloadInput(value: unknown): value is PayloadInput {
  return typeof value === "string" || value instanceof Payload || Buffer.isBuffer(value);
}

function payloadBytes(payload: PayloadInput): number {
  if (typeof payload === "string") return Buffer.byteLength(payload, "utf8");
  return payload instanceof Payload ? payload.byteLength : payload.length;
}

/** A checked Payload, or bytes (any bytes are valid). */
function isChecked(payload: PayloadInput): boolean {
  return typeof payload !== "string" && (!(payload instanceof Payload) || payload.isChecked);
}

/**
 * Refuses JSON text a direct caller gave that is not JSON, or holds a lone surrogate. The
 * field's name (events[i].data) is built only for an error.
 */
function checkJsonPart(payload: PayloadInput, i: number, part: "data" | "metadata"): void {
  if (isChecked(payload)) return;
  const text = payloadText(payload);
  if (!isJsonText(text)) {
    const field = `events[${i}].${part}`;
    throw invalidArgument(`${field} is not JSON`, { field });
  }
  if (!isPlainWellFormedJson(text)) requireWellFormedJson(text, `events[${i}].${part}`);
}

export function checkId(field: "tenant_id" | "stream_id", value: unknown): asserts value is string {
  requireId(value, field);
}

/**
 * Refuses an append that breaks a rule. Fills `jsonBytes` (when given) with each event's bytes
 * of data plus metadata.
 */
export function checkAppendInput(input: AppendInput, jsonBytes?: number[]): void {
  checkId("tenant_id", input.tenant_id);
  checkId("stream_id", input.stream_id);
  requireExpectedRevision(input.expected_revision);
  const events = input.events;
  if (!Array.isArray(events)) throw invalidArgument("events must be an array", { field: "events" });
  requireEventCount(events.length);
  let total = 0;
  // Field names (events[i]...) are built only for an error: one per event cost a string each.
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (!isStoredEventId(e.event_id)) {
      const field = `events[${i}].event_id`;
      throw invalidArgument(`${field} is not a lowercase UUID`, { field });
    }
    if (!isEventType(e.event_type)) requireEventType(e.event_type, `events[${i}].event_type`);
    const data = e.data;
    const metadata = e.metadata;
    if (!isPayloadInput(data) || !isPayloadInput(metadata)) {
      const field = `events[${i}]`;
      throw invalidArgument(`${field} data and metadata must be JSON text or bytes`, { field });
    }
    const bytes = payloadBytes(data) + payloadBytes(metadata);
    if (bytes > limits.eventBytesMax) requireEventBytes(bytes, `events[${i}].data`);
    checkJsonPart(data, i, "data");
    checkJsonPart(metadata, i, "metadata");
    jsonBytes?.push(bytes);
    total += bytes;
  }
  requireAppendBytes(total);
  requireDistinctEventIds(events);
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

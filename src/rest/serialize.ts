/**
 * JSON output of the read routes without touching event payloads. The engine hands `data` and
 * `metadata` over as JSON text (exactly the bytes that were appended); parsing that text only
 * to stringify it again would cost time on the hottest path and could change the bytes (number
 * formatting, key order of duplicate keys, escapes). So the read results are written by
 * splicing that text into the output as is, while every other value goes through
 * JSON.stringify. Fields the results may gain later are written too, in their own order.
 */
import type { EventRecord, ReadAllResult, ReadResult } from "../operations/contract.js";

/** Fields of an EventRecord that hold JSON text to be embedded, not quoted. */
const rawJsonFields = new Set(["data", "metadata"]);

function eventJson(event: EventRecord): string {
  let out = "{";
  let first = true;
  for (const [key, value] of Object.entries(event)) {
    if (value === undefined) continue;
    out += first ? "" : ",";
    first = false;
    out += JSON.stringify(key) + ":";
    // A string here is the engine's JSON text of an object. Anything else (a transport that
    // already parsed it) is stringified, so the output stays valid JSON either way.
    out += rawJsonFields.has(key) && typeof value === "string" ? value : JSON.stringify(value);
  }
  return out + "}";
}

function eventsJson(events: EventRecord[]): string {
  let out = "[";
  for (let i = 0; i < events.length; i++) {
    if (i > 0) out += ",";
    out += eventJson(events[i] as EventRecord);
  }
  return out + "]";
}

/** JSON text of a ReadResult or ReadAllResult, with event payloads spliced in unchanged. */
export function serializeEventsResult(result: ReadResult | ReadAllResult): string {
  let out = "{";
  let first = true;
  for (const [key, value] of Object.entries(result)) {
    if (value === undefined) continue;
    out += first ? "" : ",";
    first = false;
    out += JSON.stringify(key) + ":";
    out +=
      key === "events" && Array.isArray(value) ? eventsJson(value as EventRecord[]) : JSON.stringify(value);
  }
  return out + "}";
}

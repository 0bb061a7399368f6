/**
 * JSON output of the read routes without touching event payloads. The engine hands `data` and
 * `metadata` over as JSON text (exactly the bytes that were appended); parsing that text only
 * to stringify it again would cost time on the hottest path and could change the bytes (number
 * formatting, key order of duplicate keys, escapes). So the read results are written by
 * splicing that text into the output as is, while every other value goes through
 * JSON.stringify. Fields the results may gain later are written too (after the known ones).
 *
 * A binary event's data, and metadata appended as bytes, are Buffers: they are written as
 * `data_base64` / `metadata_base64` (../contract/event-json.ts, the WebSocket frames' rule too).
 *
 * The log engine hands the operations' reads their events over its stored bytes
 * (StoredEventRecord, src/contract/stored-event-record.ts): each field is decoded once, here,
 * as the engine would have for a plain record, with a page's repeated event types and metadata
 * decoded once per page.
 */
import { RepeatedText } from "../buffer-text.js";
import {
  jsonContentType,
  type EventRecord,
  type ReadAllResult,
  type ReadStreamResult,
} from "../contract/bodies.js";
import { payloadMemberJson } from "../contract/event-json.js";
import { StoredEventRecord } from "../contract/stored-event-record.js";

/** The content_type member of a JSON event, as the template paths below end every event. */
const jsonContentTypeMember = `,"content_type":"${jsonContentType}"`;

/** The fields every EventRecord has, in the order the engines produce them. */
const eventFields = [
  "stream_id",
  "revision",
  "position",
  "event_id",
  "event_type",
  "data",
  "metadata",
  "created_at",
  "content_type",
] as const;
const eventFieldSet = new Set<string>(eventFields);

/**
 * The usual event: every known field present with the type the contract gives it. Then the
 * text is built with one template instead of a loop over Object.entries, which costs about
 * twice as much and was the largest part of a 100-event REST read (bench/compare profile).
 */
function isPlainEvent(event: EventRecord): boolean {
  return (
    typeof event.stream_id === "string" &&
    Number.isSafeInteger(event.revision) &&
    Number.isSafeInteger(event.position) &&
    typeof event.event_id === "string" &&
    typeof event.event_type === "string" &&
    typeof event.data === "string" &&
    typeof event.metadata === "string" &&
    typeof event.created_at === "string" &&
    event.content_type === jsonContentType
  );
}

/**
 * JSON.stringify of a string, remembering the last one: the events of one page mostly share
 * their stream id (all of them on a stream read), often their type, and the events of one
 * batch or commit group their creation time. A JSON.stringify per field and event was a third
 * of the serializer's time on a 100-event page.
 */
class QuotedText {
  private text: string | null = null;
  private quoted = "";

  of(text: string): string {
    if (text !== this.text) {
      this.text = text;
      this.quoted = JSON.stringify(text);
    }
    return this.quoted;
  }
}

/** Whether `event` has a field besides the known ones (a field a result may gain later). */
function hasExtraFields(event: EventRecord): boolean {
  for (const key in event) if (!eventFieldSet.has(key)) return true;
  return false;
}

interface PageQuotes {
  streamIds: QuotedText;
  eventTypes: QuotedText;
  createdAts: QuotedText;
  /** The last event type and metadata text decoded from a stored record's bytes. */
  storedEventTypes: RepeatedText;
  storedMetadata: RepeatedText;
}

/** The usual event's JSON, with each field of a stored record decoded once. */
function storedEventJson(event: StoredEventRecord, quotes: PageQuotes): string {
  // An event with bytes in it is rare: the generic writer, over the plain record.
  if (event.binary !== 0) return eventJsonGeneric(event.toJSON());
  return (
    `{"stream_id":${quotes.streamIds.of(event.stream_id)},"revision":${event.revision},` +
    `"position":${event.position},"event_id":${JSON.stringify(event.event_id)},` +
    `"event_type":${quotes.eventTypes.of(event.eventTypeThrough(quotes.storedEventTypes))},` +
    `"data":${event.dataText},"metadata":${event.metadataThrough(quotes.storedMetadata)},` +
    `"created_at":${quotes.createdAts.of(event.created_at)}${jsonContentTypeMember}}`
  );
}

function eventJson(event: EventRecord, quotes: PageQuotes): string {
  if (event instanceof StoredEventRecord) return storedEventJson(event, quotes);
  if (!isPlainEvent(event)) return eventJsonGeneric(event);
  let out =
    `{"stream_id":${quotes.streamIds.of(event.stream_id)},"revision":${event.revision},` +
    `"position":${event.position},"event_id":${JSON.stringify(event.event_id)},` +
    `"event_type":${quotes.eventTypes.of(event.event_type)},"data":${event.data as string},` +
    `"metadata":${event.metadata as string},"created_at":${quotes.createdAts.of(event.created_at)}` +
    jsonContentTypeMember;
  if (!hasExtraFields(event)) return out + "}";
  // Fields a result may gain later follow the known ones.
  for (const key in event) {
    if (eventFieldSet.has(key)) continue;
    const value: unknown = (event as unknown as Record<string, unknown>)[key];
    if (value !== undefined) out += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return out + "}";
}

function eventJsonGeneric(event: EventRecord): string {
  let out = "{";
  let first = true;
  for (const [key, value] of Object.entries(event)) {
    if (value === undefined) continue;
    out += first ? "" : ",";
    first = false;
    if ((key === "data" || key === "metadata") && (typeof value === "string" || Buffer.isBuffer(value))) {
      // A string here is the engine's JSON text, a Buffer bytes (written as base64).
      out += payloadMemberJson(key, value);
    } else {
      // Anything else (a transport that already parsed it) is stringified, so the output stays
      // valid JSON either way.
      out += JSON.stringify(key) + ":" + JSON.stringify(value);
    }
  }
  return out + "}";
}

function eventsJson(events: EventRecord[]): string {
  const quotes: PageQuotes = {
    streamIds: new QuotedText(),
    eventTypes: new QuotedText(),
    createdAts: new QuotedText(),
    storedEventTypes: new RepeatedText(),
    storedMetadata: new RepeatedText(),
  };
  let out = "[";
  for (let i = 0; i < events.length; i++) {
    if (i > 0) out += ",";
    out += eventJson(events[i] as EventRecord, quotes);
  }
  return out + "]";
}

/** JSON text of a ReadResult or ReadAllResult, with event payloads spliced in unchanged. */
export function serializeEventsResult(result: ReadStreamResult | ReadAllResult): string {
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

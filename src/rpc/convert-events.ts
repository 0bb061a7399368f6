/**
 * The event parts of the ess.v1 conversions (./convert.ts): an EventRecord to its message and
 * back, and an EventToAppend to the event the `append` operation takes. JSON data and metadata
 * travel as their UTF-8 text; a binary event's data (content_type application/octet-stream) and
 * metadata kept as bytes (metadata_bytes) as bytes (docs/rpc.md, "Binary events").
 */
import { invalidArgument } from "../errors.js";
import { Payload } from "../contract/payload.js";
import { binaryContentType, jsonContentType } from "../contract/bodies.js";
import type { AppendEventInput, EventRecord } from "../contract/bodies.js";
import type { EventRecord as PbEventRecord, EventRecord__Output } from "./generated/ess/v1/EventRecord.js";
import type { EventToAppend__Output } from "./generated/ess/v1/EventToAppend.js";

function textToBytes(text: string): Buffer {
  return Buffer.from(text, "utf8");
}

function bytesToText(bytes: Buffer): string {
  return bytes.toString("utf8");
}

function partToBytes(part: string | Buffer): Buffer {
  return typeof part === "string" ? textToBytes(part) : part;
}

/** Metadata kept as bytes goes in metadata_bytes, with an empty metadata field (docs/rpc.md). */
export function toPbEventRecord(event: EventRecord): PbEventRecord {
  const metadata = event.metadata;
  const record: PbEventRecord = {
    stream_id: event.stream_id,
    revision: event.revision,
    position: event.position,
    event_id: event.event_id,
    event_type: event.event_type,
    data: partToBytes(event.data),
    metadata: typeof metadata === "string" ? textToBytes(metadata) : Buffer.alloc(0),
    created_at: event.created_at,
    content_type: event.content_type,
  };
  if (typeof metadata !== "string") record.metadata_bytes = metadata;
  return record;
}

/**
 * Event data/metadata bytes to a Payload; no bytes means the field was not sent. Bytes that are
 * not UTF-8 are refused (INVALID_ARGUMENT), as on every interface (../contract/rules.ts); the
 * JSON is the operations' to check, in their order of a request's fields.
 */
function payloadFromBytes(bytes: Buffer | undefined, field: string): Payload | undefined {
  if (bytes === undefined || bytes.length === 0) return undefined;
  return Payload.fromUtf8Bytes(bytes, field);
}

/** Whether an EventToAppend's content_type makes a binary event ("" or unset: JSON). */
function isBinaryContentType(contentType: string | undefined, field: string): boolean {
  if (contentType === undefined || contentType === "" || contentType === jsonContentType) return false;
  if (contentType === binaryContentType) return true;
  throw invalidArgument(`${field} must be ${jsonContentType} or ${binaryContentType}`, { field });
}

/**
 * One EventToAppend as the `append` operation takes it: a binary event's data, and metadata_bytes,
 * become bytes Payloads (copied out of the request message), JSON data and metadata Payloads of
 * their text.
 */
export function fromPbEventToAppend(e: EventToAppend__Output, index: number): AppendEventInput {
  const at = `events[${index}]`;
  const binary = isBinaryContentType(e.content_type, `${at}.content_type`);
  if (e.metadata !== undefined && e.metadata_bytes !== undefined) {
    throw invalidArgument(`send ${at}.metadata or ${at}.metadata_bytes, not both`, {
      field: `${at}.metadata_bytes`,
    });
  }
  return {
    event_type: e.event_type,
    data: binary ? Payload.fromBytes(Buffer.from(e.data)) : payloadFromBytes(e.data, `${at}.data`),
    metadata:
      e.metadata_bytes !== undefined
        ? Payload.fromBytes(Buffer.from(e.metadata_bytes))
        : payloadFromBytes(e.metadata, `${at}.metadata`),
    event_id: e.event_id,
  };
}

/** An older server sends no content_type: its events are JSON. */
export function fromPbEventRecord(event: EventRecord__Output): EventRecord {
  const binary = event.content_type === binaryContentType;
  return {
    stream_id: event.stream_id,
    revision: event.revision,
    position: event.position,
    event_id: event.event_id,
    event_type: event.event_type,
    data: binary ? Buffer.from(event.data) : bytesToText(event.data),
    metadata:
      event.metadata_bytes !== undefined ? Buffer.from(event.metadata_bytes) : bytesToText(event.metadata),
    created_at: event.created_at,
    content_type: binary ? binaryContentType : jsonContentType,
  };
}

/**
 * An ess.v1 EventToAppend as the event the `append` operation takes (the EventRecord of a read
 * is ./convert.ts's). JSON data and metadata travel as their UTF-8 text; a binary event's data
 * (content_type application/octet-stream) and metadata kept as bytes (metadata_bytes) as bytes
 * (docs/rpc.md, "Binary events").
 */
import { invalidArgument } from "../errors.js";
import { Payload } from "../contract/payload.js";
import { eventFieldNames } from "../contract/event-field-names.js";
import { binaryContentType, jsonContentType } from "../contract/bodies.js";
import type { AppendEventInput } from "../contract/bodies.js";
import type { EventToAppend__Output } from "./generated/ess/v1/EventToAppend.js";

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
  const names = eventFieldNames(index);
  const binary = isBinaryContentType(e.content_type, names.content_type);
  if (e.metadata !== undefined && e.metadata_bytes !== undefined) {
    throw invalidArgument(`send ${names.metadata} or ${names.metadata_bytes}, not both`, {
      field: names.metadata_bytes,
    });
  }
  return {
    event_type: e.event_type,
    data: binary ? Payload.fromBytes(Buffer.from(e.data)) : payloadFromBytes(e.data, names.data),
    metadata:
      e.metadata_bytes !== undefined
        ? Payload.fromBytes(Buffer.from(e.metadata_bytes))
        : payloadFromBytes(e.metadata, names.metadata),
    event_id: e.event_id,
  };
}

/**
 * The WebSocket protocol's messages (docs/contract.md "WebSocket protocol"): JSON text frames in both directions.
 *
 * Invariants:
 * - an event's `data` and `metadata` are spliced into the frame as the stored JSON text, never
 *   parsed and re-serialized, or written as `data_base64` / `metadata_base64` when they are bytes
 *   (../contract/event-json.ts); every other field is written with JSON.stringify;
 * - an event's JSON is built once per stored record however many subscribers receive it (the
 *   hub shares one read among them, so they share the record object);
 * - every client message is parsed into a typed ClientMessage or refused with an EssError
 *   (INVALID_JSON, INVALID_ARGUMENT); nothing a client sends can throw anything else.
 */
import type { EventRecord } from "../contract/bodies.js";
import { contentTypeMemberJson, payloadMemberJson } from "../contract/event-json.js";
import { EssError, invalidArgument, type ErrorCode } from "../errors.js";

export type ClientMessage =
  | { type: "auth"; token: unknown }
  | {
      type: "subscribe";
      id: unknown;
      stream: unknown;
      from: unknown;
      tenant: unknown;
      stream_prefix: unknown;
      event_type_prefix: unknown;
      stream_regex: unknown;
      event_type_regex: unknown;
    }
  | { type: "unsubscribe"; id: unknown };

const eventJsonCache = new WeakMap<EventRecord, string>();

/** The EventRecord as JSON, JSON data and metadata embedded as they are, bytes as base64. */
export function eventJson(record: EventRecord): string {
  let json = eventJsonCache.get(record);
  if (json === undefined) {
    json =
      `{"stream_id":${JSON.stringify(record.stream_id)},"revision":${record.revision}` +
      `,"position":${record.position},"event_id":${JSON.stringify(record.event_id)}` +
      `,"event_type":${JSON.stringify(record.event_type)},${payloadMemberJson("data", record.data)}` +
      `,${payloadMemberJson("metadata", record.metadata)},"created_at":${JSON.stringify(record.created_at)}` +
      `${contentTypeMemberJson(record.content_type)}}`;
    eventJsonCache.set(record, json);
  }
  return json;
}

export function eventMessage(id: string, record: EventRecord): string {
  return `{"type":"event","id":${JSON.stringify(id)},"event":${eventJson(record)}}`;
}

export function caughtUpMessage(id: string): string {
  return `{"type":"caught_up","id":${JSON.stringify(id)}}`;
}

/** A filtered $all subscription's progress: resume from `position` (inclusive) loses nothing. */
export function checkpointMessage(id: string, position: number): string {
  return `{"type":"checkpoint","id":${JSON.stringify(id)},"position":${position}}`;
}

export function unsubscribedMessage(id: string): string {
  return `{"type":"unsubscribed","id":${JSON.stringify(id)}}`;
}

/** An error about one subscription (id) or about the connection or a message without id (null). */
export function errorMessage(id: string | null, error: EssError): string {
  const body: { code: ErrorCode; message: string; details?: Record<string, unknown> } = {
    code: error.code,
    message: error.message,
  };
  if (Object.keys(error.details).length > 0) body.details = error.details;
  return JSON.stringify(id === null ? { type: "error", error: body } : { type: "error", id, error: body });
}

export type ParsedFrame =
  { ok: true; message: ClientMessage } | { ok: false; id: string | null; error: EssError };

/** Parses one text frame from a client; a refusal carries the message's id when it had one. */
export function parseClientMessage(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, id: null, error: new EssError("INVALID_JSON", "the message is not valid JSON") };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, id: null, error: invalidArgument("a message is a JSON object with a type") };
  }
  const message = value as Record<string, unknown>;
  switch (message.type) {
    case "auth":
      return { ok: true, message: { type: "auth", token: message.token } };
    case "subscribe":
      return {
        ok: true,
        message: {
          type: "subscribe",
          id: message.id,
          stream: message.stream,
          from: message.from,
          tenant: message.tenant,
          stream_prefix: message.stream_prefix,
          event_type_prefix: message.event_type_prefix,
          stream_regex: message.stream_regex,
          event_type_regex: message.event_type_regex,
        },
      };
    case "unsubscribe":
      return { ok: true, message: { type: "unsubscribe", id: message.id } };
    default:
      return {
        ok: false,
        id: typeof message.id === "string" ? message.id : null,
        error: invalidArgument("type must be auth, subscribe or unsubscribe", { field: "type" }),
      };
  }
}

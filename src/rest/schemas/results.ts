/** Response schemas of the health, auth and stream routes, and of verify and scavenge. */
import { limits } from "../../limits.js";
import { count, nullableCount, timestamp, role, object, type JsonSchema } from "./building-blocks.js";

export const healthResult = object({
  status: { type: "string", enum: ["ok", "degraded"] },
  version: { type: "string", description: "The service's version." },
  uptime_seconds: { type: "number", minimum: 0 },
  storage: object({
    engine: { type: "string", enum: ["log", "postgres"] },
    writable: { type: "boolean" },
  }),
});

export const loginResult = object({
  access_token: { type: "string", description: "A signed JWT; send it as `Authorization: Bearer <token>`." },
  token_type: { type: "string", const: "Bearer" },
  expires_in: { type: "integer", minimum: 1, description: "Seconds until the token expires." },
  tenant_id: { type: "string" },
  role,
});

export const appendResult = object({
  stream_id: { type: "string" },
  first_revision: count("Revision of the first event of the append."),
  last_revision: count("Revision of the last event of the append."),
  position: count("Global position of the last event."),
  count: count("Events in the append."),
});

const base64 = (description: string): JsonSchema => ({
  type: "string",
  contentEncoding: "base64",
  description,
});

const eventRecordFields: Record<string, JsonSchema> = {
  stream_id: { type: "string" },
  revision: count("0-based, per stream."),
  position: count("Global, strictly increasing, never reused."),
  event_id: { type: "string", format: "uuid" },
  event_type: { type: "string" },
  data: {
    description:
      "A JSON event's payload exactly as appended: any JSON value (the REST append stores objects; " +
      "gRPC clients may store arrays, strings, numbers, true, false, null).",
  },
  data_base64: base64(
    "Instead of `data`, for a binary event: its bytes exactly as appended, base64 with padding.",
  ),
  metadata: { description: "JSON metadata exactly as appended ({} when none was sent); any JSON value." },
  metadata_base64: base64("Instead of `metadata`: metadata appended as bytes, exactly, in base64."),
  created_at: timestamp("RFC 3339 with milliseconds, UTC."),
  content_type: {
    type: "string",
    enum: ["application/json", "application/octet-stream"],
    description: "application/json: the event has `data`; application/octet-stream: it has `data_base64`.",
  },
};

/** Every field is always there, but one of each pair: data or data_base64, metadata or metadata_base64. */
export const eventRecord: JsonSchema = {
  type: "object",
  properties: eventRecordFields,
  required: Object.keys(eventRecordFields).filter((name) => !/^(data|metadata)/.test(name)),
  allOf: [
    { oneOf: [{ required: ["data"] }, { required: ["data_base64"] }] },
    { oneOf: [{ required: ["metadata"] }, { required: ["metadata_base64"] }] },
  ],
};

/** Why a page can hold fewer than `limit` events without being the end. */
const pageBytesNote =
  `A page also ends before its events' data and metadata pass ${limits.readPageBytesMax / 1024 / 1024} MiB ` +
  "(it always holds at least one event), so it can hold fewer than `limit` events and still not be the end: " +
  "read on until is_end.";

export const readResult = object({
  stream_id: { type: "string" },
  direction: { type: "string", enum: ["forward", "backward"] },
  events: { type: "array", items: eventRecord },
  next_revision: nullableCount(`Where the next page starts, or null at the end. ${pageBytesNote}`),
  is_end: { type: "boolean" },
});

export const readAllResult = object({
  events: { type: "array", items: eventRecord },
  next_position: nullableCount(`Where the next page starts, or null at the end. ${pageBytesNote}`),
  is_end: { type: "boolean" },
});

const retention = object({
  max_age_seconds: nullableCount("null when unset."),
  max_count: nullableCount("null when unset."),
  truncate_before: nullableCount("null when unset."),
});

export const streamInfo = object({
  stream_id: { type: "string" },
  tenant_id: { type: "string" },
  event_count: count("Readable events (after retention and soft delete)."),
  first_revision: nullableCount("First readable revision, or null."),
  last_revision: nullableCount("Revision of the last event ever appended, or null."),
  bytes: count("Bytes the stream's events hold in storage."),
  created_at: timestamp("When the stream was created."),
  updated_at: timestamp("When the stream last changed."),
  deleted: { type: "boolean" },
  tombstoned: {
    type: "boolean",
    description: "Tombstoned (a permanent delete): reads and appends answer 410 STREAM_TOMBSTONED.",
  },
  retention,
});

export const streamSummary = object({
  stream_id: { type: "string" },
  tenant_id: { type: "string" },
  event_count: count("Readable events."),
  last_revision: nullableCount("Revision of the last event, or null."),
  bytes: count("Bytes in storage."),
  updated_at: timestamp("When the stream last changed."),
});

export const nextCursor: JsonSchema = {
  type: ["string", "null"],
  description: "Pass as `cursor` for the next page; null on the last page.",
};

export const streamList = object({
  streams: { type: "array", items: streamSummary },
  next_cursor: nextCursor,
});

export const verifyResult = object({
  ok: { type: "boolean" },
  segments_checked: count("Segments read."),
  records_checked: count("Records read."),
  bytes_checked: count("Bytes read."),
  errors: {
    type: "array",
    items: object({
      segment: { type: "string" },
      offset: count("Byte offset in the segment."),
      kind: { type: "string" },
      message: { type: "string" },
    }),
  },
  duration_ms: { type: "number", minimum: 0 },
});

export const scavengeFields = {
  dry_run: { type: "boolean" },
  events_removed: count("Events removed (or, for a dry run, that would be)."),
  bytes_reclaimed: count("Bytes reclaimed."),
  segments_rewritten: count("Segments rewritten."),
  streams_affected: count("Streams that lost events."),
  duration_ms: { type: "number", minimum: 0 },
} satisfies Record<string, JsonSchema>;

export const scavengeResult: JsonSchema = {
  type: "object",
  properties: {
    ...scavengeFields,
    streams: {
      type: "array",
      maxItems: limits.scavengeStreamsListedMax,
      items: object({
        stream_id: { type: "string" },
        tenant_id: { type: "string" },
        events_removed: count("Events the stream would lose."),
        bytes_reclaimed: count("Bytes they hold."),
      }),
      description:
        `A dry run only: the streams affected, largest bytes_reclaimed first, at most ${limits.scavengeStreamsListedMax} ` +
        "(streams_affected counts them all). Absent from a real run's result.",
    },
  },
  required: Object.keys(scavengeFields),
};

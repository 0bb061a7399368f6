/**
 * The JSON Schemas of the REST gateway: what it validates requests with and what it declares
 * for responses. The OpenAPI document (./openapi.ts) is generated from these same objects, so
 * the document and the gateway cannot disagree. They use only keywords that mean the same in
 * JSON Schema draft-07 (what the validator runs) and 2020-12 (what OpenAPI 3.1 embeds).
 *
 * Request schemas check shapes and types (a field is a string, a limit is 1..1000); the
 * operations still check every rule (byte lengths, id characters, UUIDs, roles), so a request
 * that passes here may still be refused there, with the same error shape.
 * Response schemas list the contract's fields as required and allow more (docs/contract.md "REST routes":
 * "more fields may be added").
 */
import { errorCodes } from "../errors.js";
import { textPatterns } from "../contract/rules.js";
import { limits } from "../limits.js";

/** A JSON Schema object (kept loose: schemas are data here, checked by ajv and the OpenAPI validator). */
export type JsonSchema = { [keyword: string]: unknown };

const safeIntegerMax = Number.MAX_SAFE_INTEGER;

const count = (description: string): JsonSchema => ({ type: "integer", minimum: 0, description });
const nullableCount = (description: string): JsonSchema => ({
  type: ["integer", "null"],
  minimum: 0,
  description,
});
const timestamp = (description: string): JsonSchema => ({ type: "string", format: "date-time", description });
const nullableTimestamp = (description: string): JsonSchema => ({
  type: ["string", "null"],
  format: "date-time",
  description,
});
const role: JsonSchema = {
  type: "string",
  enum: ["admin", "writer", "reader"],
  description: "The user's role.",
};

/**
 * The text rules of src/contract/rules.ts as schema keywords. JSON Schema counts `maxLength` in
 * characters, the service in bytes of UTF-8: a string within the byte limit is always within
 * maxLength, so maxLength is stated as a necessary bound and the byte rule in the description.
 */
const idText = (what: string): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: limits.idBytesMax,
  pattern: textPatterns.id,
  description: `${what}: 1..${limits.idBytesMax} bytes of UTF-8 (not characters), no control characters, not starting with '$'.`,
});
const usernameText = (description: string): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: limits.usernameBytesMax,
  pattern: textPatterns.username,
  description,
});

function object(properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return { type: "object", properties, required: Object.keys(properties), ...extra };
}

// ---------------------------------------------------------------------------------------------
// Path parameters and query strings. Path ids arrive percent-decoded; the operations validate them.

export const streamIdParams: JsonSchema = {
  type: "object",
  properties: {
    id: idText("Stream id, percent-encoded in the path"),
  },
  required: ["id"],
  additionalProperties: false,
};

export const tenantIdParams: JsonSchema = {
  type: "object",
  properties: { id: idText("Tenant id, percent-encoded in the path") },
  required: ["id"],
  additionalProperties: false,
};

export const jobIdParams: JsonSchema = {
  type: "object",
  properties: {
    id: {
      type: "string",
      format: "uuid",
      pattern: textPatterns.uuid,
      description: "The job_id POST /v1/admin/jobs answered with (a UUID).",
    },
  },
  required: ["id"],
  additionalProperties: false,
};

export const usernameParams: JsonSchema = {
  type: "object",
  properties: {
    username: usernameText(
      `Username, percent-encoded in the path: 1..${limits.usernameBytesMax} letters, digits, '.', '_', '@' or '-'.`,
    ),
  },
  required: ["username"],
  additionalProperties: false,
};

const tenantQueryProperty: JsonSchema = idText(
  "Admin only: act in this tenant instead of the caller's own. Tenant id",
);
const limitQueryProperty: JsonSchema = {
  type: "integer",
  minimum: 1,
  maximum: limits.readPageMax,
  default: limits.readPageDefault,
  description: `Page size, 1..${limits.readPageMax}; default ${limits.readPageDefault}.`,
};
const cursorQueryProperty: JsonSchema = {
  type: "string",
  description: "Opaque cursor: the next_cursor of the previous page.",
};

function query(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: "object", properties, additionalProperties: false };
}

export const tenantQuery = query({ tenant: tenantQueryProperty });

export const readQuery = query({
  tenant: tenantQueryProperty,
  from: {
    type: "integer",
    minimum: 0,
    maximum: safeIntegerMax,
    description: "First revision to return. Default: 0 forward, the last revision backward.",
  },
  limit: limitQueryProperty,
  direction: {
    type: "string",
    enum: ["forward", "backward"],
    default: "forward",
    description: "Read direction; default forward.",
  },
});

export const streamListQuery = query({
  tenant: idText(
    "On /v1/admin/streams: list only this tenant (absent: every tenant). Elsewhere admin only. Tenant id",
  ),
  prefix: { type: "string", description: "List only stream ids starting with this text." },
  limit: limitQueryProperty,
  cursor: cursorQueryProperty,
});

export const readAllQuery = query({
  tenant: tenantQueryProperty,
  from_position: {
    type: "integer",
    minimum: 0,
    maximum: safeIntegerMax,
    default: 0,
    description: "First global position to return (inclusive); default 0.",
  },
  limit: limitQueryProperty,
});

export const pageQuery = query({ limit: limitQueryProperty, cursor: cursorQueryProperty });

// ---------------------------------------------------------------------------------------------
// Request bodies.

export const loginRequest: JsonSchema = {
  type: "object",
  properties: {
    username: { type: "string", description: "The user's name." },
    password: { type: "string", description: "The user's password." },
  },
  required: ["username", "password"],
  additionalProperties: false,
};

const eventFields: Record<string, JsonSchema> = {
  event_type: {
    type: "string",
    minLength: 1,
    maxLength: limits.eventTypeBytesMax,
    description: `Name of the event's type, 1..${limits.eventTypeBytesMax} bytes of UTF-8 (not characters).`,
  },
  data: { type: "object", description: "The event's payload, a JSON object, stored byte for byte." },
  metadata: { type: "object", description: "Optional JSON object stored beside the payload; default {}." },
  event_id: {
    type: "string",
    format: "uuid",
    pattern: textPatterns.uuid,
    description:
      "Optional UUID; generated when absent. Appending an event id already in the stream is idempotent.",
  },
};

const expectedRevision: JsonSchema = {
  description:
    'Optimistic concurrency: "any" (default), "no_stream", "stream_exists", or the revision of the stream\'s last event.',
  anyOf: [
    { type: "string", enum: ["any", "no_stream", "stream_exists"] },
    { type: "integer", minimum: 0, maximum: safeIntegerMax },
  ],
};

export const appendEvent: JsonSchema = {
  type: "object",
  properties: eventFields,
  required: ["event_type", "data"],
  additionalProperties: false,
};

/** The index of the oneOf branch of appendRequest that a body means (used to name the bad field). */
export const appendBranchSingle = 0;
export const appendBranchBatch = 1;

export const appendRequest: JsonSchema = {
  description: "One event, or a batch of events in `events` appended atomically.",
  oneOf: [
    {
      title: "AppendOne",
      type: "object",
      properties: { ...eventFields, expected_revision: expectedRevision },
      required: ["event_type", "data"],
      additionalProperties: false,
    },
    {
      title: "AppendBatch",
      type: "object",
      properties: {
        events: { type: "array", minItems: 1, maxItems: limits.appendEventsMax, items: appendEvent },
        expected_revision: expectedRevision,
      },
      required: ["events"],
      additionalProperties: false,
    },
  ],
};

export const retentionRequest: JsonSchema = {
  type: "object",
  properties: {
    max_age_seconds: {
      type: ["integer", "null"],
      minimum: 1,
      maximum: safeIntegerMax,
      description: "Events older than this many seconds are no longer read; null: no age limit.",
    },
    max_count: {
      type: ["integer", "null"],
      minimum: 1,
      maximum: safeIntegerMax,
      description: "Only the newest this many events are read; null: no count limit.",
    },
    truncate_before: {
      type: ["integer", "null"],
      minimum: 0,
      maximum: safeIntegerMax,
      description: "Events with a lower revision are no longer read; null: none cut.",
    },
  },
  additionalProperties: false,
};

export const scavengeRequest: JsonSchema = {
  type: "object",
  properties: {
    dry_run: { type: "boolean", description: "true: report what a real run would remove, change nothing." },
    confirm: { type: "boolean", description: "Must be true for a real run." },
  },
  additionalProperties: false,
};

export const startJobRequest: JsonSchema = {
  type: "object",
  properties: {
    kind: { type: "string", enum: ["verify", "scavenge"], description: "What the job runs." },
    dry_run: {
      type: "boolean",
      description: "Scavenge only: true reports what a real run would remove and changes nothing.",
    },
    confirm: { type: "boolean", description: "Scavenge only: must be true for a real run." },
  },
  required: ["kind"],
  additionalProperties: false,
};

export const createUserRequest: JsonSchema = {
  type: "object",
  properties: {
    username: usernameText(`1..${limits.usernameBytesMax} letters, digits, '.', '_', '@' or '-'.`),
    password: {
      type: "string",
      minLength: limits.passwordCharsMin,
      maxLength: limits.passwordBytesMax,
      description: `The new user's password: at least ${limits.passwordCharsMin} characters and at most ${limits.passwordBytesMax} bytes of UTF-8.`,
    },
    tenant_id: idText("The tenant the user belongs to. Tenant id"),
    role,
  },
  required: ["username", "password", "tenant_id", "role"],
  additionalProperties: false,
};

// ---------------------------------------------------------------------------------------------
// Response bodies.

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

export const eventRecord = object({
  stream_id: { type: "string" },
  revision: count("0-based, per stream."),
  position: count("Global, strictly increasing, never reused."),
  event_id: { type: "string", format: "uuid" },
  event_type: { type: "string" },
  data: { type: "object", description: "The payload exactly as appended." },
  metadata: { type: "object" },
  created_at: timestamp("RFC 3339 with milliseconds, UTC."),
});

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
  retention,
});

const streamSummary = object({
  stream_id: { type: "string" },
  tenant_id: { type: "string" },
  event_count: count("Readable events."),
  last_revision: nullableCount("Revision of the last event, or null."),
  bytes: count("Bytes in storage."),
  updated_at: timestamp("When the stream last changed."),
});

const nextCursor: JsonSchema = {
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

const scavengeFields = {
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

const job = object({
  job_id: { type: "string", format: "uuid" },
  kind: { type: "string", enum: ["verify", "scavenge"] },
  dry_run: { type: "boolean", description: "Scavenge only: a dry run (false for verify)." },
  state: {
    type: "string",
    enum: ["queued", "running", "done", "failed"],
    description: "queued until the engine starts its work, then running, then done or failed.",
  },
  progress: object(
    {
      done: count("Units done; never more than total."),
      total: count("Units to do (0 until the work has begun)."),
      unit: {
        type: "string",
        enum: ["bytes", "segments", "streams"],
        description: "bytes for verify; segments (log engine) or streams for scavenge.",
      },
    },
    { description: "How far the work has come." },
  ),
  created_at: timestamp("When the job was started."),
  started_at: nullableTimestamp("When its work began; null while queued."),
  finished_at: nullableTimestamp("When it finished; null until done or failed."),
  // By reference: the two results are components of the document already (their own routes').
  result: {
    anyOf: [
      { type: "null" },
      { $ref: "#/components/schemas/VerifyResult" },
      { $ref: "#/components/schemas/ScavengeResult" },
    ],
    description: "Once done: the VerifyResult or ScavengeResult its synchronous route gives; null before.",
  },
  error: {
    anyOf: [
      { type: "null" },
      object({
        code: { type: "string", enum: [...errorCodes], description: "Stable error code (docs/errors.md)." },
        message: { type: "string", description: "A human sentence; not for matching." },
      }),
    ],
    description: "Once failed: why; null otherwise.",
  },
});

export const jobResult: JsonSchema = {
  ...job,
  description:
    "A verify or scavenge run in the background. Jobs live in the memory of the process that started them: a restart forgets them.",
};

export const jobList = object({
  jobs: { type: "array", items: job, description: "Newest first." },
  next_cursor: nextCursor,
});

export const storageStatus: JsonSchema = {
  type: "object",
  properties: {
    engine: { type: "string", enum: ["log", "postgres"] },
    events_total: count("Events stored."),
    streams_total: count("Streams stored."),
    bytes_total: count("Bytes stored."),
    last_position: count("Global position of the last event."),
    last_scavenge: {
      anyOf: [{ type: "null" }, object({ ...scavengeFields, finished_at: timestamp("When it finished.") })],
    },
    data_dir: { type: "string", description: "log engine: its data directory." },
    segments: {
      type: "array",
      description: "log engine: its segment files.",
      items: object({
        name: { type: "string" },
        base_position: count("Position of the segment's first record."),
        records: count("Records in the segment."),
        bytes: count("Bytes of the segment file."),
        sealed: { type: "boolean" },
      }),
    },
    writer: object(
      {
        batches: count("Group-commit writes."),
        fsyncs: count("fsync calls."),
        avg_batch_events: { type: "number", minimum: 0 },
        queue_depth: count("Appends waiting."),
      },
      { description: "log engine: the group-commit writer." },
    ),
    index: object(
      {
        entries: count("Index entries."),
        memory_bytes: count("Bytes of memory the index holds."),
        checkpoint_position: count(
          "Last position whose index is persisted (log: in a sealed segment's index file).",
        ),
        id_check_false_hits: count(
          "Event ids checked since start-up that the resident fingerprint set held by chance: each cost a lookup in index files that found nothing.",
        ),
      },
      { description: "log engine: the in-memory index." },
    ),
    tables: {
      type: "array",
      description: "postgres engine: table sizes.",
      items: {
        type: "object",
        properties: {
          name: { type: "string" },
          total_bytes: count("Bytes."),
          index_bytes: count("Bytes."),
          rows_estimate: { type: "number" },
        },
        required: ["name"],
      },
    },
    pool: {
      type: "object",
      description: "postgres engine: connection pool.",
      properties: { total: count("Connections."), idle: count("Idle."), waiting: count("Waiting clients.") },
    },
  },
  required: ["engine", "events_total", "streams_total", "bytes_total", "last_position", "last_scavenge"],
};

const tenantUsageFields = {
  tenant_id: { type: "string" },
  streams: count("Streams of the tenant."),
  events: count("Readable events of the tenant."),
  bytes: count("Bytes the tenant's events hold."),
  appends_total: count("Appends since the service's state was created."),
  reads_total: count("Reads since the service's state was created."),
  last_append_at: nullableTimestamp("When the tenant last appended, or null."),
} satisfies Record<string, JsonSchema>;

export const tenantUsage = object(tenantUsageFields);

export const tenantList = object({ tenants: { type: "array", items: tenantUsage }, next_cursor: nextCursor });

export const tenantDetail = object({
  ...tenantUsageFields,
  largest_streams: {
    type: "array",
    maxItems: 10,
    items: streamSummary,
    description: "Top 10 streams by bytes.",
  },
});

export const user = object({
  username: { type: "string" },
  tenant_id: { type: "string" },
  role,
  created_at: timestamp("When the user was created."),
});

export const userList = object({ users: { type: "array", items: user }, next_cursor: nextCursor });

export const openApiDocument: JsonSchema = {
  type: "object",
  properties: {
    openapi: { type: "string", description: "The OpenAPI version, 3.1.0." },
    info: { type: "object" },
    paths: { type: "object" },
  },
  required: ["openapi", "info", "paths"],
  description: "This OpenAPI 3.1 document.",
};

export const errorResponse: JsonSchema = object({
  error: object({
    code: { type: "string", enum: [...errorCodes], description: "Stable error code (docs/errors.md)." },
    message: { type: "string", description: "A human sentence; not for matching." },
    details: { type: "object", description: "Context of the error, e.g. the field that was refused." },
  }),
});

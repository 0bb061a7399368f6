/** Request schemas: path parameters, query strings and request bodies of the REST routes. */
import { textPatterns } from "../../contract/rules.js";
import { limits } from "../../limits.js";
import { safeIntegerMax, role, idText, usernameText, type JsonSchema } from "./building-blocks.js";

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

export const tenantQueryProperty: JsonSchema = idText(
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

export function query(properties: Record<string, JsonSchema>): JsonSchema {
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
    description:
      "First global position to look at, inclusive (forward: the first event at or after it; backward: " +
      "the first at or before it). Default: the tenant's first event forward, its last backward.",
  },
  limit: limitQueryProperty,
  direction: {
    type: "string",
    enum: ["forward", "backward"],
    default: "forward",
    description: "Read direction; default forward.",
  },
  stream_prefix: {
    type: "string",
    description:
      `Only events whose stream id starts with one of these prefixes: a comma-separated list of at most ` +
      `${limits.filterPrefixesMax}. Empty: no such filter.`,
  },
  event_type_prefix: {
    type: "string",
    description:
      `Only events whose event type starts with one of these prefixes: a comma-separated list of at most ` +
      `${limits.filterPrefixesMax}. Empty: no such filter.`,
  },
  stream_regex: {
    type: "string",
    description:
      `Only events whose stream id matches this RE2 regular expression (unanchored; at most ` +
      `${limits.filterRegexCharsMax} characters; matched in linear time). Empty: no such filter.`,
  },
  event_type_regex: {
    type: "string",
    description:
      `Only events whose event type matches this RE2 regular expression (unanchored; at most ` +
      `${limits.filterRegexCharsMax} characters; matched in linear time). Empty: no such filter.`,
  },
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
  data: {
    type: "object",
    description:
      "The event's payload, a JSON object, stored byte for byte (content type application/json). " +
      "Exactly one of `data` and `data_base64` is required.",
  },
  data_base64: {
    type: "string",
    contentEncoding: "base64",
    description:
      "Instead of `data`: any bytes, in standard base64 with padding (RFC 4648 section 4), making a binary " +
      "event (content type application/octet-stream) whose bytes are stored and returned exactly. Empty " +
      "is allowed. Anything but base64 is 400 INVALID_ARGUMENT naming this field.",
  },
  metadata: { type: "object", description: "Optional JSON object stored beside the payload; default {}." },
  metadata_base64: {
    type: "string",
    contentEncoding: "base64",
    description:
      "Instead of `metadata`: any bytes, base64 as `data_base64`, stored as they are and read back as " +
      "`metadata_base64`. At most one of `metadata` and `metadata_base64`.",
  },
  event_id: {
    type: "string",
    format: "uuid",
    pattern: textPatterns.uuid,
    description:
      "Optional UUID; generated when absent. Appending an event id already in the stream is idempotent.",
  },
};

export const expectedRevision: JsonSchema = {
  description:
    'Optimistic concurrency: "any" (default), "no_stream", "stream_exists", or the revision of the stream\'s last event.',
  anyOf: [
    { type: "string", enum: ["any", "no_stream", "stream_exists"] },
    { type: "integer", minimum: 0, maximum: safeIntegerMax },
  ],
};

/**
 * Which fields of an event go in pairs. JSON Schema says this only with `oneOf`/`not` branches
 * that name no properties, which ajv's strict mode refuses and which name no field when they
 * fail; so the pairs are written as OpenAPI extension keywords (documentation, and the property
 * tests' request generator), and the operations enforce them, naming the field (400).
 */
const payloadPairs: JsonSchema = {
  "x-exactly-one-of": ["data", "data_base64"],
  "x-at-most-one-of": ["metadata", "metadata_base64"],
};

export const appendEvent: JsonSchema = {
  type: "object",
  properties: eventFields,
  required: ["event_type"],
  ...payloadPairs,
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
      required: ["event_type"],
      ...payloadPairs,
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

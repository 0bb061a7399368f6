/** Response schemas of the admin routes (jobs, storage status, tenants, users) and the shared ones (OpenAPI document, error). */
import { errorCodes } from "../../errors.js";
import { count, timestamp, nullableTimestamp, role, object, type JsonSchema } from "./building-blocks.js";
import { nextCursor, scavengeFields, streamSummary } from "./results.js";

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

/**
 * The contract's bodies (docs/contract.md "Bodies"): what a request carries and what
 * an answer holds, field for field the REST JSON bodies and the ess.v1 messages, in the
 * contract's snake_case names. The engines return the result bodies (src/storage/engine.ts),
 * the operations pass them through (src/operations/contract.ts), and every transport (src/rpc,
 * src/rest, src/ws, src/cli) translates them without renaming a field; so they live here, below
 * all of those layers, and this module imports none of them.
 *
 * Requests are typed loosely (`unknown`): they hold what a client sent, which a transport cannot
 * always type (a REST query string is text). The operations validate every field
 * (src/operations/validate.ts, with the rules of ./rules.ts) and answer INVALID_ARGUMENT for
 * bad input. Results are typed exactly.
 */

import type { ErrorCode } from "../errors.js";
import type { EventFilterRequest } from "./event-filter.js";

export type Role = "admin" | "writer" | "reader";

/** `"any"` (default), `"no_stream"`, `"stream_exists"`, or the revision of the stream's last event. */
export type ExpectedRevision = "any" | "no_stream" | "stream_exists" | number;

export type ReadDirection = "forward" | "backward";

// ---- Streams ----

/**
 * One event as sent. `data` and `metadata` are Payloads (./payload.ts: the client's JSON text,
 * which every interface passes on this way, the operations reporting INVALID_JSON when it is not
 * JSON; or bytes, as the gRPC server passes a binary event's data), Buffers (bytes: a binary
 * event's data, metadata kept as bytes) or parsed JSON values (a caller's values, serialized
 * once by the operations). Instead of `data` an event may carry
 * `data_base64` (a binary event: any bytes, base64), and instead of `metadata` a
 * `metadata_base64` (metadata kept as bytes); the operations decode them.
 */
export interface AppendEventInput {
  event_type: unknown;
  data?: unknown;
  data_base64?: unknown;
  metadata?: unknown;
  metadata_base64?: unknown;
  event_id?: unknown;
}

/** Either one event (the fields of AppendEventInput) or a batch in `events`. */
export interface AppendRequest {
  stream_id: unknown;
  /** Admin only: act in this tenant instead of the caller's. */
  tenant?: unknown;
  events?: unknown;
  event_type?: unknown;
  data?: unknown;
  data_base64?: unknown;
  metadata?: unknown;
  metadata_base64?: unknown;
  event_id?: unknown;
  /** "any" | "no_stream" | "stream_exists" | integer (a numeric string is accepted). */
  expected_revision?: unknown;
}

export interface AppendResult {
  stream_id: string;
  first_revision: number;
  last_revision: number;
  /** Global position of the last event of the batch. */
  position: number;
  count: number;
}

/** What an event's data is: JSON text, or bytes. */
export type ContentType = "application/json" | "application/octet-stream";

export const jsonContentType = "application/json";
export const binaryContentType = "application/octet-stream";

/**
 * One stored event. `data` is a string exactly when `content_type` is application/json, and a
 * Buffer (the bytes as appended) when it is application/octet-stream; `metadata` is a string
 * when it was appended as JSON and a Buffer when it was appended as bytes. The transports write
 * a Buffer as `data_base64` / `metadata_base64` in JSON (REST, WebSocket) and as bytes in
 * protobuf.
 */
export interface EventRecord {
  stream_id: string;
  revision: number;
  position: number;
  event_id: string;
  event_type: string;
  /** JSON text (any JSON value), exactly as appended (never re-serialized on the read path), or bytes. */
  data: string | Buffer;
  /** JSON text ("{}" when none was sent), or the bytes of metadata appended as bytes. */
  metadata: string | Buffer;
  /** RFC 3339 with milliseconds, UTC. */
  created_at: string;
  content_type: ContentType;
}

export interface ReadRequest {
  stream_id: unknown;
  tenant?: unknown;
  from?: unknown;
  limit?: unknown;
  direction?: unknown;
}

/** The contract's ReadResult (a page of one stream). */
export interface ReadStreamResult {
  stream_id: string;
  direction: ReadDirection;
  events: EventRecord[];
  /** Where the next page starts, or null at the end. */
  next_revision: number | null;
  is_end: boolean;
}

export interface ReadAllRequest extends EventFilterRequest {
  tenant?: unknown;
  /** Inclusive. Absent: the first event (forward) or the last (backward). */
  from_position?: unknown;
  limit?: unknown;
  direction?: unknown;
}

export interface ReadAllResult {
  events: EventRecord[];
  next_position: number | null;
  is_end: boolean;
}

export interface StreamRequest {
  stream_id: unknown;
  tenant?: unknown;
}

export interface SetRetentionRequest extends StreamRequest {
  max_age_seconds?: unknown;
  max_count?: unknown;
  truncate_before?: unknown;
}

/** DELETE /v1/streams/{id} and Streams.Delete. */
export interface DeleteStreamRequest extends StreamRequest {
  /** As an append's (default "any"): checked against the stream before the delete. */
  expected_revision?: unknown;
  /** true: a tombstone (permanent); the name can never be used again. */
  tombstone?: unknown;
}

/**
 * A stream's metadata document: a JSON object, kept as given, whose keys `$maxAge`, `$maxCount`
 * and `$tb` are the stream's retention (./stream-metadata.ts).
 */
export type MetadataDocument = Record<string, unknown>;

export interface StreamMetadata {
  stream_id: string;
  /** 0 for the first version, +1 per change; null when never set. */
  metadata_revision: number | null;
  /** {} when never set. */
  metadata: MetadataDocument;
}

/** PUT /v1/streams/{id}/metadata and Streams.SetMetadata: replaces the whole document. */
export interface SetMetadataRequest extends StreamRequest {
  metadata: unknown;
  /** Absent or "any": no check; "no_stream": never set yet; a number: the current revision. */
  expected_metadata_revision?: unknown;
}

export interface Retention {
  max_age_seconds: number | null;
  max_count: number | null;
  truncate_before: number | null;
}

export interface StreamInfo {
  stream_id: string;
  tenant_id: string;
  /** Readable events (after retention and soft delete). */
  event_count: number;
  /** First readable revision, or null when none is readable. */
  first_revision: number | null;
  /** Revision of the last event ever appended (readable or not), or null for an empty stream. */
  last_revision: number | null;
  /** Bytes the stream's events still hold in storage (until scavenge reclaims them). */
  bytes: number;
  created_at: string;
  updated_at: string;
  deleted: boolean;
  /** Tombstoned (a permanent delete): reads and appends answer STREAM_TOMBSTONED. */
  tombstoned: boolean;
  retention: Retention;
}

export interface ListStreamsRequest {
  /** Admin.ListStreams only: restrict to one tenant (absent: every tenant). */
  tenant?: unknown;
  prefix?: unknown;
  limit?: unknown;
  cursor?: unknown;
}

export interface StreamSummary {
  stream_id: string;
  tenant_id: string;
  event_count: number;
  last_revision: number | null;
  bytes: number;
  updated_at: string;
  deleted: boolean;
}

export interface StreamList {
  streams: StreamSummary[];
  next_cursor: string | null;
}

// ---- Admin ----

export interface PageRequest {
  limit?: unknown;
  cursor?: unknown;
}

export interface TenantRequest {
  tenant_id: unknown;
}

export interface TenantUsage {
  tenant_id: string;
  streams: number;
  events: number;
  bytes: number;
  appends_total: number;
  reads_total: number;
  last_append_at: string | null;
}

export interface TenantDetail extends TenantUsage {
  largest_streams: StreamSummary[];
}

export interface TenantList {
  tenants: TenantUsage[];
  next_cursor: string | null;
}

export interface VerifyError {
  segment: string;
  offset: number;
  kind: string;
  message: string;
}

export interface VerifyResult {
  ok: boolean;
  segments_checked: number;
  records_checked: number;
  bytes_checked: number;
  errors: VerifyError[];
  duration_ms: number;
}

export interface ScavengeRequest {
  dry_run?: unknown;
  confirm?: unknown;
}

/** One stream a scavenge dry run would take events from, and how much. */
export interface ScavengeStream {
  stream_id: string;
  tenant_id: string;
  events_removed: number;
  bytes_reclaimed: number;
}

export interface ScavengeResult {
  dry_run: boolean;
  events_removed: number;
  bytes_reclaimed: number;
  segments_rewritten: number;
  streams_affected: number;
  duration_ms: number;
  /**
   * A dry run only: the streams affected, largest bytes_reclaimed first (then by tenant and
   * stream id), at most limits.scavengeStreamsListedMax of them. Absent from a real run's result.
   */
  streams?: ScavengeStream[];
}

// ---- Jobs (docs/rest.md "Jobs") ----

export type JobKind = "verify" | "scavenge";

export type JobState = "queued" | "running" | "done" | "failed";

/**
 * How far a job's work has come: `done` of `total` `unit`s (bytes for verify, segments or
 * streams for scavenge), never past it; total is 0 until the work has begun.
 */
export interface JobProgress {
  done: number;
  total: number;
  unit: "bytes" | "segments" | "streams";
}

export interface StartJobRequest {
  /** "verify" or "scavenge". */
  kind: unknown;
  /** Scavenge only, as ScavengeRequest. */
  dry_run?: unknown;
  confirm?: unknown;
}

export interface JobRequest {
  job_id: unknown;
}

/**
 * A verify or scavenge running in the background of the process that started it: queued until
 * the engine starts its work, then running with its progress, then done with the result its
 * synchronous route would have given, or failed with the error.
 */
export interface Job {
  /** A UUID. */
  job_id: string;
  kind: JobKind;
  /** Scavenge only: a dry run (always false for verify). */
  dry_run: boolean;
  state: JobState;
  progress: JobProgress;
  /** When it was asked for. */
  created_at: string;
  /** When its work began (null while queued). */
  started_at: string | null;
  finished_at: string | null;
  /** The VerifyResult or ScavengeResult once done; null before, and when failed. */
  result: VerifyResult | ScavengeResult | null;
  /** Why it failed (never a stack); null unless failed. */
  error: { code: ErrorCode; message: string } | null;
}

export interface JobList {
  /** Newest first. */
  jobs: Job[];
  next_cursor: string | null;
}

export interface LastScavenge extends ScavengeResult {
  finished_at: string;
}

export interface SegmentStatus {
  name: string;
  base_position: number;
  records: number;
  bytes: number;
  sealed: boolean;
}

export interface StorageStatus {
  engine: "log" | "postgres";
  events_total: number;
  streams_total: number;
  bytes_total: number;
  last_position: number;
  last_scavenge: LastScavenge | null;
  // log engine detail
  data_dir?: string;
  segments?: SegmentStatus[];
  writer?: { batches: number; fsyncs: number; avg_batch_events: number; queue_depth: number };
  index?: {
    entries: number;
    memory_bytes: number;
    bytes_per_event: number;
    checkpoint_position: number;
    /** Event ids checked since start-up that the fingerprint set held by chance (docs/log-engine.md). */
    id_check_false_hits: number;
  };
  // postgres engine detail
  tables?: { name: string; total_bytes: number; index_bytes: number; rows_estimate: number }[];
  pool?: { total: number; idle: number; waiting: number };
}

export interface CreateUserRequest {
  username: unknown;
  password: unknown;
  tenant_id: unknown;
  role: unknown;
}

export interface UsernameRequest {
  username: unknown;
}

export interface User {
  username: string;
  tenant_id: string;
  role: Role;
  created_at: string;
}

export interface UserList {
  users: User[];
  next_cursor: string | null;
}

// ---- Auth and Health ----

export interface LoginRequest {
  username: unknown;
  password: unknown;
}

export interface LoginResult {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  tenant_id: string;
  role: Role;
}

export interface HealthResult {
  status: "ok" | "degraded";
  version: string;
  uptime_seconds: number;
  storage: { engine: "log" | "postgres"; writable: boolean };
}

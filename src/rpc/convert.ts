/**
 * Contract results (src/contract/bodies.ts, the REST bodies) <-> ess.v1 messages.
 * Field for field, with two rules: a null becomes an unset `optional` field and back, and
 * event data/metadata JSON text becomes UTF-8 bytes and back, never parsed on the way.
 * The server uses the `to*` direction, the client the `from*` direction; a round trip gives
 * back an equal object with its keys in the contract's order. The exceptions are the Append and
 * Read requests, which the server takes from messages (`fromPbAppendRequest`, `fromPbReadRequest`)
 * for the unary calls and the sessions alike.
 * Streams.Append, Read and ReadAll bypass this module on both sides (./codec/ encodes and
 * decodes them by hand); their functions here stay as the generic path's definition, which
 * test/rpc/codec.test.ts holds the hand-written codecs to.
 */
import { isErrorCode } from "../errors.js";
import { fromPbEventRecord, fromPbEventToAppend, toPbEventRecord } from "./convert-events.js";
import type {
  AppendRequest,
  AppendResult,
  HealthResult,
  Job,
  JobList,
  JobProgress,
  JobState,
  LoginResult,
  ReadAllResult,
  ReadRequest,
  ReadStreamResult,
  Role,
  ScavengeResult,
  StorageStatus,
  StreamInfo,
  StreamList,
  StreamSummary,
  TenantDetail,
  TenantList,
  TenantUsage,
  User,
  UserList,
  VerifyResult,
} from "../contract/bodies.js";
import type { AppendResult as PbAppendResult } from "./generated/ess/v1/AppendResult.js";
import type { Job as PbJob, Job__Output } from "./generated/ess/v1/Job.js";
import type { JobList as PbJobList, JobList__Output } from "./generated/ess/v1/JobList.js";
import type {
  HealthResult as PbHealthResult,
  HealthResult__Output,
} from "./generated/ess/v1/HealthResult.js";
import type { LoginResult as PbLoginResult, LoginResult__Output } from "./generated/ess/v1/LoginResult.js";
import type {
  WhoAmIResult as PbWhoAmIResult,
  WhoAmIResult__Output,
} from "./generated/ess/v1/WhoAmIResult.js";
import type { Caller } from "../operations/authenticate.js";
import type {
  ReadAllResult as PbReadAllResult,
  ReadAllResult__Output,
} from "./generated/ess/v1/ReadAllResult.js";
import type { ReadResult as PbReadResult, ReadResult__Output } from "./generated/ess/v1/ReadResult.js";
import type {
  ScavengeResult as PbScavengeResult,
  ScavengeResult__Output,
} from "./generated/ess/v1/ScavengeResult.js";
import type {
  StorageStatus as PbStorageStatus,
  StorageStatus__Output,
} from "./generated/ess/v1/StorageStatus.js";
import type { StreamInfo as PbStreamInfo, StreamInfo__Output } from "./generated/ess/v1/StreamInfo.js";
import type { StreamList as PbStreamList, StreamList__Output } from "./generated/ess/v1/StreamList.js";
import type {
  StreamSummary as PbStreamSummary,
  StreamSummary__Output,
} from "./generated/ess/v1/StreamSummary.js";
import type {
  TenantDetail as PbTenantDetail,
  TenantDetail__Output,
} from "./generated/ess/v1/TenantDetail.js";
import type { TenantList as PbTenantList, TenantList__Output } from "./generated/ess/v1/TenantList.js";
import type { TenantUsage as PbTenantUsage, TenantUsage__Output } from "./generated/ess/v1/TenantUsage.js";
import type { User as PbUser, User__Output } from "./generated/ess/v1/User.js";
import type { UserList as PbUserList, UserList__Output } from "./generated/ess/v1/UserList.js";
import type {
  VerifyResult as PbVerifyResult,
  VerifyResult__Output,
} from "./generated/ess/v1/VerifyResult.js";
import type { AppendResult__Output } from "./generated/ess/v1/AppendResult.js";
import type { AppendRequest__Output } from "./generated/ess/v1/AppendRequest.js";
import type { ReadRequest__Output } from "./generated/ess/v1/ReadRequest.js";

/** null -> unset optional field. */
function unsetIfNull<T>(value: T | null | undefined): T | undefined {
  return value ?? undefined;
}

/** unset optional field -> null. */
function nullIfUnset<T>(value: T | null | undefined): T | null {
  return value ?? null;
}

// ---- server side: contract -> message ----

export { fromPbEventRecord, toPbEventRecord };

export function toPbAppendResult(result: AppendResult): PbAppendResult {
  return { ...result };
}

export function toPbReadResult(result: ReadStreamResult): PbReadResult {
  return {
    stream_id: result.stream_id,
    direction: result.direction,
    events: result.events.map(toPbEventRecord),
    next_revision: unsetIfNull(result.next_revision),
    is_end: result.is_end,
  };
}

export function toPbReadAllResult(result: ReadAllResult): PbReadAllResult {
  return {
    events: result.events.map(toPbEventRecord),
    next_position: unsetIfNull(result.next_position),
    is_end: result.is_end,
  };
}

export function toPbStreamInfo(info: StreamInfo): PbStreamInfo {
  return {
    stream_id: info.stream_id,
    tenant_id: info.tenant_id,
    event_count: info.event_count,
    first_revision: unsetIfNull(info.first_revision),
    last_revision: unsetIfNull(info.last_revision),
    bytes: info.bytes,
    created_at: info.created_at,
    updated_at: info.updated_at,
    deleted: info.deleted,
    tombstoned: info.tombstoned,
    retention: {
      max_age_seconds: unsetIfNull(info.retention.max_age_seconds),
      max_count: unsetIfNull(info.retention.max_count),
      truncate_before: unsetIfNull(info.retention.truncate_before),
    },
  };
}

function toPbStreamSummary(summary: StreamSummary): PbStreamSummary {
  return {
    stream_id: summary.stream_id,
    tenant_id: summary.tenant_id,
    event_count: summary.event_count,
    last_revision: unsetIfNull(summary.last_revision),
    bytes: summary.bytes,
    updated_at: summary.updated_at,
    deleted: summary.deleted,
  };
}

export function toPbStreamList(list: StreamList): PbStreamList {
  return { streams: list.streams.map(toPbStreamSummary), next_cursor: unsetIfNull(list.next_cursor) };
}

export function toPbVerifyResult(result: VerifyResult): PbVerifyResult {
  return { ...result, errors: result.errors.map((e) => ({ ...e })) };
}

export function toPbStorageStatus(status: StorageStatus): PbStorageStatus {
  return {
    engine: status.engine,
    events_total: status.events_total,
    streams_total: status.streams_total,
    bytes_total: status.bytes_total,
    last_position: status.last_position,
    last_scavenge: unsetIfNull(status.last_scavenge),
    data_dir: status.data_dir,
    segments: status.segments ?? [],
    writer: status.writer,
    index: status.index,
    tables: status.tables ?? [],
    pool: status.pool,
  };
}

function toPbTenantUsage(usage: TenantUsage): PbTenantUsage {
  return {
    tenant_id: usage.tenant_id,
    streams: usage.streams,
    events: usage.events,
    bytes: usage.bytes,
    appends_total: usage.appends_total,
    reads_total: usage.reads_total,
    last_append_at: unsetIfNull(usage.last_append_at),
  };
}

export function toPbTenantList(list: TenantList): PbTenantList {
  return { tenants: list.tenants.map(toPbTenantUsage), next_cursor: unsetIfNull(list.next_cursor) };
}

export function toPbTenantDetail(detail: TenantDetail): PbTenantDetail {
  return { ...toPbTenantUsage(detail), largest_streams: detail.largest_streams.map(toPbStreamSummary) };
}

export function toPbScavengeResult(result: ScavengeResult): PbScavengeResult {
  return { ...result, streams: result.streams?.map((s) => ({ ...s })) ?? [] };
}

export function toPbJob(job: Job): PbJob {
  const result: Pick<PbJob, "verify_result" | "scavenge_result"> = {};
  if (job.result !== null) {
    if (job.kind === "verify") result.verify_result = toPbVerifyResult(job.result as VerifyResult);
    else result.scavenge_result = toPbScavengeResult(job.result as ScavengeResult);
  }
  return {
    job_id: job.job_id,
    kind: job.kind,
    dry_run: job.dry_run,
    state: job.state,
    progress: { ...job.progress },
    created_at: job.created_at,
    started_at: unsetIfNull(job.started_at),
    finished_at: unsetIfNull(job.finished_at),
    ...result,
    error: job.error === null ? undefined : { ...job.error },
  };
}

export function toPbJobList(list: JobList): PbJobList {
  return { jobs: list.jobs.map(toPbJob), next_cursor: unsetIfNull(list.next_cursor) };
}

export function toPbHealthResult(result: HealthResult): PbHealthResult {
  return { ...result, storage: { ...result.storage } };
}

export function toPbLoginResult(result: LoginResult): PbLoginResult {
  return { ...result };
}

export function toPbWhoAmIResult(caller: Caller): PbWhoAmIResult {
  return {
    username: caller.username,
    tenant_id: caller.tenant_id,
    role: caller.role,
    expires_at_ms: caller.expires_at_ms,
  };
}

export function toPbUser(user: User): PbUser {
  return { username: user.username, tenant_id: user.tenant_id, role: user.role, created_at: user.created_at };
}

export function toPbUserList(list: UserList): PbUserList {
  return { users: list.users.map(toPbUser), next_cursor: unsetIfNull(list.next_cursor) };
}

// ---- server side: Append and Read request messages -> contract requests ----

/** The ess.v1 ReadRequest as the `read` operation takes it (the unary Read and ReadSession). */
export function fromPbReadRequest(r: ReadRequest__Output): ReadRequest {
  return { stream_id: r.stream_id, tenant: r.tenant, from: r.from, limit: r.limit, direction: r.direction };
}

/** The ess.v1 AppendRequest as the `append` operation takes it (the unary Append and AppendSession). */
export function fromPbAppendRequest(r: AppendRequest__Output): AppendRequest {
  return {
    stream_id: r.stream_id,
    tenant: r.tenant,
    events: r.events.map(fromPbEventToAppend),
    expected_revision: r.expected_revision,
  };
}

// ---- client side: message -> contract ----

export function fromPbAppendResult(result: AppendResult__Output): AppendResult {
  return {
    stream_id: result.stream_id,
    first_revision: result.first_revision,
    last_revision: result.last_revision,
    position: result.position,
    count: result.count,
  };
}

export function fromPbReadResult(result: ReadResult__Output): ReadStreamResult {
  return {
    stream_id: result.stream_id,
    direction: result.direction === "backward" ? "backward" : "forward",
    events: result.events.map(fromPbEventRecord),
    next_revision: nullIfUnset(result.next_revision),
    is_end: result.is_end,
  };
}

export function fromPbReadAllResult(result: ReadAllResult__Output): ReadAllResult {
  return {
    events: result.events.map(fromPbEventRecord),
    next_position: nullIfUnset(result.next_position),
    is_end: result.is_end,
  };
}

export function fromPbStreamInfo(info: StreamInfo__Output): StreamInfo {
  return {
    stream_id: info.stream_id,
    tenant_id: info.tenant_id,
    event_count: info.event_count,
    first_revision: nullIfUnset(info.first_revision),
    last_revision: nullIfUnset(info.last_revision),
    bytes: info.bytes,
    created_at: info.created_at,
    updated_at: info.updated_at,
    deleted: info.deleted,
    tombstoned: info.tombstoned,
    retention: {
      max_age_seconds: nullIfUnset(info.retention?.max_age_seconds),
      max_count: nullIfUnset(info.retention?.max_count),
      truncate_before: nullIfUnset(info.retention?.truncate_before),
    },
  };
}

function fromPbStreamSummary(summary: StreamSummary__Output): StreamSummary {
  return {
    stream_id: summary.stream_id,
    tenant_id: summary.tenant_id,
    event_count: summary.event_count,
    last_revision: nullIfUnset(summary.last_revision),
    bytes: summary.bytes,
    updated_at: summary.updated_at,
    deleted: summary.deleted,
  };
}

export function fromPbStreamList(list: StreamList__Output): StreamList {
  return { streams: list.streams.map(fromPbStreamSummary), next_cursor: nullIfUnset(list.next_cursor) };
}

export function fromPbVerifyResult(result: VerifyResult__Output): VerifyResult {
  return {
    ok: result.ok,
    segments_checked: result.segments_checked,
    records_checked: result.records_checked,
    bytes_checked: result.bytes_checked,
    errors: result.errors.map((e) => ({
      segment: e.segment,
      offset: e.offset,
      kind: e.kind,
      message: e.message,
    })),
    duration_ms: result.duration_ms,
  };
}

/**
 * Engine detail is present only for its engine: `segments` (possibly empty) for log,
 * `tables` for postgres, and each optional sub-message only when the server set it.
 */
export function fromPbStorageStatus(status: StorageStatus__Output): StorageStatus {
  const engine = status.engine === "postgres" ? "postgres" : "log";
  const result: StorageStatus = {
    engine,
    events_total: status.events_total,
    streams_total: status.streams_total,
    bytes_total: status.bytes_total,
    last_position: status.last_position,
    last_scavenge: status.last_scavenge
      ? {
          dry_run: status.last_scavenge.dry_run,
          events_removed: status.last_scavenge.events_removed,
          bytes_reclaimed: status.last_scavenge.bytes_reclaimed,
          segments_rewritten: status.last_scavenge.segments_rewritten,
          streams_affected: status.last_scavenge.streams_affected,
          duration_ms: status.last_scavenge.duration_ms,
          finished_at: status.last_scavenge.finished_at,
        }
      : null,
  };
  if (status.data_dir !== undefined) result.data_dir = status.data_dir;
  if (engine === "log" || status.segments.length > 0) {
    result.segments = status.segments.map((s) => ({
      name: s.name,
      base_position: s.base_position,
      records: s.records,
      bytes: s.bytes,
      sealed: s.sealed,
    }));
  }
  if (status.writer) {
    const w = status.writer;
    result.writer = {
      batches: w.batches,
      fsyncs: w.fsyncs,
      avg_batch_events: w.avg_batch_events,
      queue_depth: w.queue_depth,
    };
  }
  if (status.index) {
    const i = status.index;
    result.index = {
      entries: i.entries,
      memory_bytes: i.memory_bytes,
      bytes_per_event: i.bytes_per_event,
      checkpoint_position: i.checkpoint_position,
      id_check_false_hits: i.id_check_false_hits,
    };
  }
  if (engine === "postgres" || status.tables.length > 0) {
    result.tables = status.tables.map((t) => ({
      name: t.name,
      total_bytes: t.total_bytes,
      index_bytes: t.index_bytes,
      rows_estimate: t.rows_estimate,
    }));
  }
  if (status.pool)
    result.pool = { total: status.pool.total, idle: status.pool.idle, waiting: status.pool.waiting };
  return result;
}

function fromPbTenantUsage(usage: TenantUsage__Output | TenantDetail__Output): TenantUsage {
  return {
    tenant_id: usage.tenant_id,
    streams: usage.streams,
    events: usage.events,
    bytes: usage.bytes,
    appends_total: usage.appends_total,
    reads_total: usage.reads_total,
    last_append_at: nullIfUnset(usage.last_append_at),
  };
}

export function fromPbTenantList(list: TenantList__Output): TenantList {
  return { tenants: list.tenants.map(fromPbTenantUsage), next_cursor: nullIfUnset(list.next_cursor) };
}

export function fromPbTenantDetail(detail: TenantDetail__Output): TenantDetail {
  return { ...fromPbTenantUsage(detail), largest_streams: detail.largest_streams.map(fromPbStreamSummary) };
}

/** `streams` is there for a dry run only, as the server's result has it. */
export function fromPbScavengeResult(result: ScavengeResult__Output): ScavengeResult {
  return {
    dry_run: result.dry_run,
    events_removed: result.events_removed,
    bytes_reclaimed: result.bytes_reclaimed,
    segments_rewritten: result.segments_rewritten,
    streams_affected: result.streams_affected,
    duration_ms: result.duration_ms,
    ...(result.dry_run
      ? {
          streams: result.streams.map((s) => ({
            stream_id: s.stream_id,
            tenant_id: s.tenant_id,
            events_removed: s.events_removed,
            bytes_reclaimed: s.bytes_reclaimed,
          })),
        }
      : {}),
  };
}

const jobStates: readonly JobState[] = ["queued", "running", "done", "failed"];
const progressUnits: readonly JobProgress["unit"][] = ["bytes", "segments", "streams"];

function oneOf<T extends string>(value: string, allowed: readonly T[], fallback: T): T {
  return (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

export function fromPbJob(job: Job__Output): Job {
  const kind = job.kind === "scavenge" ? "scavenge" : "verify";
  let result: Job["result"] = null;
  if (job.verify_result) result = fromPbVerifyResult(job.verify_result);
  else if (job.scavenge_result) result = fromPbScavengeResult(job.scavenge_result);
  return {
    job_id: job.job_id,
    kind,
    dry_run: job.dry_run,
    state: oneOf(job.state, jobStates, "failed"),
    progress: {
      done: job.progress?.done ?? 0,
      total: job.progress?.total ?? 0,
      unit: oneOf(job.progress?.unit ?? "", progressUnits, kind === "verify" ? "bytes" : "streams"),
    },
    created_at: job.created_at,
    started_at: nullIfUnset(job.started_at),
    finished_at: nullIfUnset(job.finished_at),
    result,
    error: job.error
      ? { code: isErrorCode(job.error.code) ? job.error.code : "INTERNAL", message: job.error.message }
      : null,
  };
}

export function fromPbJobList(list: JobList__Output): JobList {
  return { jobs: list.jobs.map(fromPbJob), next_cursor: nullIfUnset(list.next_cursor) };
}

export function fromPbHealthResult(result: HealthResult__Output): HealthResult {
  return {
    status: result.status === "ok" ? "ok" : "degraded",
    version: result.version,
    uptime_seconds: result.uptime_seconds,
    storage: {
      engine: result.storage?.engine === "postgres" ? "postgres" : "log",
      writable: result.storage?.writable ?? false,
    },
  };
}

function toRole(role: string): Role {
  return role === "admin" || role === "writer" ? role : "reader";
}

export function fromPbWhoAmIResult(result: WhoAmIResult__Output): Caller {
  return {
    username: result.username,
    tenant_id: result.tenant_id,
    role: toRole(result.role),
    expires_at_ms: result.expires_at_ms,
  };
}

export function fromPbLoginResult(result: LoginResult__Output): LoginResult {
  return {
    access_token: result.access_token,
    token_type: "Bearer",
    expires_in: result.expires_in,
    tenant_id: result.tenant_id,
    role: toRole(result.role),
  };
}

export function fromPbUser(user: User__Output): User {
  return {
    username: user.username,
    tenant_id: user.tenant_id,
    role: toRole(user.role),
    created_at: user.created_at,
  };
}

export function fromPbUserList(list: UserList__Output): UserList {
  return { users: list.users.map(fromPbUser), next_cursor: nullIfUnset(list.next_cursor) };
}

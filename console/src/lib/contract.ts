/**
 * The bodies of the public routes the console reads (docs/contract.md "Bodies"),
 * as the console needs them. Fields the console does not show are left out; the service may
 * add fields at any time.
 */

export type Role = "admin" | "writer" | "reader";

export interface LoginResult {
  access_token: string;
  token_type: string;
  expires_in: number;
  tenant_id: string;
  role: Role;
}

/** How many bytes a padded base64 text (an event's data_base64 or metadata_base64) holds. */
export function base64Bytes(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.floor((text.length * 3) / 4) - padding;
}

export interface EventRecord {
  stream_id: string;
  revision: number;
  position: number;
  event_id: string;
  event_type: string;
  created_at: string;
  content_type: string;
  data?: unknown;
  data_base64?: string;
  metadata?: unknown;
  metadata_base64?: string;
}

export interface ReadResult {
  stream_id: string;
  direction: "forward" | "backward";
  events: EventRecord[];
  next_revision: number | null;
  is_end: boolean;
}

export interface ReadAllResult {
  events: EventRecord[];
  next_position: number | null;
  is_end: boolean;
}

export interface Retention {
  max_age_seconds: number | null;
  max_count: number | null;
  truncate_before: number | null;
}

export interface StreamInfo {
  stream_id: string;
  tenant_id: string;
  event_count: number;
  first_revision: number | null;
  last_revision: number | null;
  bytes: number;
  created_at: string | null;
  updated_at: string | null;
  deleted: boolean;
  tombstoned?: boolean;
  retention: Retention;
}

export interface StreamSummary {
  stream_id: string;
  tenant_id: string;
  event_count: number;
  last_revision: number | null;
  bytes: number;
  updated_at: string | null;
}

export interface StreamList {
  streams: StreamSummary[];
  next_cursor: string | null;
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

export interface TenantList {
  tenants: TenantUsage[];
  next_cursor?: string | null;
}

export interface TenantDetail extends TenantUsage {
  largest_streams: StreamSummary[];
}

export interface User {
  username: string;
  tenant_id: string;
  role: Role;
  created_at: string;
}

export interface UserList {
  users: User[];
  next_cursor?: string | null;
}

export interface Segment {
  name: string;
  base_position: number;
  records: number;
  bytes: number;
  sealed: boolean;
}

export interface StorageStatus {
  engine: string;
  events_total: number;
  streams_total: number;
  bytes_total: number;
  last_position: number;
  data_dir?: string;
  segments?: Segment[];
  writer?: Record<string, unknown>;
  index?: Record<string, unknown>;
  last_scavenge?: Record<string, unknown> | null;
  [detail: string]: unknown;
}

export interface VerifyResult {
  ok: boolean;
  segments_checked: number;
  records_checked: number;
  bytes_checked: number;
  errors: { segment: string; offset: number; kind: string; message: string }[];
  duration_ms: number;
}

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
  /** A dry run's list of the streams it would touch (at most 1,000). */
  streams?: ScavengeStream[];
}

export type JobKind = "verify" | "scavenge";
export type JobState = "queued" | "running" | "done" | "failed";

export interface JobProgress {
  done: number;
  total: number;
  unit: string;
}

/** docs/rest.md "Jobs". */
export interface Job {
  job_id: string;
  kind: JobKind;
  /** Scavenge only: a dry run. */
  dry_run?: boolean;
  state: JobState;
  progress: JobProgress | null;
  created_at?: string;
  started_at: string | null;
  finished_at: string | null;
  result: VerifyResult | ScavengeResult | null;
  error: { code: string; message: string } | null;
}

export interface JobList {
  /** Newest first. */
  jobs: Job[];
  next_cursor?: string | null;
}

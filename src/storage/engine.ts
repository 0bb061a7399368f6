/**
 * The storage engine interface: what the RPC operations call, and what every engine
 * (`log`, the embedded default, and `postgres`) implements. It is engine-neutral and
 * transport-free. Its results are the contract's bodies (../contract/bodies.ts), which the
 * transports pass through unchanged; what is defined here is the engine's own side: the inputs
 * the operations give it (ids resolved, event ids generated, payloads checked), the append
 * notices, the users' store, and the interface itself.
 *
 * Invariants every engine keeps (checked by the conformance suite in ./conformance/):
 * - append resolves only once its events are durable (fsync'd / committed);
 * - a batch is atomic, also across a crash; revisions per stream count from 0 without gaps;
 * - positions are global, strictly increasing, never reused and stable across scavenges,
 *   and a reader that has seen position P never later finds an event below P appear;
 * - retention and soft delete remove a prefix of a stream and act on reads at once;
 * - tenant usage is maintained as events are appended, never by scanning per request.
 *
 * Callers (the operations layer) validate input first, but an engine still refuses bad input
 * (oversized event, invalid ids, data that is not a JSON object) with an EssError before
 * anything is written, by the same rules (../contract/rules.ts). Expected outcomes are thrown
 * as EssError (see ../errors.ts).
 */
import type {
  AppendResult,
  ExpectedRevision,
  JobProgress,
  ReadAllResult,
  ReadDirection,
  ReadStreamResult,
  Retention,
  Role,
  ScavengeResult,
  StorageStatus,
  StreamInfo,
  StreamList,
  StreamMetadata,
  MetadataDocument,
  StreamSummary,
  TenantList,
  TenantUsage,
  VerifyResult,
} from "../contract/bodies.js";
import type { EventFilter } from "../contract/event-filter.js";
import type { Payload } from "../contract/payload.js";
import type { ExpectedMetadataRevision } from "../contract/stream-metadata.js";

/**
 * Event data or metadata as an engine takes it: JSON text (any JSON value), or bytes, kept and
 * returned byte for byte. A checked Payload (what the operations pass on,
 * ../contract/payload.ts) is stored as it is; text, or a payload not checked yet (a direct
 * caller's: the conformance suite, the tools), is checked in full first (./validate-input.ts).
 * A Buffer, or a bytes Payload, is stored as bytes: as `data` it makes a binary event (content
 * type application/octet-stream), as `metadata` metadata read back as bytes.
 */
export type PayloadInput = Payload | string | Buffer;

export interface EventToAppend {
  /** Canonical lowercase UUID text. */
  event_id: string;
  event_type: string;
  data: PayloadInput;
  /** "{}" when the client sent none. */
  metadata: PayloadInput;
}

export interface AppendInput {
  tenant_id: string;
  stream_id: string;
  events: EventToAppend[];
  expected_revision: ExpectedRevision;
  /**
   * True when the caller made every event id of this append just now (random UUIDs: the client
   * sent none), so none can already sit in the stream: the engine skips its repeat check (a
   * probe of the id set, or a query) for them. Unset: every id is checked.
   */
  event_ids_fresh?: boolean;
}

export interface ReadStreamInput {
  tenant_id: string;
  stream_id: string;
  direction: ReadDirection;
  /** First revision to return; null: revision 0 forward, the last revision backward. */
  from_revision: number | null;
  limit: number;
  /**
   * Bytes of event data plus metadata (UTF-8) the page may hold: it stops before the next
   * event would pass this, but always holds one event when one is left, and then ends early
   * (next_revision set, is_end false). Default limits.readPageBytesMax.
   */
  bytes_max?: number;
  /**
   * True: the events may come as StoredEventRecords (../contract/stored-event-record.ts), views
   * over the bytes the engine stored, decoded only when a field is read; each holds on to the
   * buffer it came from. For a caller that writes the page out at once and keeps no event (the
   * operations, whose reads go straight to a transport); a caller that keeps events, or compares
   * them as plain objects, leaves it unset. An engine that cannot hand out its bytes ignores it.
   * Default false: plain records.
   */
  stored_bytes?: boolean;
}

export interface ReadAllInput {
  tenant_id: string;
  /** Default "forward". */
  direction?: ReadDirection;
  /**
   * First position to look at (inclusive: forward, the first event at or after it; backward, the
   * first at or before it); null: the tenant's first event (forward) or its last (backward).
   */
  from_position: number | null;
  limit: number;
  /** Only the events this filter matches (../contract/event-filter.ts); unset or empty: all. */
  filter?: EventFilter | null;
  /**
   * Events the page may pass over (not matched by the filter, or hidden by retention or soft
   * delete): it ends at the one that would be next, with fewer events than `limit` (even none)
   * and next_position at that event. Default limits.readAllSkipMax.
   */
  skip_max?: number;
  /** As ReadStreamInput.bytes_max (next_position set when the page ends early). */
  bytes_max?: number;
  /** As ReadStreamInput.stored_bytes. */
  stored_bytes?: boolean;
}

/** An engine's readAll page: the contract's ReadAllResult and what a subscription needs besides. */
export interface ReadAllPage extends ReadAllResult {
  /**
   * Forward reads: where a next read starts without looking at any event again. next_position
   * when it is set; at the end, just past the last event the page looked at (taken or passed
   * over), so a filtered subscription moves past a tail of unmatched events. Unset when the page
   * looked at none, or when the engine cannot tell (next_position is then the rule). Never sent
   * to clients.
   */
  resume_position?: number;
}

export interface DeleteStreamOptions {
  /** Checked as an append's (checkExpectedRevision, ../contract/stream-metadata.ts). */
  expected_revision: ExpectedRevision;
  /** true: permanent. The stream's name can never be used again. */
  tombstone: boolean;
}

export interface SetMetadataInput {
  tenant_id: string;
  stream_id: string;
  /** The whole new document (requireMetadataDocument, ../contract/stream-metadata.ts). */
  metadata: MetadataDocument;
  expected_metadata_revision: ExpectedMetadataRevision;
}

export interface ListStreamsInput {
  /** null lists every tenant (admin). */
  tenant_id: string | null;
  prefix: string | null;
  limit: number;
  /** Opaque cursor from a previous page's next_cursor. */
  cursor: string | null;
}

export interface ListTenantsInput {
  limit: number;
  cursor: string | null;
}

export interface VerifyProgress {
  bytes_checked: number;
  bytes_total: number;
}

/**
 * How far a verify or scavenge has come: `done` of `total` units, never past it. A run reports
 * once with done 0 when its work begins, then as it goes. The shape a job reports (the
 * contract's JobProgress), so a job passes it on as it is.
 */
export type MaintenanceProgress = JobProgress;

export interface ScavengeOptions {
  dry_run: boolean;
  /**
   * Called once the run is admitted: from then on it cannot fail with SCAVENGE_IN_PROGRESS (a
   * real run holds the one-run-at-a-time claim; a dry run is admitted at once). It may still wait
   * its turn (the log engine runs verify and scavenge one at a time) before it reports progress.
   */
  onAdmitted?: () => void;
  onProgress?: (progress: MaintenanceProgress) => void;
}

/** Told after an append is durable; subscribers then read what they need from storage. */
export interface AppendNotice {
  tenant_id: string;
  stream_id: string;
  first_revision: number;
  last_revision: number;
  first_position: number;
  last_position: number;
}

export type AppendListener = (notice: AppendNotice) => void;

export interface StoredUser {
  username: string;
  tenant_id: string;
  role: Role;
  /** Self-describing slow hash (scrypt), never returned to clients. */
  password_hash: string;
  created_at: string;
}

export interface UserList {
  users: StoredUser[];
  next_cursor: string | null;
}

/** The service's own state kept beside the events: users and the token signing key. */
export interface AuthStore {
  /** Throws USER_EXISTS when the username is taken. */
  createUser(user: StoredUser): Promise<void>;
  getUser(username: string): Promise<StoredUser | null>;
  listUsers(input: { limit: number; cursor: string | null }): Promise<UserList>;
  /** Throws USER_NOT_FOUND. Returns the deleted user. */
  deleteUser(username: string): Promise<StoredUser>;
  countUsers(): Promise<number>;
  /**
   * Returns the signing key, creating it with `generate` on first use. Every process sharing
   * the storage gets the same key.
   */
  getOrCreateSigningKey(generate: () => Buffer): Promise<Buffer>;
}

export interface StorageEngine {
  readonly kind: "log" | "postgres";
  readonly auth: AuthStore;

  append(input: AppendInput): Promise<AppendResult>;
  /**
   * Throws STREAM_NOT_FOUND for a stream that does not exist or is soft-deleted, and
   * STREAM_TOMBSTONED for a tombstoned one.
   */
  readStream(input: ReadStreamInput): Promise<ReadStreamResult>;
  readAll(input: ReadAllInput): Promise<ReadAllPage>;
  /**
   * null when the stream has no event and is not tombstoned (never appended to, or only its
   * metadata set); a soft-deleted stream answers with deleted: true, a tombstoned one with
   * deleted and tombstoned true.
   */
  getStreamInfo(tenantId: string, streamId: string): Promise<StreamInfo | null>;
  listStreams(input: ListStreamsInput): Promise<StreamList>;
  /**
   * Throws STREAM_NOT_FOUND (no event, or soft-deleted) or STREAM_TOMBSTONED. Takes effect on
   * reads at once. Also rewrites the retention keys of the stream's metadata document, a new
   * metadata_revision.
   */
  setRetention(tenantId: string, streamId: string, retention: Retention): Promise<StreamInfo>;
  /**
   * Soft delete (default) or tombstone. Checks expected_revision first (WRONG_EXPECTED_REVISION;
   * default "any"). A tombstoned stream refuses both with STREAM_TOMBSTONED. A soft delete of a
   * stream with no event throws STREAM_NOT_FOUND, and a second one answers as the first. A
   * tombstone needs no event: it also bars a name never used.
   */
  deleteStream(tenantId: string, streamId: string, options?: DeleteStreamOptions): Promise<StreamInfo>;
  /**
   * The stream's metadata document: revision null and {} when never set (also for a stream that
   * does not exist). Survives soft delete. Throws STREAM_TOMBSTONED.
   */
  getStreamMetadata(tenantId: string, streamId: string): Promise<StreamMetadata>;
  /**
   * Replaces the document (a stream need not exist: its events, when they come, follow it) and
   * sets the retention from its keys. Throws WRONG_EXPECTED_REVISION or STREAM_TOMBSTONED.
   */
  setStreamMetadata(input: SetMetadataInput): Promise<StreamMetadata>;

  /** null for a tenant that owns no stream. */
  getTenantUsage(tenantId: string): Promise<TenantUsage | null>;
  listTenants(input: ListTenantsInput): Promise<TenantList>;
  /** The tenant's largest streams by bytes, largest first. */
  largestStreams(tenantId: string, count: number): Promise<StreamSummary[]>;

  /** Reports progress once with bytes_checked 0 when its work begins, then as it goes. */
  verify(onProgress?: (progress: VerifyProgress) => void): Promise<VerifyResult>;
  status(): Promise<StorageStatus>;
  /** Throws SCAVENGE_IN_PROGRESS when a real run is already going. */
  scavenge(options: ScavengeOptions): Promise<ScavengeResult>;
  /** false after a fatal write fault (the engine then refuses appends with UNAVAILABLE). */
  isWritable(): boolean;
  /**
   * true once a read (or start-up) found stored bytes that fail their checksum (reads of them
   * answer DATA_CORRUPTED); health then says "degraded".
   */
  isDamaged(): boolean;

  /** Registers a listener for durable appends; returns the function that removes it. */
  onAppend(listener: AppendListener): () => void;

  /** Finishes in-flight appends, flushes, and releases files and connections. */
  close(): Promise<void>;
}

/**
 * Hears of each group of appends once it is durable: how many appends it held and how long the
 * step that made it durable took (the log engine's fdatasync, the PostgreSQL engine's
 * transaction). Called once per group, never per event, so that it costs the append path
 * nothing measurable (the service's metrics, src/metrics/).
 */
export interface CommitObserver {
  committed(engine: "log" | "postgres", appends: number, seconds: number): void;
}

/** Options every engine takes. */
export interface EngineOptions {
  /** Milliseconds since the epoch; injectable so max_age retention can be tested without sleeping. */
  now?: () => number;
  /** Told of each durable group of appends (metrics); none by default. */
  commitObserver?: CommitObserver;
}

/**
 * The postgres storage engine: the StorageEngine contract on a PostgreSQL database that several
 * service processes ("nodes") share. Nothing here relies on in-process locks; every rule is held
 * by transactions, row locks and constraints, so two nodes behave like two callers of one node.
 *
 * Invariants (see docs/postgres.md):
 * - An append is one transaction: lock the stream row (optimistic concurrency and idempotency
 *   are checked under it), then add to the tenant's usage row, then take the single counter row
 *   `ess_global` to assign positions, insert the events and pg_notify. The counter row is locked
 *   last and held until commit, so transactions commit in position order: the positions a reader
 *   can see are always a prefix of all positions, never with a hole that fills later.
 *   Lock order is always stream row, tenant row, counter row (no deadlocks).
 * - The append resolves only after COMMIT returns (synchronous_commit as configured on the server).
 * - Retention and soft delete hide a prefix of a stream (./sql.ts); scavenge deletes that prefix in
 *   short batches, each its own transaction.
 * - Tenant usage is updated in the append (and scavenge) transaction; reads are counted in memory
 *   and added to the tenant row every second and at close.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { dataCorrupted, EssError, streamNotFound, unavailable } from "../../errors.js";
import { limits } from "../../limits.js";
import { logger as rootLogger, type Logger } from "../../logger.js";
import type {
  AppendResult,
  EventRecord,
  LastScavenge,
  ReadAllResult,
  ReadStreamResult,
  Retention,
  ScavengeResult,
  StorageStatus,
  StreamInfo,
  StreamList,
  StreamSummary,
  TenantList,
  TenantUsage,
  VerifyError,
  VerifyResult,
} from "../../contract/bodies.js";
import type {
  AppendInput,
  AppendListener,
  AppendNotice,
  AuthStore,
  EngineOptions,
  ListStreamsInput,
  ListTenantsInput,
  ReadAllInput,
  ReadStreamInput,
  StorageEngine,
  VerifyProgress,
} from "../engine.js";
import { PostgresAppendListener, appendChannelFor } from "./append-listener.js";
import { PostgresAuthStore, decodeCursor, encodeCursor } from "./auth-store.js";
import { appendBatch, type BatchItem } from "./append-batch.js";
import { eventChecksum } from "./checksum.js";
import { migrate } from "./migrate.js";
import { pageBytesMax } from "../read-page.js";
import {
  eventBytesSql,
  eventColumnsSql,
  eventVisibleSql,
  firstVisibleSql,
  streamColumnsSql,
  withPageBytesSql,
} from "./sql.js";
import { checkId, checkRetention } from "../validate-input.js";
import { checkAppend, checkLimit, checkStart } from "./validate.js";

export interface PostgresEngineOptions extends EngineOptions {
  /** postgres:// connection string (SERVICE_POSTGRES_URL). */
  url: string;
  /**
   * Connections in the pool (default limits.postgresPoolSizeDefault). Each node holds this many
   * plus one listening connection.
   */
  poolMax?: number;
  logger?: Logger;
}

/** Appends written in one transaction (group commit, ./append-batch.ts). Small enough that a
 * batch holds its stream row locks briefly and a failed commit fails few callers. */
const appendBatchAppendsMax = 64;
/** Bytes of events in one batch. */
const appendBatchBytesMax = limits.writerGroupBytesMax;
/** Batches one node writes at once: one locks its streams while another commits. */
const appendBatchesInFlightMax = 2;

interface QueuedAppend {
  input: AppendInput;
  sizes: number[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** Events deleted per scavenge statement: keeps each transaction and its locks short. */
export const scavengeBatchRows = 1000;
/** Rows verify reads per query. */
const verifyPageRows = 1000;
/** Streams one catch-up after a reconnect reads per query. */
const catchUpWindowPositions = 10_000;
/** Milliseconds between flushes of the in-memory read counters to the tenant rows. */
const readsFlushIntervalMs = 1000;
/** Arguments of the advisory lock a real scavenge run holds, on any node, per schema. */
export const scavengeLockArgs = "hashtext('ess-scavenge'), hashtext(current_schema())";

// int8 as a JS number: positions, revisions and counts stay below 2^53 (DESIGN.md section 4).
const int8Oid = 20;
const textParser = (oid: number): ((value: string) => unknown) =>
  // The driver's own parser table is typed loosely; its text parsers take the column's text.
  pg.types.getTypeParser(oid, "text") as (value: string) => unknown;
const typeParsers = {
  getTypeParser: ((oid: number) =>
    oid === int8Oid
      ? (value: string) => Number(value)
      : textParser(oid)) as pg.CustomTypesConfig["getTypeParser"],
};

interface StreamRow {
  tenant_id: string;
  stream_id: string;
  last_revision: number;
  bytes: number;
  created_at: Date;
  updated_at: Date;
  deleted: boolean;
  max_age_seconds: number | null;
  max_count: number | null;
  truncate_before: number | null;
  first_stored_revision: number;
  first_visible: number;
}

interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  event_id: string;
  event_type: string;
  data: string;
  metadata: string;
  /** Already RFC 3339 text (eventColumnsSql). */
  created_at: string;
  /** The row's checksum written at append (checksum.ts); bigint, so it may arrive as text. */
  checksum: number | string;
}

interface TenantRow {
  tenant_id: string;
  streams: number;
  events: number;
  bytes: number;
  appends_total: number;
  reads_total: number;
  last_append_at: Date | null;
}

function toEvent(row: EventRow): EventRecord {
  return {
    stream_id: row.stream_id,
    revision: row.revision,
    position: row.position,
    event_id: row.event_id,
    event_type: row.event_type,
    data: row.data,
    metadata: row.metadata,
    created_at: row.created_at,
  };
}

function readableCount(row: StreamRow): number {
  return Math.max(0, row.last_revision + 1 - row.first_visible);
}

function toInfo(row: StreamRow): StreamInfo {
  const count = readableCount(row);
  return {
    stream_id: row.stream_id,
    tenant_id: row.tenant_id,
    event_count: count,
    first_revision: count > 0 ? row.first_visible : null,
    last_revision: row.last_revision >= 0 ? row.last_revision : null,
    bytes: row.bytes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    deleted: row.deleted,
    retention: {
      max_age_seconds: row.max_age_seconds,
      max_count: row.max_count,
      truncate_before: row.truncate_before,
    },
  };
}

function toSummary(row: StreamRow): StreamSummary {
  return {
    stream_id: row.stream_id,
    tenant_id: row.tenant_id,
    event_count: readableCount(row),
    last_revision: row.last_revision >= 0 ? row.last_revision : null,
    bytes: row.bytes,
    updated_at: row.updated_at.toISOString(),
    deleted: row.deleted,
  };
}

function toUsage(row: TenantRow, pendingReads: number): TenantUsage {
  return {
    tenant_id: row.tenant_id,
    streams: row.streams,
    events: row.events,
    bytes: row.bytes,
    appends_total: row.appends_total,
    reads_total: row.reads_total + pendingReads,
    last_append_at: row.last_append_at ? row.last_append_at.toISOString() : null,
  };
}

/**
 * A named (prepared) statement for a hot query: PostgreSQL parses and plans it once per
 * connection instead of on every call. The name is derived from the text, so it is stable.
 */
const preparedNames = new Map<string, string>();
function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = preparedNames.get(text);
  if (name === undefined) {
    name = `ess_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    preparedNames.set(text, name);
  }
  return { name, text, values };
}

/** Connection failures and server shutdowns become UNAVAILABLE; anything else stays a bug. */
function isConnectionFailure(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  if (code.startsWith("08") || code.startsWith("57P") || code === "53300") return true;
  if (["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND"].includes(code)) return true;
  const message = typeof e?.message === "string" ? e.message : "";
  return /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
    message,
  );
}

/** Opens the engine: connects, migrates the schema, and starts listening for every node's appends. */
export async function openPostgresEngine(options: PostgresEngineOptions): Promise<PostgresEngine> {
  const log = (options.logger ?? rootLogger).child({ component: "postgres" });
  const connection: pg.ClientConfig = {
    connectionString: options.url,
    types: typeParsers,
    application_name: "ess",
  };
  const pool = new pg.Pool({
    ...connection,
    max: options.poolMax ?? limits.postgresPoolSizeDefault,
    keepAlive: true,
  });
  // An idle client's connection dropping must not crash the process; the pool discards it.
  pool.on("error", (error) => log.warn("postgres pool connection failed", { error: error.message }));
  let engine: PostgresEngine | null = null;
  try {
    await migrate(pool);
    const schema = await pool.query<{ schema: string }>("SELECT current_schema() AS schema");
    const channel = appendChannelFor(schema.rows[0]?.schema ?? "public");
    engine = new PostgresEngine(pool, connection, channel, options.now ?? Date.now, log);
    await engine.start();
  } catch (error) {
    if (engine) await engine.close().catch(() => undefined);
    else await pool.end().catch(() => undefined);
    throw error;
  }
  return engine;
}

export class PostgresEngine implements StorageEngine {
  readonly kind = "postgres" as const;
  readonly auth: AuthStore;
  private readonly listeners = new Set<AppendListener>();
  private readonly appendListener: PostgresAppendListener;
  /** Position of the last append told to listeners; notices at or below it are stale. */
  private lastNoticedPosition = 0;
  private readonly pendingReads = new Map<string, number>();
  private readsGate: Promise<void> = Promise.resolve();
  private readsTimer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private readonly appendQueue: QueuedAppend[] = [];
  private appendBatchesInFlight = 0;
  private reachable = true;
  /** Set when a read found a row failing its checksum (isDamaged). */
  private damaged = false;
  /** Positions of damaged rows already logged: one line per row. */
  private readonly damagedLogged = new Set<number>();

  constructor(
    private readonly pool: pg.Pool,
    connection: pg.ClientConfig,
    private readonly channel: string,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {
    this.auth = new PostgresAuthStore(pool);
    this.appendListener = new PostgresAppendListener({
      connection: { ...connection, application_name: "ess-listener" },
      channel,
      logger: log,
      onNotice: (notice) => this.tell(notice),
      onConnected: (client) => this.catchUpNotices(client),
    });
  }

  /** @internal */
  async start(): Promise<void> {
    await this.appendListener.start();
    this.readsTimer = setInterval(() => {
      this.flushReads().catch((error: Error) =>
        this.log.warn("reads flush failed", { error: error.message }),
      );
    }, readsFlushIntervalMs);
    this.readsTimer.unref();
  }

  /** The listening connection's backend pid, so tests can cut it. */
  get listenerBackendPid(): number | null {
    return this.appendListener.backendPid;
  }

  // ---------------------------------------------------------------- plumbing

  /** Runs an operation, counting it in flight (close waits for it) and mapping connection loss. */
  private async run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed) throw unavailable("the storage engine is closed");
    const promise = operation();
    this.inFlight.add(promise);
    try {
      const result = await promise;
      this.reachable = true;
      return result;
    } catch (error) {
      if (isConnectionFailure(error)) {
        this.reachable = false;
        this.log.warn("postgres operation failed", { error: (error as Error).message });
        throw unavailable("storage is not available");
      }
      throw error;
    } finally {
      this.inFlight.delete(promise);
    }
  }

  private async transaction<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query("BEGIN");
      try {
        const result = await body(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        throw error;
      }
    } catch (error) {
      if (isConnectionFailure(error)) broken = true;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private countRead(tenantId: string): void {
    this.pendingReads.set(tenantId, (this.pendingReads.get(tenantId) ?? 0) + 1);
  }

  /**
   * Runs flushes of the read counters and the usage queries one at a time, so a usage answer
   * counts each read exactly once (in the row or still in memory, never both or neither).
   */
  private readsGated<T>(body: () => Promise<T>): Promise<T> {
    const next = this.readsGate.then(body);
    this.readsGate = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private flushReads(): Promise<void> {
    return this.readsGated(() => this.flushReadsNow());
  }

  private async flushReadsNow(): Promise<void> {
    if (this.pendingReads.size === 0) return;
    const tenants = [...this.pendingReads.keys()];
    const counts = tenants.map((t) => this.pendingReads.get(t) ?? 0);
    this.pendingReads.clear();
    try {
      await this.pool.query(
        `UPDATE ess_tenants t SET reads_total = t.reads_total + u.n
         FROM unnest($1::text[], $2::bigint[]) AS u(tenant_id, n) WHERE t.tenant_id = u.tenant_id`,
        [tenants, counts],
      );
    } catch (error) {
      // Put the counts back; they are added on the next flush.
      tenants.forEach((t, i) => this.pendingReads.set(t, (this.pendingReads.get(t) ?? 0) + (counts[i] ?? 0)));
      throw error;
    }
  }

  // ---------------------------------------------------------------- append

  append(input: AppendInput): Promise<AppendResult> {
    return this.run(() => {
      const sizes = checkAppend(input);
      if (this.appendQueue.length >= limits.writerQueueAppendsMax) {
        throw unavailable("too many appends are waiting; try again");
      }
      return new Promise<AppendResult>((resolve, reject) => {
        this.appendQueue.push({ input, sizes, resolve, reject });
        this.pumpAppends();
      });
    });
  }

  /**
   * Starts a batch when one may start: up to appendBatchesInFlightMax batches at a time, each
   * taking the appends waiting (at most appendBatchAppendsMax, appendBatchBytesMax). One append
   * alone is a batch of one, so a lone caller waits for nothing.
   */
  private pumpAppends(): void {
    while (this.appendQueue.length > 0 && this.appendBatchesInFlight < appendBatchesInFlightMax) {
      const batch: QueuedAppend[] = [];
      let bytes = 0;
      while (batch.length < appendBatchAppendsMax && this.appendQueue.length > 0) {
        const next = this.appendQueue[0];
        if (!next) break;
        const size = next.sizes.reduce((a, b) => a + b, 0);
        if (batch.length > 0 && bytes + size > appendBatchBytesMax) break;
        this.appendQueue.shift();
        batch.push(next);
        bytes += size;
      }
      this.appendBatchesInFlight += 1;
      void this.writeBatch(batch).finally(() => {
        this.appendBatchesInFlight -= 1;
        this.pumpAppends();
      });
    }
  }

  private async writeBatch(batch: QueuedAppend[]): Promise<void> {
    const items: BatchItem[] = batch.map((q) => ({ input: q.input, sizes: q.sizes }));
    let client: pg.PoolClient | null = null;
    let broken = false;
    try {
      client = await this.pool.connect();
      await appendBatch(client, items, this.channel, this.now(), prepared);
    } catch (error) {
      if (isConnectionFailure(error)) broken = true;
      for (const q of batch) q.reject(error);
      return;
    } finally {
      client?.release(broken);
    }
    items.forEach((item, i) => {
      const q = batch[i];
      if (!q) return;
      const outcome = item.outcome;
      if (outcome && "result" in outcome) q.resolve(outcome.result);
      else q.reject(outcome ? outcome.error : new EssError("INTERNAL", "internal error"));
    });
  }

  // ---------------------------------------------------------------- reads

  readStream(input: ReadStreamInput): Promise<ReadStreamResult> {
    return this.run(async () => {
      checkId("tenant_id", input.tenant_id);
      checkId("stream_id", input.stream_id);
      checkLimit(input.limit);
      checkStart("from_revision", input.from_revision);
      const bytesMax = pageBytesMax(input.bytes_max);
      const forward = input.direction === "forward";
      const now = new Date(this.now()).toISOString();
      // One statement, one snapshot: the stream row and its events agree. The page is the
      // prefix whose data and metadata stay within $6 bytes (its first event always);
      // octet_length reads a TOASTed value's size without fetching the value.
      const order = forward ? "e.revision" : "e.revision DESC";
      const range = forward
        ? "e.revision >= GREATEST(s.first_visible, $3::bigint) AND e.revision <= s.last_revision"
        : "e.revision >= s.first_visible AND e.revision <= LEAST(s.last_revision, $3::bigint)";
      const events = `SELECT p.* FROM (${withPageBytesSql(
        `SELECT ${eventColumnsSql("e")}, ${eventBytesSql("e")}
         FROM ess_events e
         WHERE e.tenant_id = s.tenant_id AND e.stream_id = s.stream_id AND ${range}
         ORDER BY ${order} LIMIT $4`,
        forward ? "q.revision" : "q.revision DESC",
      )}) p WHERE p.page_row = 1 OR p.page_bytes <= $6`;
      const result = await this.pool.query<
        EventRow & { s_last_revision: number; s_deleted: boolean; s_first_visible: number; s_found: boolean }
      >(
        prepared(
          `WITH s AS (
           SELECT s.tenant_id, s.stream_id, s.last_revision, s.deleted, ${firstVisibleSql("s", "$5")} AS first_visible
           FROM ess_streams s WHERE s.tenant_id = $1 AND s.stream_id = $2 AND s.last_revision >= 0
         )
         SELECT s.last_revision AS s_last_revision, s.deleted AS s_deleted, s.first_visible AS s_first_visible,
           e.position, e.stream_id, e.revision, e.event_id, e.event_type, e.data, e.metadata, e.created_at, e.checksum
         FROM s LEFT JOIN LATERAL (${events}) e ON true
         ORDER BY e.revision ${forward ? "ASC" : "DESC"}`,
          [
            input.tenant_id,
            input.stream_id,
            input.from_revision ?? (forward ? 0 : Number.MAX_SAFE_INTEGER),
            input.limit,
            now,
            bytesMax,
          ],
        ),
      );
      const head = result.rows[0];
      if (!head || head.s_deleted) throw streamNotFound(input.stream_id);
      this.countRead(input.tenant_id);
      const rows = result.rows.filter((r) => r.position !== null);
      const events_ = rows.map((r) => this.checkedEvent(input.tenant_id, r));
      const lastRow = rows[rows.length - 1];
      let next: number | null = null;
      // Every revision from first_visible to last_revision is stored, so the page ended early
      // (limit or bytes) exactly when events are left beyond its last one.
      if (lastRow) {
        if (forward && lastRow.revision < head.s_last_revision) next = lastRow.revision + 1;
        if (!forward && lastRow.revision > head.s_first_visible) next = lastRow.revision - 1;
      }
      return {
        stream_id: input.stream_id,
        direction: input.direction,
        events: events_,
        next_revision: next,
        is_end: next === null,
      };
    });
  }

  readAll(input: ReadAllInput): Promise<ReadAllResult> {
    return this.run(async () => {
      checkId("tenant_id", input.tenant_id);
      checkLimit(input.limit);
      checkStart("from_position", input.from_position);
      const bytesMax = pageBytesMax(input.bytes_max);
      const now = new Date(this.now()).toISOString();
      // Positions commit in order (see the module comment), so whatever this snapshot sees is a
      // prefix of the global order: a later read can only add positions after these. The rows
      // come back up to the first one past the page (by limit or by bytes, as readStream), which
      // says whether there is more and where the next page starts.
      const result = await this.pool.query<EventRow & { page_bytes: number }>(
        prepared(
          `SELECT p.* FROM (${withPageBytesSql(
            `SELECT ${eventColumnsSql("e")}, ${eventBytesSql("e")}
             FROM ess_events e
             JOIN ess_streams s ON s.tenant_id = e.tenant_id AND s.stream_id = e.stream_id
             WHERE e.tenant_id = $1 AND e.position >= $2 AND ${eventVisibleSql("e", "s", "$4")}
             ORDER BY e.position LIMIT $3`,
            "q.position",
          )}) p WHERE p.page_row <= 2 OR p.page_bytes - p.event_bytes <= $5
           ORDER BY p.position`,
          [input.tenant_id, input.from_position, input.limit + 1, now, bytesMax],
        ),
      );
      this.countRead(input.tenant_id);
      const rows = result.rows;
      let take = 0;
      while (take < rows.length && take < input.limit && (take === 0 || rows[take]!.page_bytes <= bytesMax)) {
        take++;
      }
      const next = rows[take];
      return {
        events: rows.slice(0, take).map((r) => this.checkedEvent(input.tenant_id, r)),
        next_position: next ? next.position : null,
        is_end: !next,
      };
    });
  }

  /**
   * The row as an event, once its content matches the checksum written with it at append: a
   * row changed behind the service's back (or damaged) is never served. The read answers
   * DATA_CORRUPTED, one error line per damaged row, and health turns "degraded".
   */
  private checkedEvent(tenantId: string, row: EventRow): EventRecord {
    const sum = eventChecksum({
      tenant_id: tenantId,
      stream_id: row.stream_id,
      revision: row.revision,
      event_id: row.event_id,
      event_type: row.event_type,
      data: row.data,
      metadata: row.metadata,
      created_at_ms: Date.parse(row.created_at),
    });
    if (sum === Number(row.checksum)) return toEvent(row);
    this.damaged = true;
    if (!this.damagedLogged.has(row.position)) {
      this.damagedLogged.add(row.position);
      this.log.error(
        "a stored event row does not match its checksum and is not served; reads that need it answer DATA_CORRUPTED",
        {
          tenant_id: tenantId,
          stream_id: row.stream_id,
          revision: row.revision,
          position: row.position,
        },
      );
    }
    throw dataCorrupted(row.stream_id, row.revision, row.position);
  }

  // ---------------------------------------------------------------- streams

  private async streamRow(tenantId: string, streamId: string): Promise<StreamRow | null> {
    const now = new Date(this.now()).toISOString();
    const result = await this.pool.query<StreamRow>(
      prepared(
        `SELECT ${streamColumnsSql("s", "$3")} FROM ess_streams s
       WHERE s.tenant_id = $1 AND s.stream_id = $2 AND s.last_revision >= 0`,
        [tenantId, streamId, now],
      ),
    );
    return result.rows[0] ?? null;
  }

  getStreamInfo(tenantId: string, streamId: string): Promise<StreamInfo | null> {
    return this.run(async () => {
      checkId("tenant_id", tenantId);
      checkId("stream_id", streamId);
      const row = await this.streamRow(tenantId, streamId);
      return row ? toInfo(row) : null;
    });
  }

  listStreams(input: ListStreamsInput): Promise<StreamList> {
    return this.run(async () => {
      const now = new Date(this.now()).toISOString();
      const after = input.cursor === null ? null : decodeCursor(input.cursor, 2);
      const result = await this.pool.query<StreamRow>(
        `SELECT ${streamColumnsSql("s", "$6")} FROM ess_streams s
         WHERE s.last_revision >= 0
           AND ($1::text IS NULL OR s.tenant_id = $1)
           AND ($2::text IS NULL OR (s.stream_id >= $2 AND starts_with(s.stream_id, $2)))
           AND ($3::text IS NULL OR (s.tenant_id, s.stream_id) > ($3::text, $4::text))
         ORDER BY s.tenant_id, s.stream_id LIMIT $5`,
        [input.tenant_id, input.prefix, after?.[0] ?? null, after?.[1] ?? null, input.limit + 1, now],
      );
      const rows = result.rows.slice(0, input.limit);
      const last = rows[rows.length - 1];
      return {
        streams: rows.map(toSummary),
        next_cursor:
          result.rows.length > input.limit && last ? encodeCursor([last.tenant_id, last.stream_id]) : null,
      };
    });
  }

  setRetention(tenantId: string, streamId: string, retention: Retention): Promise<StreamInfo> {
    return this.run(async () => {
      checkRetention(retention);
      checkId("tenant_id", tenantId);
      checkId("stream_id", streamId);
      const updated = await this.pool.query(
        `UPDATE ess_streams SET max_age_seconds = $3, max_count = $4, truncate_before = $5
         WHERE tenant_id = $1 AND stream_id = $2 AND last_revision >= 0 AND NOT deleted`,
        [tenantId, streamId, retention.max_age_seconds, retention.max_count, retention.truncate_before],
      );
      if (updated.rowCount !== 1) throw streamNotFound(streamId);
      const row = await this.streamRow(tenantId, streamId);
      if (!row) throw streamNotFound(streamId);
      return toInfo(row);
    });
  }

  deleteStream(tenantId: string, streamId: string): Promise<StreamInfo> {
    return this.run(async () => {
      checkId("tenant_id", tenantId);
      checkId("stream_id", streamId);
      // The mark hides every revision appended so far; appends after it continue the stream.
      // One statement: the stream row first, then the tenant's stream count (the append's lock order).
      await this.pool.query(
        `WITH s AS (
           UPDATE ess_streams SET deleted = true, hidden_before = GREATEST(hidden_before, last_revision + 1)
           WHERE tenant_id = $1 AND stream_id = $2 AND last_revision >= 0 AND NOT deleted RETURNING tenant_id
         )
         UPDATE ess_tenants t SET streams = t.streams - 1 FROM s WHERE t.tenant_id = s.tenant_id`,
        [tenantId, streamId],
      );
      const row = await this.streamRow(tenantId, streamId);
      if (!row) throw streamNotFound(streamId);
      return toInfo(row);
    });
  }

  // ---------------------------------------------------------------- tenants

  getTenantUsage(tenantId: string): Promise<TenantUsage | null> {
    return this.run(async () => {
      return this.readsGated(async () => {
        const result = await this.pool.query<TenantRow>("SELECT * FROM ess_tenants WHERE tenant_id = $1", [
          tenantId,
        ]);
        const row = result.rows[0];
        return row ? toUsage(row, this.pendingReads.get(tenantId) ?? 0) : null;
      });
    });
  }

  listTenants(input: ListTenantsInput): Promise<TenantList> {
    return this.run(async () => {
      const after = input.cursor === null ? null : (decodeCursor(input.cursor, 1)[0] ?? null);
      const [result, tenants] = await this.readsGated(async () => {
        const found = await this.pool.query<TenantRow>(
          `SELECT * FROM ess_tenants WHERE ($1::text IS NULL OR tenant_id > $1) ORDER BY tenant_id LIMIT $2`,
          [after, input.limit + 1],
        );
        const usage = found.rows
          .slice(0, input.limit)
          .map((r) => toUsage(r, this.pendingReads.get(r.tenant_id) ?? 0));
        return [found, usage] as const;
      });
      const last = result.rows.slice(0, input.limit).at(-1);
      return {
        tenants,
        next_cursor: result.rows.length > input.limit && last ? encodeCursor([last.tenant_id]) : null,
      };
    });
  }

  largestStreams(tenantId: string, count: number): Promise<StreamSummary[]> {
    return this.run(async () => {
      const now = new Date(this.now()).toISOString();
      const result = await this.pool.query<StreamRow>(
        `SELECT ${streamColumnsSql("s", "$3")} FROM ess_streams s
         WHERE s.tenant_id = $1 AND s.last_revision >= 0 ORDER BY s.bytes DESC, s.stream_id LIMIT $2`,
        [tenantId, count, now],
      );
      return result.rows.map(toSummary);
    });
  }

  // ---------------------------------------------------------------- verify

  verify(onProgress?: (progress: VerifyProgress) => void): Promise<VerifyResult> {
    return this.run(() => this.verifyAll(onProgress));
  }

  private async verifyAll(onProgress?: (progress: VerifyProgress) => void): Promise<VerifyResult> {
    const started = Date.now();
    const errors: VerifyError[] = [];
    /** Errors kept in the result; more are counted in the message of the last one. */
    const errorsMax = 100;
    let dropped = 0;
    const report = (error: VerifyError): void => {
      if (errors.length < errorsMax) errors.push(error);
      else dropped += 1;
    };
    const totals = await this.pool.query<{ bytes: number; last_position: number }>(
      `SELECT COALESCE((SELECT sum(bytes) FROM ess_tenants), 0)::bigint AS bytes,
              (SELECT last_position FROM ess_global WHERE id = 1) AS last_position`,
    );
    const bytesTotal = totals.rows[0]?.bytes ?? 0;
    const lastPosition = totals.rows[0]?.last_position ?? 0;

    // 1. Every event row against its stored checksum, in pages by position.
    let records = 0;
    let bytes = 0;
    let after = 0;
    for (;;) {
      const page = await this.pool.query<{
        position: number;
        tenant_id: string;
        stream_id: string;
        revision: number;
        event_id: string;
        event_type: string;
        data: string;
        metadata: string;
        created_at: Date;
        bytes: number;
        checksum: number;
      }>(
        `SELECT position, tenant_id, stream_id, revision, event_id, event_type, data, metadata, created_at, bytes, checksum
         FROM ess_events WHERE position > $1 ORDER BY position LIMIT $2`,
        [after, verifyPageRows],
      );
      for (const row of page.rows) {
        records += 1;
        bytes += row.bytes;
        const sum = eventChecksum({ ...row, created_at_ms: row.created_at.getTime() });
        if (sum !== row.checksum) {
          report({
            segment: "ess_events",
            offset: row.position,
            kind: "checksum_mismatch",
            message: `event at position ${row.position} (stream '${row.stream_id}' revision ${row.revision}) does not match its checksum`,
          });
        }
        const size =
          Buffer.byteLength(row.event_type) + Buffer.byteLength(row.data) + Buffer.byteLength(row.metadata);
        if (size !== row.bytes) {
          report({
            segment: "ess_events",
            offset: row.position,
            kind: "size_mismatch",
            message: `event at position ${row.position} holds ${size} bytes, recorded ${row.bytes}`,
          });
        }
        if (row.position > lastPosition) {
          report({
            segment: "ess_events",
            offset: row.position,
            kind: "position_beyond_counter",
            message: `event at position ${row.position} is past the last assigned position ${lastPosition}`,
          });
        }
      }
      const last = page.rows[page.rows.length - 1];
      if (onProgress) onProgress({ bytes_checked: bytes, bytes_total: Math.max(bytes, bytesTotal) });
      if (!last || page.rows.length < verifyPageRows) break;
      after = last.position;
    }

    // 2. Every stream row against its events: revisions without holes, positions growing with
    //    revisions, and the counters the stream row keeps.
    const streams = await this.pool.query<{
      tenant_id: string;
      stream_id: string;
      last_revision: number;
      first_stored_revision: number;
      stored_events: number;
      bytes: number;
      n: number;
      min_rev: number | null;
      max_rev: number | null;
      sum_bytes: number;
      disorder: number;
    }>(
      `SELECT s.tenant_id, s.stream_id, s.last_revision, s.first_stored_revision, s.stored_events, s.bytes,
              COALESCE(a.n, 0) AS n, a.min_rev, a.max_rev, COALESCE(a.sum_bytes, 0) AS sum_bytes,
              COALESCE(a.disorder, 0) AS disorder
       FROM ess_streams s LEFT JOIN (
         SELECT tenant_id, stream_id, count(*) AS n, min(revision) AS min_rev, max(revision) AS max_rev,
                sum(bytes)::bigint AS sum_bytes, count(*) FILTER (WHERE position <= prev) AS disorder
         FROM (SELECT tenant_id, stream_id, revision, bytes, position,
                      lag(position) OVER (PARTITION BY tenant_id, stream_id ORDER BY revision) AS prev
               FROM ess_events) w
         GROUP BY tenant_id, stream_id
       ) a ON a.tenant_id = s.tenant_id AND a.stream_id = s.stream_id
       WHERE s.last_revision >= 0
         AND (COALESCE(a.n, 0) <> s.stored_events OR COALESCE(a.sum_bytes, 0) <> s.bytes
              OR COALESCE(a.disorder, 0) > 0
              OR (a.n > 0 AND (a.max_rev <> s.last_revision OR a.min_rev <> s.first_stored_revision
                               OR a.max_rev - a.min_rev + 1 <> a.n)))`,
    );
    for (const row of streams.rows) {
      report({
        segment: "ess_streams",
        offset: 0,
        kind: "stream_mismatch",
        message:
          `stream '${row.stream_id}' of tenant '${row.tenant_id}': ${row.n} events stored ` +
          `(revisions ${row.min_rev ?? "-"}..${row.max_rev ?? "-"}, ${row.sum_bytes} bytes, ${row.disorder} out of order), ` +
          `stream row says ${row.stored_events} events (revisions ${row.first_stored_revision}..${row.last_revision}, ${row.bytes} bytes)`,
      });
    }

    // 3. Every tenant's usage against its streams.
    const tenants = await this.pool.query<{ tenant_id: string; message: string }>(
      `SELECT COALESCE(t.tenant_id, a.tenant_id) AS tenant_id,
              format('usage says %s streams, %s events, %s bytes; streams hold %s, %s, %s',
                     t.streams, t.events, t.bytes, a.streams, a.events, a.bytes) AS message
       FROM ess_tenants t FULL JOIN (
         SELECT tenant_id, count(*) FILTER (WHERE NOT deleted) AS streams, sum(stored_events)::bigint AS events,
                sum(bytes)::bigint AS bytes
         FROM ess_streams WHERE last_revision >= 0 GROUP BY tenant_id
       ) a ON a.tenant_id = t.tenant_id
       WHERE t.tenant_id IS NULL OR a.tenant_id IS NULL
          OR t.streams <> a.streams OR t.events <> a.events OR t.bytes <> a.bytes`,
    );
    for (const row of tenants.rows) {
      report({
        segment: "ess_tenants",
        offset: 0,
        kind: "usage_mismatch",
        message: `tenant '${row.tenant_id}': ${row.message}`,
      });
    }
    if (dropped > 0) {
      errors.push({
        segment: "",
        offset: 0,
        kind: "more_errors",
        message: `${dropped} more errors were found and not listed`,
      });
    }
    return {
      ok: errors.length === 0,
      segments_checked: 3,
      records_checked: records,
      bytes_checked: bytes,
      errors,
      duration_ms: Date.now() - started,
    };
  }

  // ---------------------------------------------------------------- status

  status(): Promise<StorageStatus> {
    return this.run(async () => {
      const totals = await this.pool.query<{
        last_position: number;
        events: number;
        streams: number;
        bytes: number;
        last_scavenge: LastScavenge | null;
      }>(
        `SELECT (SELECT last_position FROM ess_global WHERE id = 1) AS last_position,
                COALESCE(sum(events), 0)::bigint AS events, COALESCE(sum(streams), 0)::bigint AS streams,
                COALESCE(sum(bytes), 0)::bigint AS bytes,
                (SELECT value FROM ess_meta WHERE key = 'last_scavenge') AS last_scavenge
         FROM ess_tenants`,
      );
      const tables = await this.pool.query<{
        name: string;
        total_bytes: number;
        index_bytes: number;
        rows_estimate: number;
      }>(
        `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS total_bytes,
                pg_indexes_size(c.oid) AS index_bytes, GREATEST(c.reltuples, 0)::bigint AS rows_estimate
         FROM pg_class c
         WHERE c.oid = ANY (ARRAY['ess_events', 'ess_streams', 'ess_tenants', 'ess_users']::regclass[])
         ORDER BY c.relname`,
      );
      const t = totals.rows[0];
      return {
        engine: "postgres",
        events_total: t?.events ?? 0,
        streams_total: t?.streams ?? 0,
        bytes_total: t?.bytes ?? 0,
        last_position: t?.last_position ?? 0,
        last_scavenge: t?.last_scavenge ?? null,
        tables: tables.rows,
        pool: { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount },
      };
    });
  }

  // ---------------------------------------------------------------- scavenge

  scavenge(options: { dry_run: boolean }): Promise<ScavengeResult> {
    return this.run(async () => {
      if (options.dry_run) return this.scavengeRun(true);
      // One real run at a time across every node: a session advisory lock on a held connection.
      const client = await this.pool.connect();
      let broken = false;
      try {
        const got = await client.query<{ ok: boolean }>(
          `SELECT pg_try_advisory_lock(${scavengeLockArgs}) AS ok`,
        );
        if (!got.rows[0]?.ok) {
          throw new EssError("SCAVENGE_IN_PROGRESS", "a scavenge is already running");
        }
        try {
          const result = await this.scavengeRun(false);
          const last: LastScavenge = { ...result, finished_at: new Date(this.now()).toISOString() };
          await this.pool.query(
            `INSERT INTO ess_meta (key, value) VALUES ('last_scavenge', $1::jsonb)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
            [JSON.stringify(last)],
          );
          return result;
        } finally {
          await client.query(`SELECT pg_advisory_unlock(${scavengeLockArgs})`).catch(() => {
            broken = true;
          });
        }
      } catch (error) {
        if (isConnectionFailure(error)) broken = true;
        throw error;
      } finally {
        client.release(broken);
      }
    });
  }

  private async scavengeRun(dryRun: boolean): Promise<ScavengeResult> {
    const started = Date.now();
    let removed = 0;
    let reclaimed = 0;
    let affected = 0;
    // Walk the streams that hold something unreadable, a page at a time.
    let after: [string, string] | null = null;
    for (;;) {
      const now = new Date(this.now()).toISOString();
      const page: pg.QueryResult<{ tenant_id: string; stream_id: string }> = await this.pool.query(
        `SELECT s.tenant_id, s.stream_id FROM ess_streams s
         WHERE s.stored_events > 0 AND ($1::text IS NULL OR (s.tenant_id, s.stream_id) > ($1::text, $2::text))
           AND ${firstVisibleSql("s", "$4")} > s.first_stored_revision
         ORDER BY s.tenant_id, s.stream_id LIMIT $3`,
        [after?.[0] ?? null, after?.[1] ?? null, scavengeBatchRows, now],
      );
      for (const { tenant_id, stream_id } of page.rows) {
        const [n, b] = dryRun
          ? await this.measureHidden(tenant_id, stream_id)
          : await this.deleteHidden(tenant_id, stream_id);
        if (n > 0) affected += 1;
        removed += n;
        reclaimed += b;
      }
      const last = page.rows[page.rows.length - 1];
      if (!last || page.rows.length < scavengeBatchRows) break;
      after = [last.tenant_id, last.stream_id];
    }
    return {
      dry_run: dryRun,
      events_removed: removed,
      bytes_reclaimed: reclaimed,
      segments_rewritten: 0,
      streams_affected: affected,
      duration_ms: Date.now() - started,
    };
  }

  private async measureHidden(tenantId: string, streamId: string): Promise<[number, number]> {
    const now = new Date(this.now()).toISOString();
    const result = await this.pool.query<{ n: number; b: number }>(
      `SELECT count(*)::bigint AS n, COALESCE(sum(e.bytes), 0)::bigint AS b
       FROM ess_streams s JOIN ess_events e ON e.tenant_id = s.tenant_id AND e.stream_id = s.stream_id
       WHERE s.tenant_id = $1 AND s.stream_id = $2 AND e.revision < ${firstVisibleSql("s", "$3")}`,
      [tenantId, streamId, now],
    );
    return [result.rows[0]?.n ?? 0, result.rows[0]?.b ?? 0];
  }

  /** Deletes a stream's unreadable prefix, scavengeBatchRows events per short transaction. */
  private async deleteHidden(tenantId: string, streamId: string): Promise<[number, number]> {
    let removed = 0;
    let reclaimed = 0;
    for (;;) {
      const now = new Date(this.now()).toISOString();
      const batch = await this.transaction(async (client) => {
        // The stream row lock (taken first, as appends do) keeps retention from changing under us.
        const locked = await client.query<{ first_visible: number }>(
          `SELECT ${firstVisibleSql("s", "$3")} AS first_visible FROM ess_streams s
           WHERE s.tenant_id = $1 AND s.stream_id = $2 FOR UPDATE`,
          [tenantId, streamId, now],
        );
        const firstVisible = locked.rows[0]?.first_visible;
        if (firstVisible === undefined) return { n: 0, b: 0 };
        const deleted = await client.query<{ n: number; b: number; top: number | null }>(
          `WITH d AS (
             DELETE FROM ess_events WHERE position IN (
               SELECT position FROM ess_events WHERE tenant_id = $1 AND stream_id = $2 AND revision < $3
               ORDER BY revision LIMIT $4)
             RETURNING revision, bytes
           )
           SELECT count(*)::bigint AS n, COALESCE(sum(bytes), 0)::bigint AS b, max(revision) AS top FROM d`,
          [tenantId, streamId, firstVisible, scavengeBatchRows],
        );
        const n = deleted.rows[0]?.n ?? 0;
        const b = deleted.rows[0]?.b ?? 0;
        const top = deleted.rows[0]?.top ?? null;
        if (n === 0 || top === null) return { n: 0, b: 0 };
        await client.query(
          `WITH s AS (
             UPDATE ess_streams SET stored_events = stored_events - $3, bytes = bytes - $4,
               first_stored_revision = GREATEST(first_stored_revision, $5::bigint + 1)
             WHERE tenant_id = $1 AND stream_id = $2 RETURNING 1
           )
           UPDATE ess_tenants SET events = events - $3, bytes = bytes - $4 WHERE tenant_id = $1`,
          [tenantId, streamId, n, b, top],
        );
        return { n, b };
      });
      removed += batch.n;
      reclaimed += batch.b;
      if (batch.n < scavengeBatchRows) break;
    }
    return [removed, reclaimed];
  }

  // ---------------------------------------------------------------- notices

  /**
   * false once closed, and while the database cannot be reached (from the last failed operation
   * until one succeeds), so health reports "degraded". Appends are still tried: the database
   * decides, and a node recovers by itself when it comes back.
   */
  isWritable(): boolean {
    return !this.closed && this.reachable;
  }

  isDamaged(): boolean {
    return this.damaged;
  }

  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private tell(notice: AppendNotice): void {
    if (notice.last_position <= this.lastNoticedPosition) return;
    this.lastNoticedPosition = notice.last_position;
    for (const listener of this.listeners) {
      try {
        listener(notice);
      } catch (error) {
        this.log.error("append listener failed", { error: (error as Error).message });
      }
    }
  }

  /**
   * Runs on the listening connection right after LISTEN (at start and after every reconnect):
   * tells listeners about every append since the last notice, read from the events table, so a
   * dropped connection loses no wake-up. At start there is nothing to catch up on.
   */
  private async catchUpNotices(client: pg.Client): Promise<void> {
    const head = await client.query<{ last_position: number }>(
      "SELECT last_position FROM ess_global WHERE id = 1",
    );
    const upTo = head.rows[0]?.last_position ?? 0;
    if (this.appendListener.connections === 0) {
      this.lastNoticedPosition = upTo;
      return;
    }
    let from = this.lastNoticedPosition;
    while (from < upTo) {
      const to = Math.min(upTo, from + catchUpWindowPositions);
      const groups = await client.query<{
        tenant_id: string;
        stream_id: string;
        first_revision: number;
        last_revision: number;
        first_position: number;
        last_position: number;
      }>(
        `SELECT tenant_id, stream_id, min(revision) AS first_revision, max(revision) AS last_revision,
                min(position) AS first_position, max(position) AS last_position
         FROM ess_events WHERE position > $1 AND position <= $2
         GROUP BY tenant_id, stream_id ORDER BY max(position)`,
        [from, to],
      );
      // Ordered by last position, so each group passes tell()'s "newer than the last" check.
      for (const notice of groups.rows) this.tell(notice);
      from = to;
      this.lastNoticedPosition = Math.max(this.lastNoticedPosition, to);
    }
  }

  // ---------------------------------------------------------------- close

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.readsTimer) clearInterval(this.readsTimer);
    this.readsTimer = null;
    await Promise.allSettled([...this.inFlight]);
    await this.flushReads().catch(() => undefined);
    await this.appendListener.stop();
    this.listeners.clear();
    await this.pool.end();
  }
}

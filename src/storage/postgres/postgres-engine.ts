/**
 * The postgres storage engine: the StorageEngine contract on a PostgreSQL database that several
 * service processes ("nodes") share. Nothing here relies on in-process locks; every rule is held
 * by transactions, row locks and constraints, so two nodes behave like two callers of one node.
 * This class holds the pool, the append queue and the live notices, and hands the bigger parts
 * to their modules: append-batch.ts (one batch's transaction), postgres-reader.ts (event
 * reads), read-counters.ts (reads_total), verify.ts, scavenge.ts.
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
import pg from "pg";
import { EssError, unavailable } from "../../errors.js";
import { limits } from "../../limits.js";
import { logger as rootLogger, type Logger } from "../../logger.js";
import type {
  AppendResult,
  LastScavenge,
  ReadStreamResult,
  Retention,
  ScavengeResult,
  StorageStatus,
  StreamInfo,
  StreamList,
  StreamMetadata,
  StreamSummary,
  TenantList,
  TenantUsage,
  VerifyResult,
} from "../../contract/bodies.js";
import type {
  AppendInput,
  AppendListener,
  AppendNotice,
  CommitObserver,
  AuthStore,
  DeleteStreamOptions,
  EngineOptions,
  ListStreamsInput,
  ListTenantsInput,
  ReadAllInput,
  ReadAllPage,
  ReadStreamInput,
  StorageEngine,
  ScavengeOptions,
  SetMetadataInput,
  VerifyProgress,
} from "../engine.js";
import { PostgresAppendListener, appendChannelFor } from "./append-listener.js";
import { PostgresAuthStore, decodeCursor, encodeCursor } from "./auth-store.js";
import { appendBatch, type BatchItem } from "./append-batch.js";
import { migrate } from "./migrate.js";
import { streamColumnsSql } from "./sql.js";
import { checkId } from "../validate-input.js";
import { PostgresStreamMeta } from "./stream-meta.js";
import { checkAppend } from "./validate.js";
import { isConnectionFailure, prepared, typeParsers } from "./connection.js";
import { PostgresReader } from "./postgres-reader.js";
import { ReadCounters } from "./read-counters.js";
import { toInfo, toSummary, toUsage, type StreamRow, type TenantRow } from "./rows.js";
import { scavengeDatabase, scavengeStreams } from "./scavenge.js";
import { verifyDatabase } from "./verify.js";

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

/** Streams one catch-up after a reconnect reads per query. */
const catchUpWindowPositions = 10_000;

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
    engine = new PostgresEngine(
      pool,
      connection,
      channel,
      options.now ?? Date.now,
      log,
      options.commitObserver,
    );
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
  private readonly reads: ReadCounters;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private readonly appendQueue: QueuedAppend[] = [];
  private appendBatchesInFlight = 0;
  private reachable = true;
  private readonly reader: PostgresReader;
  private readonly streamMeta: PostgresStreamMeta;

  constructor(
    private readonly pool: pg.Pool,
    connection: pg.ClientConfig,
    private readonly channel: string,
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly observer: CommitObserver | null = null,
  ) {
    this.auth = new PostgresAuthStore(pool);
    this.reads = new ReadCounters(pool, log);
    this.reader = new PostgresReader(pool, now, log, this.reads);
    this.streamMeta = new PostgresStreamMeta(pool, now);
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
    this.reads.start();
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
      const started = this.observer === null ? 0 : performance.now();
      await appendBatch(client, items, this.channel, this.now(), prepared);
      this.observer?.committed("postgres", batch.length, (performance.now() - started) / 1000);
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
    return this.run(() => this.reader.readStream(input));
  }

  readAll(input: ReadAllInput): Promise<ReadAllPage> {
    return this.run(() => this.reader.readAll(input));
  }

  // ---------------------------------------------------------------- streams

  private async streamRow(tenantId: string, streamId: string): Promise<StreamRow | null> {
    const now = new Date(this.now()).toISOString();
    const result = await this.pool.query<StreamRow>(
      prepared(
        `SELECT ${streamColumnsSql("s", "$3")} FROM ess_streams s
       WHERE s.tenant_id = $1 AND s.stream_id = $2 AND (s.last_revision >= 0 OR s.tombstoned)`,
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
    return this.run(() => this.streamMeta.setRetention(tenantId, streamId, retention));
  }

  deleteStream(tenantId: string, streamId: string, options?: DeleteStreamOptions): Promise<StreamInfo> {
    return this.run(() => this.streamMeta.deleteStream(tenantId, streamId, options));
  }

  getStreamMetadata(tenantId: string, streamId: string): Promise<StreamMetadata> {
    return this.run(() => this.streamMeta.getMetadata(tenantId, streamId));
  }

  setStreamMetadata(input: SetMetadataInput): Promise<StreamMetadata> {
    return this.run(() => this.streamMeta.setMetadata(input));
  }

  // ---------------------------------------------------------------- tenants

  getTenantUsage(tenantId: string): Promise<TenantUsage | null> {
    return this.run(async () => {
      return this.reads.gated(async () => {
        const result = await this.pool.query<TenantRow>("SELECT * FROM ess_tenants WHERE tenant_id = $1", [
          tenantId,
        ]);
        const row = result.rows[0];
        return row ? toUsage(row, this.reads.pendingFor(tenantId)) : null;
      });
    });
  }

  listTenants(input: ListTenantsInput): Promise<TenantList> {
    return this.run(async () => {
      const after = input.cursor === null ? null : (decodeCursor(input.cursor, 1)[0] ?? null);
      const [result, tenants] = await this.reads.gated(async () => {
        const found = await this.pool.query<TenantRow>(
          `SELECT * FROM ess_tenants WHERE ($1::text IS NULL OR tenant_id > $1) ORDER BY tenant_id LIMIT $2`,
          [after, input.limit + 1],
        );
        const usage = found.rows
          .slice(0, input.limit)
          .map((r) => toUsage(r, this.reads.pendingFor(r.tenant_id)));
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
    return this.run(() => verifyDatabase(this.pool, onProgress));
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

  scavenge(options: ScavengeOptions): Promise<ScavengeResult> {
    return this.run(() => {
      if (!options.dry_run) return scavengeDatabase(this.pool, this.now, options);
      options.onAdmitted?.();
      return scavengeStreams(this.pool, this.now, true, options.onProgress);
    });
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
    return this.reader.damaged;
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
    this.reads.stop();
    await Promise.allSettled([...this.inFlight]);
    await this.reads.flush().catch(() => undefined);
    await this.appendListener.stop();
    this.listeners.clear();
    await this.pool.end();
  }
}

/**
 * The postgres engine's stream-metadata operations: retention, soft delete, tombstone and the
 * metadata document. Each is one transaction that locks the stream row first (the append's lock
 * order: stream row, then tenant row), checks it, and writes it, so two nodes changing one
 * stream serialize on the row as two appends do.
 *
 * A row may exist with no event (last_revision -1): a stream whose metadata was set, or whose
 * unused name was tombstoned. Such a row is not a stream to info or listings until it has events
 * (a tombstoned one answers info), and an append that fails leaves it in place (append-batch.ts).
 */
import type pg from "pg";
import { streamNotFound, streamTombstoned } from "../../errors.js";
import type { MetadataDocument, Retention, StreamInfo, StreamMetadata } from "../../contract/bodies.js";
import {
  checkExpectedMetadataRevision,
  checkExpectedRevision,
  requireExpectedMetadataRevision,
  requireMetadataDocument,
  retentionOf,
  withRetention,
} from "../../contract/stream-metadata.js";
import { requireExpectedRevision } from "../../contract/rules.js";
import type { DeleteStreamOptions, SetMetadataInput } from "../engine.js";
import { checkId, checkRetention } from "../validate-input.js";
import { inTransaction } from "./connection.js";
import { toInfo, type StreamRow } from "./rows.js";
import { streamColumnsSql } from "./sql.js";

interface LockedRow {
  last_revision: number;
  deleted: boolean;
  tombstoned: boolean;
  metadata: string | null;
  metadata_revision: number | null;
}

/** Locks the stream row, or returns null when there is none (create: makes it first). */
async function lockRow(
  client: pg.PoolClient,
  tenantId: string,
  streamId: string,
  nowIso: string,
  create: boolean,
): Promise<LockedRow | null> {
  const columns = "last_revision, deleted, tombstoned, metadata, metadata_revision";
  const result = create
    ? await client.query<LockedRow>(
        `INSERT INTO ess_streams AS s (tenant_id, stream_id, created_at, updated_at) VALUES ($1, $2, $3, $3)
         ON CONFLICT (tenant_id, stream_id) DO UPDATE SET last_revision = s.last_revision
         RETURNING ${columns}`,
        [tenantId, streamId, nowIso],
      )
    : await client.query<LockedRow>(
        `SELECT ${columns} FROM ess_streams WHERE tenant_id = $1 AND stream_id = $2 FOR UPDATE`,
        [tenantId, streamId],
      );
  return result.rows[0] ?? null;
}

function documentOf(row: LockedRow): MetadataDocument {
  return row.metadata === null ? {} : (JSON.parse(row.metadata) as MetadataDocument);
}

async function infoOf(
  client: pg.PoolClient,
  tenantId: string,
  streamId: string,
  nowIso: string,
): Promise<StreamInfo> {
  const result = await client.query<StreamRow>(
    `SELECT ${streamColumnsSql("s", "$3")} FROM ess_streams s WHERE s.tenant_id = $1 AND s.stream_id = $2`,
    [tenantId, streamId, nowIso],
  );
  const row = result.rows[0];
  if (!row) throw streamNotFound(streamId);
  return toInfo(row);
}

/** Writes the document and the retention it sets, a new metadata_revision. */
async function writeDocument(
  client: pg.PoolClient,
  tenantId: string,
  streamId: string,
  row: LockedRow,
  document: MetadataDocument,
  nowIso: string,
): Promise<StreamMetadata> {
  const revision = (row.metadata_revision ?? -1) + 1;
  const retention = retentionOf(document);
  await client.query(
    `UPDATE ess_streams SET metadata = $3, metadata_revision = $4, max_age_seconds = $5, max_count = $6,
       truncate_before = $7, updated_at = GREATEST(updated_at, $8::timestamptz)
     WHERE tenant_id = $1 AND stream_id = $2`,
    [
      tenantId,
      streamId,
      JSON.stringify(document),
      revision,
      retention.max_age_seconds,
      retention.max_count,
      retention.truncate_before,
      nowIso,
    ],
  );
  return { stream_id: streamId, metadata_revision: revision, metadata: document };
}

export class PostgresStreamMeta {
  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number,
  ) {}

  private nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  async setRetention(tenantId: string, streamId: string, retention: Retention): Promise<StreamInfo> {
    checkRetention(retention);
    checkId("tenant_id", tenantId);
    checkId("stream_id", streamId);
    const now = this.nowIso();
    return inTransaction(this.pool, async (client) => {
      const row = await lockRow(client, tenantId, streamId, now, false);
      if (row?.tombstoned) throw streamTombstoned(streamId);
      if (!row || row.last_revision < 0 || row.deleted) throw streamNotFound(streamId);
      await writeDocument(client, tenantId, streamId, row, withRetention(documentOf(row), retention), now);
      return infoOf(client, tenantId, streamId, now);
    });
  }

  async deleteStream(tenantId: string, streamId: string, options?: DeleteStreamOptions): Promise<StreamInfo> {
    checkId("tenant_id", tenantId);
    checkId("stream_id", streamId);
    const expected = requireExpectedRevision(options?.expected_revision ?? "any");
    const tombstone = options?.tombstone === true;
    const now = this.nowIso();
    return inTransaction(this.pool, async (client) => {
      const row = await lockRow(client, tenantId, streamId, now, tombstone);
      if (row?.tombstoned) throw streamTombstoned(streamId);
      const last = row?.last_revision ?? -1;
      const live = last >= 0 && row?.deleted === false;
      checkExpectedRevision(streamId, expected, last, live);
      if (!tombstone && last < 0) throw streamNotFound(streamId);
      if (tombstone || live) {
        // The mark hides every revision appended so far; a soft-deleted stream's later appends
        // continue it, a tombstoned one has none. Then the tenant's stream count (lock order).
        await client.query(
          `UPDATE ess_streams SET deleted = true, tombstoned = $3,
             hidden_before = GREATEST(hidden_before, last_revision + 1), updated_at = GREATEST(updated_at, $4::timestamptz)
           WHERE tenant_id = $1 AND stream_id = $2`,
          [tenantId, streamId, tombstone, now],
        );
        if (live) {
          await client.query("UPDATE ess_tenants SET streams = streams - 1 WHERE tenant_id = $1", [tenantId]);
        }
      }
      return infoOf(client, tenantId, streamId, now);
    });
  }

  async getMetadata(tenantId: string, streamId: string): Promise<StreamMetadata> {
    checkId("tenant_id", tenantId);
    checkId("stream_id", streamId);
    const result = await this.pool.query<LockedRow>(
      `SELECT last_revision, deleted, tombstoned, metadata, metadata_revision FROM ess_streams
       WHERE tenant_id = $1 AND stream_id = $2`,
      [tenantId, streamId],
    );
    const row = result.rows[0];
    if (row?.tombstoned) throw streamTombstoned(streamId);
    if (!row) return { stream_id: streamId, metadata_revision: null, metadata: {} };
    return { stream_id: streamId, metadata_revision: row.metadata_revision, metadata: documentOf(row) };
  }

  async setMetadata(input: SetMetadataInput): Promise<StreamMetadata> {
    const { tenant_id: tenantId, stream_id: streamId } = input;
    checkId("tenant_id", tenantId);
    checkId("stream_id", streamId);
    const document = requireMetadataDocument(input.metadata);
    const expected = requireExpectedMetadataRevision(input.expected_metadata_revision);
    const now = this.nowIso();
    return inTransaction(this.pool, async (client) => {
      const row = (await lockRow(client, tenantId, streamId, now, true))!;
      if (row.tombstoned) throw streamTombstoned(streamId);
      checkExpectedMetadataRevision(streamId, expected, row.metadata_revision);
      return writeDocument(client, tenantId, streamId, row, document, now);
    });
  }
}

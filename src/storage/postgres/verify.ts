/**
 * Verify for the postgres engine: every event row against the checksum written with it, every
 * stream row against its events, every tenant's usage against its streams. Read-only; each step
 * is its own statement (the event rows in pages by position), so it runs beside appends, and a
 * row appended meanwhile may be counted by one step and not by another.
 */
import type pg from "pg";
import type { VerifyError, VerifyResult } from "../../contract/bodies.js";
import type { VerifyProgress } from "../engine.js";
import { eventChecksum } from "./checksum.js";

/** Rows verify reads per query. */
const verifyPageRows = 1000;
/** Errors kept in the result; more are counted in one last error. */
const errorsMax = 100;

/** The errors one run found: the first errorsMax, and how many more. */
class Findings {
  readonly errors: VerifyError[] = [];
  dropped = 0;

  report(error: VerifyError): void {
    if (this.errors.length < errorsMax) this.errors.push(error);
    else this.dropped += 1;
  }
}

export async function verifyDatabase(
  pool: pg.Pool,
  onProgress?: (progress: VerifyProgress) => void,
): Promise<VerifyResult> {
  const started = Date.now();
  const found = new Findings();
  const checked = await checkEventRows(pool, found, onProgress);
  await checkStreamRows(pool, found);
  await checkTenantRows(pool, found);
  const errors = found.errors;
  if (found.dropped > 0) {
    errors.push({
      segment: "",
      offset: 0,
      kind: "more_errors",
      message: `${found.dropped} more errors were found and not listed`,
    });
  }
  return {
    ok: errors.length === 0,
    segments_checked: 3,
    records_checked: checked.records,
    bytes_checked: checked.bytes,
    errors,
    duration_ms: Date.now() - started,
  };
}

/** 1. Every event row against its stored checksum, its recorded size and the counter, in pages. */
async function checkEventRows(
  pool: pg.Pool,
  found: Findings,
  onProgress?: (progress: VerifyProgress) => void,
): Promise<{ records: number; bytes: number }> {
  const totals = await pool.query<{ bytes: number; last_position: number }>(
    `SELECT COALESCE((SELECT sum(bytes) FROM ess_tenants), 0)::bigint AS bytes,
              (SELECT last_position FROM ess_global WHERE id = 1) AS last_position`,
  );
  const bytesTotal = totals.rows[0]?.bytes ?? 0;
  const lastPosition = totals.rows[0]?.last_position ?? 0;
  onProgress?.({ bytes_checked: 0, bytes_total: bytesTotal });
  let records = 0;
  let bytes = 0;
  let after = 0;
  for (;;) {
    const page = await pool.query<{
      position: number;
      tenant_id: string;
      stream_id: string;
      revision: number;
      event_id: string;
      event_type: string;
      data: string;
      metadata: string;
      data_bytes: Buffer | null;
      metadata_bytes: Buffer | null;
      created_at: Date;
      bytes: number;
      checksum: number;
    }>(
      `SELECT position, tenant_id, stream_id, revision, event_id, event_type, data, metadata, data_bytes,
         metadata_bytes, created_at, bytes, checksum
         FROM ess_events WHERE position > $1 ORDER BY position LIMIT $2`,
      [after, verifyPageRows],
    );
    for (const row of page.rows) {
      records += 1;
      bytes += row.bytes;
      const sum = eventChecksum({
        ...row,
        data: row.data_bytes ?? row.data,
        metadata: row.metadata_bytes ?? row.metadata,
        created_at_ms: row.created_at.getTime(),
      });
      if (sum !== row.checksum) {
        found.report({
          segment: "ess_events",
          offset: row.position,
          kind: "checksum_mismatch",
          message: `event at position ${row.position} (stream '${row.stream_id}' revision ${row.revision}) does not match its checksum`,
        });
      }
      // A part kept as bytes has '' as its text (migration 2).
      const size =
        Buffer.byteLength(row.event_type) +
        (row.data_bytes?.length ?? Buffer.byteLength(row.data)) +
        (row.metadata_bytes?.length ?? Buffer.byteLength(row.metadata));
      if (size !== row.bytes) {
        found.report({
          segment: "ess_events",
          offset: row.position,
          kind: "size_mismatch",
          message: `event at position ${row.position} holds ${size} bytes, recorded ${row.bytes}`,
        });
      }
      if (row.position > lastPosition) {
        found.report({
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
  return { records, bytes };
}

/**
 * 2. Every stream row against its events: revisions without holes, positions growing with
 *    revisions, and the counters the stream row keeps.
 */
async function checkStreamRows(pool: pg.Pool, found: Findings): Promise<void> {
  const streams = await pool.query<{
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
    found.report({
      segment: "ess_streams",
      offset: 0,
      kind: "stream_mismatch",
      message:
        `stream '${row.stream_id}' of tenant '${row.tenant_id}': ${row.n} events stored ` +
        `(revisions ${row.min_rev ?? "-"}..${row.max_rev ?? "-"}, ${row.sum_bytes} bytes, ${row.disorder} out of order), ` +
        `stream row says ${row.stored_events} events (revisions ${row.first_stored_revision}..${row.last_revision}, ${row.bytes} bytes)`,
    });
  }
}

/** 3. Every tenant's usage against its streams. */
async function checkTenantRows(pool: pg.Pool, found: Findings): Promise<void> {
  const tenants = await pool.query<{ tenant_id: string; message: string }>(
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
    found.report({
      segment: "ess_tenants",
      offset: 0,
      kind: "usage_mismatch",
      message: `tenant '${row.tenant_id}': ${row.message}`,
    });
  }
}

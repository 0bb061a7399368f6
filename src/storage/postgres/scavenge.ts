/**
 * Scavenge for the postgres engine: deletes the events retention and soft delete hide (a prefix
 * of each stream, ./sql.ts), stream by stream, in short transactions of scavengeBatchRows events,
 * each taking the stream row lock first as appends do, and updating the stream's and tenant's
 * counters in the same transaction. One real run at a time across every node (a session advisory
 * lock); a dry run only measures, and may run beside one.
 */
import type pg from "pg";
import { EssError } from "../../errors.js";
import type { LastScavenge, ScavengeResult } from "../../contract/bodies.js";
import type { ScavengeOptions } from "../engine.js";
import { LargestScavengeStreams } from "../scavenge-streams.js";
import { inTransaction, isConnectionFailure } from "./connection.js";
import { firstVisibleSql } from "./sql.js";

/** Events deleted per scavenge statement: keeps each transaction and its locks short. */
export const scavengeBatchRows = 1000;
/** Arguments of the advisory lock a real scavenge run holds, on any node, per schema. */
export const scavengeLockArgs = "hashtext('ess-scavenge'), hashtext(current_schema())";

/**
 * A real run: under the advisory lock (SCAVENGE_IN_PROGRESS when another node holds it), then
 * its result saved as `last_scavenge`.
 */
export async function scavengeDatabase(
  pool: pg.Pool,
  now: () => number,
  options: Pick<ScavengeOptions, "onAdmitted" | "onProgress"> = {},
): Promise<ScavengeResult> {
  // One real run at a time across every node: a session advisory lock on a held connection.
  const client = await pool.connect();
  let broken = false;
  try {
    const got = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${scavengeLockArgs}) AS ok`);
    if (!got.rows[0]?.ok) {
      throw new EssError("SCAVENGE_IN_PROGRESS", "a scavenge is already running");
    }
    options.onAdmitted?.();
    try {
      const result = await scavengeStreams(pool, now, false, options.onProgress);
      const last: LastScavenge = { ...result, finished_at: new Date(now()).toISOString() };
      await pool.query(
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
}

/**
 * Walks the streams that hold something unreadable, a page at a time: measures or deletes it. A
 * dry run lists them (largest first, bounded). Progress counts those streams, counted first;
 * streams that max_age hides more of while the run goes can add to the total.
 */
export async function scavengeStreams(
  pool: pg.Pool,
  now: () => number,
  dryRun: boolean,
  onProgress?: ScavengeOptions["onProgress"],
): Promise<ScavengeResult> {
  const started = Date.now();
  let removed = 0;
  let reclaimed = 0;
  let affected = 0;
  const listed = new LargestScavengeStreams();
  const counted = await pool.query<{ n: number }>(
    `SELECT count(*)::bigint AS n FROM ess_streams s
       WHERE s.stored_events > 0 AND ${firstVisibleSql("s", "$1")} > s.first_stored_revision`,
    [new Date(now()).toISOString()],
  );
  let total = counted.rows[0]?.n ?? 0;
  let done = 0;
  onProgress?.({ done, total, unit: "streams" });
  let after: [string, string] | null = null;
  for (;;) {
    const nowText = new Date(now()).toISOString();
    const page: pg.QueryResult<{ tenant_id: string; stream_id: string }> = await pool.query(
      `SELECT s.tenant_id, s.stream_id FROM ess_streams s
         WHERE s.stored_events > 0 AND ($1::text IS NULL OR (s.tenant_id, s.stream_id) > ($1::text, $2::text))
           AND ${firstVisibleSql("s", "$4")} > s.first_stored_revision
         ORDER BY s.tenant_id, s.stream_id LIMIT $3`,
      [after?.[0] ?? null, after?.[1] ?? null, scavengeBatchRows, nowText],
    );
    for (const { tenant_id, stream_id } of page.rows) {
      const [n, b] = dryRun
        ? await measureHidden(pool, now, tenant_id, stream_id)
        : await deleteHidden(pool, now, tenant_id, stream_id);
      if (n > 0) affected += 1;
      removed += n;
      reclaimed += b;
      if (dryRun) listed.add({ stream_id, tenant_id, events_removed: n, bytes_reclaimed: b });
      done += 1;
      total = Math.max(total, done);
      onProgress?.({ done, total, unit: "streams" });
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
    ...(dryRun ? { streams: listed.list() } : {}),
  };
}

/** A stream's unreadable prefix: [events, bytes]. */
async function measureHidden(
  pool: pg.Pool,
  now: () => number,
  tenantId: string,
  streamId: string,
): Promise<[number, number]> {
  const nowText = new Date(now()).toISOString();
  const result = await pool.query<{ n: number; b: number }>(
    `SELECT count(*)::bigint AS n, COALESCE(sum(e.bytes), 0)::bigint AS b
       FROM ess_streams s JOIN ess_events e ON e.tenant_id = s.tenant_id AND e.stream_id = s.stream_id
       WHERE s.tenant_id = $1 AND s.stream_id = $2 AND e.revision < ${firstVisibleSql("s", "$3")}`,
    [tenantId, streamId, nowText],
  );
  return [result.rows[0]?.n ?? 0, result.rows[0]?.b ?? 0];
}

/** Deletes a stream's unreadable prefix, scavengeBatchRows events per short transaction. */
async function deleteHidden(
  pool: pg.Pool,
  now: () => number,
  tenantId: string,
  streamId: string,
): Promise<[number, number]> {
  let removed = 0;
  let reclaimed = 0;
  for (;;) {
    const nowText = new Date(now()).toISOString();
    const batch = await inTransaction(pool, async (client) => {
      // The stream row lock (taken first, as appends do) keeps retention from changing under us.
      const locked = await client.query<{ first_visible: number }>(
        `SELECT ${firstVisibleSql("s", "$3")} AS first_visible FROM ess_streams s
           WHERE s.tenant_id = $1 AND s.stream_id = $2 FOR UPDATE`,
        [tenantId, streamId, nowText],
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

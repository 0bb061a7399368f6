/**
 * The postgres engine's filtered or backward `$all` page, by the same rule as the log engine's:
 * the page looks at the tenant's events one by one in the read's direction and ends when it
 * holds `limit` events, when its byte budget is full, or at the event that would be the
 * (`skip_max` + 1)-th it passes over (no match, or hidden by retention or soft delete);
 * next_position is then that event's position.
 *
 * How: one statement takes the span of the tenant's next limit + skip_max + 1 positions (the
 * most a page can look at, and one) from the (tenant_id, position) index, numbers them, and
 * returns the candidates among them: the visible events whose stream id and type pass the
 * prefixes (LIKE on the "C" collation, in SQL), with their size. The regular expressions run here
 * on those rows (re2js: PostgreSQL's own regular expressions backtrack, and are not RE2). The
 * walk over the numbered span (PageWalk) then decides which events the page holds and where it
 * stops, and a second statement fetches those events' rows in full (by position: an event a
 * scavenge removed between the two statements is left out, as a read a moment later would).
 */
import type pg from "pg";
import type { EventRecord } from "../../contract/bodies.js";
import type { EventMatcher } from "../../contract/event-filter.js";
import type { ReadAllPage } from "../engine.js";
import type { ReadAllPlan } from "../read-page.js";
import { prepared } from "./connection.js";
import type { EventRow } from "./rows.js";
import { eventBytesSql, eventColumnsSql, eventVisibleSql } from "./sql.js";

interface CandidateRow {
  rank: number;
  position: number;
  stream_id: string;
  event_type: string;
  event_bytes: number;
}

export interface ReadAllPageInput {
  tenantId: string;
  limit: number;
  bytesMax: number;
  plan: ReadAllPlan;
  /** The read's clock, RFC 3339. */
  now: string;
}

/** Turns checked rows into events (the reader's checksum check). */
export type CheckRow = (row: EventRow) => EventRecord;

export async function readAllPage(
  pool: pg.Pool,
  input: ReadAllPageInput,
  checkRow: CheckRow,
): Promise<ReadAllPage> {
  const { plan } = input;
  const from = plan.from ?? (plan.backward ? Number.MAX_SAFE_INTEGER : 0);
  const spanSize = input.limit + plan.skipMax + 1;
  const cmp = plan.backward ? "<=" : ">=";
  const dir = plan.backward ? "DESC" : "ASC";
  const matcher = plan.matcher;
  // Without a regular expression, SQL has decided every candidate: limit + 1 of them suffice.
  const needsJs =
    matcher !== null && (matcher.filter.stream_regex !== null || matcher.filter.event_type_regex !== null);
  const candidates = await pool.query<CandidateRow & { span: number; span_last: number | null }>(
    prepared(
      `WITH span AS (
         SELECT x.position, row_number() OVER (ORDER BY x.position ${dir}) AS rank FROM (
           SELECT position FROM ess_events WHERE tenant_id = $1 AND position ${cmp} $2
           ORDER BY position ${dir} LIMIT $3) x
       ), c AS (
         SELECT sp.rank, e.position, e.stream_id, e.event_type, ${eventBytesSql("e")}
         FROM span sp
         JOIN ess_events e ON e.tenant_id = $1 AND e.position = sp.position
         JOIN ess_streams s ON s.tenant_id = e.tenant_id AND s.stream_id = e.stream_id
         WHERE ${eventVisibleSql("e", "s", "$4")}
           AND (cardinality($5::text[]) = 0 OR e.stream_id LIKE ANY ($5::text[]))
           AND (cardinality($6::text[]) = 0 OR e.event_type LIKE ANY ($6::text[]))
         ORDER BY sp.rank LIMIT $7
       )
       SELECT c.*, 0::float8 AS span, 0::float8 AS span_last FROM c
       UNION ALL SELECT 0, 0, '', '', 0, (SELECT count(*) FROM span)::float8,
         (SELECT position FROM span ORDER BY rank DESC LIMIT 1)::float8
       ORDER BY rank`,
      [
        input.tenantId,
        from,
        spanSize,
        input.now,
        likePrefixes(matcher?.filter.stream_prefix ?? []),
        likePrefixes(matcher?.filter.event_type_prefix ?? []),
        needsJs ? spanSize : input.limit + 1,
      ],
    ),
  );
  // The first row (rank 0) only carries the span's size and its last position.
  const spanRows = Number(candidates.rows[0]!.span);
  const spanLast = candidates.rows[0]!.span_last;
  const walk = new PageWalk(input.limit, plan.skipMax, input.bytesMax);
  let stop: number | null = null;
  let stopPosition: number | null = null;
  for (const c of candidates.rows.slice(1)) {
    const rank = Number(c.rank);
    stop = walk.passTo(rank - 1);
    if (stop !== null) break;
    if (walk.stopsAt()) {
      stop = rank;
      stopPosition = Number(c.position);
      break;
    }
    if (!walk.offer(Number(c.position), Number(c.event_bytes), passes(matcher, c))) {
      stop = rank;
      stopPosition = Number(c.position);
      break;
    }
  }
  if (stop === null) stop = walk.passTo(spanRows);
  if (stop !== null && stopPosition === null) {
    stopPosition = await positionAtRank(pool, input.tenantId, from, cmp, dir, stop);
  }
  const events = await fetchEvents(pool, input.tenantId, walk.taken, dir, checkRow);
  // At the end, the page looked at the whole span.
  const resume = stopPosition ?? (plan.backward || spanLast === null ? null : Number(spanLast) + 1);
  const page: ReadAllPage = { events, next_position: stopPosition, is_end: stopPosition === null };
  if (resume !== null) page.resume_position = resume;
  return page;
}

/** The regular expressions (the prefixes were checked in SQL). */
function passes(matcher: EventMatcher | null, c: CandidateRow): boolean {
  return matcher === null || (matcher.stream(c.stream_id) && matcher.type(c.event_type));
}

/**
 * The page's walk over the numbered span: ranks 1, 2, ... are the tenant's events in the read's
 * direction. `passTo` passes over the events up to a rank that are not candidates (each one
 * skipped); `offer` looks at a candidate. Each answers the rank where the page stops, the first
 * event it does not look at, as the log engine's loop would.
 */
class PageWalk {
  readonly taken: number[] = [];
  private examined = 0;
  private skipped = 0;
  private bytes = 0;

  constructor(
    private readonly limit: number,
    private readonly skipMax: number,
    private readonly bytesMax: number,
  ) {}

  /** True when the page is full. */
  stopsAt(): boolean {
    return this.taken.length >= this.limit;
  }

  /** Skips the events after the last one looked at, up to rank `upTo`; the stop rank, or null. */
  passTo(upTo: number): number | null {
    const rows = upTo - this.examined;
    if (rows <= 0) return null;
    if (this.stopsAt()) return this.examined + 1;
    // The page stops at the event that would be skipped past skip_max.
    const room = this.skipMax - this.skipped;
    if (rows <= room) {
      this.skipped += rows;
      this.examined = upTo;
      return null;
    }
    return this.examined + room + 1;
  }

  /**
   * Looks at a candidate (`matches`: its regular expressions pass); false when the page stops at
   * it (it does not fit, or it would be skipped past skip_max).
   */
  offer(position: number, eventBytes: number, matches: boolean): boolean {
    if (!matches) {
      if (this.skipped >= this.skipMax) return false;
      this.examined++;
      this.skipped++;
      return true;
    }
    if (this.taken.length > 0 && this.bytes + eventBytes > this.bytesMax) return false;
    this.examined++;
    this.bytes += eventBytes;
    this.taken.push(position);
    return true;
  }
}

async function positionAtRank(
  pool: pg.Pool,
  tenantId: string,
  from: number,
  cmp: string,
  dir: string,
  rank: number,
): Promise<number | null> {
  const result = await pool.query<{ position: number }>(
    prepared(
      `SELECT position FROM ess_events WHERE tenant_id = $1 AND position ${cmp} $2
       ORDER BY position ${dir} OFFSET $3 LIMIT 1`,
      [tenantId, from, rank - 1],
    ),
  );
  const row = result.rows[0];
  return row === undefined ? null : Number(row.position);
}

async function fetchEvents(
  pool: pg.Pool,
  tenantId: string,
  positions: number[],
  dir: string,
  checkRow: CheckRow,
): Promise<EventRecord[]> {
  if (positions.length === 0) return [];
  const result = await pool.query<EventRow>(
    prepared(
      `SELECT ${eventColumnsSql("e")} FROM ess_events e
       WHERE e.tenant_id = $1 AND e.position = ANY ($2::bigint[]) ORDER BY e.position ${dir}`,
      [tenantId, positions],
    ),
  );
  return result.rows.map(checkRow);
}

/** LIKE patterns matching text that starts with each prefix (`\`, `%`, `_` escaped). */
function likePrefixes(prefixes: readonly string[]): string[] {
  return prefixes.map((p) => `${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
}

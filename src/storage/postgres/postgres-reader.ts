/**
 * The postgres engine's reads of events: a stream page and a page of the whole log, each one
 * statement (one snapshot). Every event served first matches the checksum written with its row
 * at append; a row that does not is never served (DATA_CORRUPTED, health "degraded").
 */
import type pg from "pg";
import { dataCorrupted, streamNotFound, streamTombstoned } from "../../errors.js";
import type { Logger } from "../../logger.js";
import type { EventRecord, ReadStreamResult } from "../../contract/bodies.js";
import type { ReadAllInput, ReadAllPage, ReadStreamInput } from "../engine.js";
import { pageBytesMax, planReadAll } from "../read-page.js";
import { readAllPage } from "./read-all.js";
import { eventChecksum } from "./checksum.js";
import { prepared } from "./connection.js";
import type { ReadCounters } from "./read-counters.js";
import { toEvent, type EventRow } from "./rows.js";
import { eventBytesSql, eventColumnsSql, eventVisibleSql, firstVisibleSql, withPageBytesSql } from "./sql.js";
import { checkId } from "../validate-input.js";
import { checkLimit, checkStart } from "./validate.js";

export class PostgresReader {
  /** Set when a read found a row failing its checksum (isDamaged). */
  damaged = false;
  /** Positions of damaged rows already logged: one line per row. */
  private readonly damagedLogged = new Set<number>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly reads: ReadCounters,
  ) {}

  async readStream(input: ReadStreamInput): Promise<ReadStreamResult> {
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
      EventRow & {
        s_last_revision: number;
        s_deleted: boolean;
        s_tombstoned: boolean;
        s_first_visible: number;
        s_found: boolean;
      }
    >(
      prepared(
        `WITH s AS (
           SELECT s.tenant_id, s.stream_id, s.last_revision, s.deleted, s.tombstoned,
             ${firstVisibleSql("s", "$5")} AS first_visible
           FROM ess_streams s
           WHERE s.tenant_id = $1 AND s.stream_id = $2 AND (s.last_revision >= 0 OR s.tombstoned)
         )
         SELECT s.last_revision AS s_last_revision, s.deleted AS s_deleted, s.tombstoned AS s_tombstoned,
           s.first_visible AS s_first_visible,
           e.position, e.stream_id, e.revision, e.event_id, e.event_type, e.data, e.metadata, e.data_bytes,
           e.metadata_bytes, e.created_at, e.checksum
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
    if (head?.s_tombstoned) throw streamTombstoned(input.stream_id);
    if (!head || head.s_deleted) throw streamNotFound(input.stream_id);
    this.reads.count(input.tenant_id);
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
  }

  async readAll(input: ReadAllInput): Promise<ReadAllPage> {
    checkId("tenant_id", input.tenant_id);
    checkLimit(input.limit);
    const plan = planReadAll(input);
    const bytesMax = pageBytesMax(input.bytes_max);
    const now = new Date(this.now()).toISOString();
    if (plan.matcher !== null || plan.backward) {
      const page = await readAllPage(
        this.pool,
        { tenantId: input.tenant_id, limit: input.limit, bytesMax, plan, now },
        (row) => this.checkedEvent(input.tenant_id, row),
      );
      this.reads.count(input.tenant_id);
      return page;
    }
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
        [input.tenant_id, plan.from ?? 0, input.limit + 1, now, bytesMax],
      ),
    );
    this.reads.count(input.tenant_id);
    const rows = result.rows;
    let take = 0;
    while (take < rows.length && take < input.limit && (take === 0 || rows[take]!.page_bytes <= bytesMax)) {
      take++;
    }
    const next = rows[take];
    const last = rows[take - 1];
    const page: ReadAllPage = {
      events: rows.slice(0, take).map((r) => this.checkedEvent(input.tenant_id, r)),
      next_position: next ? next.position : null,
      is_end: !next,
    };
    const resume = next ? next.position : last ? Number(last.position) + 1 : null;
    if (resume !== null) page.resume_position = resume;
    return page;
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
      data: row.data_bytes ?? row.data,
      metadata: row.metadata_bytes ?? row.metadata,
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
}

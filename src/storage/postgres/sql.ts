/**
 * SQL fragments shared by the engine's statements: which revisions of a stream are readable.
 *
 * A stream's readable events are a suffix of it: every revision from its first readable one to
 * its last. The first readable revision is the highest of the bounds retention and soft delete
 * set (scavenged revisions, the soft-delete mark, truncate_before, max_count) and, with
 * max_age_seconds, the first revision young enough. `created_at` never decreases along a stream
 * (the append takes the later of the clock and the stream's last append time), so "young enough"
 * is a suffix too, and a per-row test and the first-revision search agree.
 */

/** The bound from everything but max_age, for the stream row aliased `s`. */
export function staticBoundSql(s: string): string {
  return `GREATEST(${s}.first_stored_revision, ${s}.hidden_before, COALESCE(${s}.truncate_before, 0),
    CASE WHEN ${s}.max_count IS NULL THEN 0 ELSE ${s}.last_revision + 1 - ${s}.max_count END)`;
}

/** The oldest created_at still readable under max_age, given the clock parameter `now`. */
export function ageCutoffSql(s: string, now: string): string {
  return `(${now}::timestamptz - make_interval(secs => ${s}.max_age_seconds))`;
}

/** The first readable revision (last_revision + 1 when none is readable). */
export function firstVisibleSql(s: string, now: string): string {
  const bound = staticBoundSql(s);
  return `(CASE WHEN ${s}.max_age_seconds IS NULL THEN ${bound} ELSE COALESCE((
    SELECT fe.revision FROM ess_events fe
    WHERE fe.tenant_id = ${s}.tenant_id AND fe.stream_id = ${s}.stream_id
      AND fe.revision >= ${bound} AND fe.created_at >= ${ageCutoffSql(s, now)}
    ORDER BY fe.revision LIMIT 1), ${s}.last_revision + 1) END)`;
}

/** Whether the event row aliased `e` of the stream row aliased `s` is readable. */
export function eventVisibleSql(e: string, s: string, now: string): string {
  return `(${e}.revision >= ${staticBoundSql(s)}
    AND (${s}.max_age_seconds IS NULL OR ${e}.created_at >= ${ageCutoffSql(s, now)}))`;
}

/** Columns of a stream row the engine turns into StreamInfo / StreamSummary. */
export function streamColumnsSql(s: string, now: string): string {
  return `${s}.tenant_id, ${s}.stream_id, ${s}.last_revision, ${s}.bytes, ${s}.created_at, ${s}.updated_at,
    ${s}.deleted, ${s}.tombstoned, ${s}.max_age_seconds, ${s}.max_count, ${s}.truncate_before, ${s}.first_stored_revision,
    ${firstVisibleSql(s, now)} AS first_visible`;
}

/** created_at is formatted by the server (RFC 3339, milliseconds, UTC): no Date parsing per row. */
export const eventColumnsSql = (e: string): string =>
  `${e}.position, ${e}.stream_id, ${e}.revision, ${e}.event_id, ${e}.event_type, ${e}.data, ${e}.metadata,
   ${e}.data_bytes, ${e}.metadata_bytes, ${e}.checksum, to_char(${e}.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

/**
 * What a read page's byte budget counts for an event: data plus metadata, UTF-8 text or bytes
 * (a part kept as bytes has '' as its text). octet_length reads a TOASTed value's size without
 * fetching the value.
 */
export const eventBytesSql = (e: string): string =>
  `(octet_length(${e}.data) + octet_length(${e}.metadata) + COALESCE(octet_length(${e}.data_bytes), 0)
    + COALESCE(octet_length(${e}.metadata_bytes), 0))::float8 AS event_bytes`;

/**
 * `inner`, a query of at most a page (and one) of rows with event_bytes, with each row's running
 * page size in `order` (a column of inner's rows, as q.<name>): page_bytes (event_bytes summed so
 * far) and page_row (1, 2, ...). The window runs over inner's rows only, after its LIMIT, so
 * inner keeps its own plan (a top-N sort, an index scan that stops early): with the window below
 * the LIMIT, a tenant's readAll sorted every visible event, on disk (measured: half the reads/s).
 */
export const withPageBytesSql = (inner: string, order: string): string =>
  `SELECT q.*, sum(q.event_bytes) OVER (ORDER BY ${order}) AS page_bytes,
     row_number() OVER (ORDER BY ${order}) AS page_row
   FROM (${inner}) q`;

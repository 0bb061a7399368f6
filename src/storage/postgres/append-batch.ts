/**
 * Group commit for the postgres engine: the appends one node has waiting are written in one
 * transaction, so they share one counter-row lock and one commit (one WAL flush) instead of
 * taking turns. Each append keeps its own outcome: one that fails its checks (wrong expected
 * revision, partial idempotency) is refused alone and writes nothing; the others commit.
 *
 * Invariants:
 * - Locks are taken in one global order, on every node: stream rows sorted by (tenant, stream),
 *   then tenant rows sorted, then the counter row, last, held to commit. So batches on different
 *   nodes (and deleteStream / scavenge, which lock one stream row and then its tenant row) never
 *   deadlock, and commits happen in position order (docs/postgres.md).
 * - Checks run under the stream row lock against committed rows plus what earlier appends of the
 *   same batch add, so a batch behaves exactly as its appends made one after another.
 * - Nothing resolves before COMMIT returns; if the commit fails, every append of the batch fails.
 */
import type pg from "pg";
import { EssError, streamTombstoned, wrongExpectedRevision } from "../../errors.js";
import type { AppendResult } from "../../contract/bodies.js";
import type { AppendInput } from "../engine.js";
import { payloadBinary, payloadText } from "../validate-input.js";
import { eventChecksum } from "./checksum.js";

export interface BatchItem {
  input: AppendInput;
  /** Byte size of each event (validate.ts). */
  sizes: number[];
  /** Set by appendBatch: the result, or the error this append alone is refused with. */
  outcome?: { result: AppendResult } | { error: unknown };
}

interface StreamState {
  tenant_id: string;
  stream_id: string;
  lastRevision: number;
  live: boolean;
  /** Stream's last created_at in ms (created_at never decreases along a stream). */
  lastCreatedMs: number;
  /** Event ids this batch adds, with their revision and ordinal in the batch. */
  pending: Map<string, { revision: number; ordinal: number }>;
  /** The stream row was created by this batch (deleted again if nothing is appended). */
  created: boolean;
  /** Tombstoned: every append to it is refused (STREAM_TOMBSTONED). */
  tombstoned: boolean;
  /** Whether this batch revives or creates it (counts in the tenant's streams). */
  counted: boolean;
  appended: number;
  bytes: number;
  lastOrdinal: number;
}

/** An accepted append: its events get ordinals firstOrdinal.. in the batch. */
interface Accepted {
  item: BatchItem;
  stream: StreamState;
  firstRevision: number;
  firstOrdinal: number;
  createdMs: number;
}

/** An idempotent repeat of events written earlier in this same batch: answered after commit. */
interface RepeatInBatch {
  item: BatchItem;
  firstRevision: number;
  lastOrdinal: number;
}

/** One prepared statement per text (see prepared() in postgres-engine.ts). */
export type Prepare = (text: string, values: unknown[]) => pg.QueryConfig;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The key of a stream in the batch's maps. */
const streamKey = (tenant: string, stream: string): string => JSON.stringify([tenant, stream]);

/** Where an event id already sits in its stream (committed rows). */
type CommittedIds = Map<string, { revision: number; position: number }>;

/** The appends of the batch that passed their checks, and the idempotent repeats of this batch. */
interface Checked {
  accepted: Accepted[];
  repeats: RepeatInBatch[];
  /** Events accepted so far: the last ordinal handed out. */
  ordinal: number;
}

/** Per tenant, what the accepted appends add to its usage row. */
interface TenantAdd {
  streams: number;
  events: number;
  bytes: number;
  appends: number;
  at: number;
}

/**
 * Writes `items` in one transaction on `client` (which the caller has not begun). Sets every
 * item's outcome; throws only when the transaction itself fails (then no item was written).
 * The steps, in this order (docs/postgres.md, "An append"): lock the stream rows, look the
 * event ids up, check each append, drop stream rows made for nothing, write everything in one
 * statement, answer.
 */
export async function appendBatch(
  client: pg.PoolClient,
  items: BatchItem[],
  channel: string,
  nowMs: number,
  prepare: Prepare,
): Promise<void> {
  const order = inLockOrder(items);
  await client.query("BEGIN");
  try {
    const streams = await lockStreams(client, order, nowMs, prepare);
    const committed = await findCommittedIds(client, order, streams, prepare);
    const checked = checkAppends(order, streams, committed, nowMs);
    await deleteUnusedStreams(client, streams);
    if (checked.accepted.length > 0) {
      const lastPosition = await writeAccepted(client, checked, streams, channel, nowMs, prepare);
      answerAccepted(checked, lastPosition);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    for (const item of items) delete item.outcome;
    throw error;
  }
}

/** Lock order: streams sorted. Appends to one stream keep their arrival order (stable sort). */
function inLockOrder(items: BatchItem[]): BatchItem[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort(
      (a, b) =>
        compare(a.item.input.tenant_id, b.item.input.tenant_id) ||
        compare(a.item.input.stream_id, b.item.input.stream_id) ||
        a.index - b.index,
    )
    .map((x) => x.item);
}

/**
 * 1. Locks every stream row of the batch (creating the new ones) in one statement, in sorted
 *    order: every append to these streams, on any node, waits here, so the checks that follow
 *    see the streams' latest committed state.
 */
async function lockStreams(
  client: pg.PoolClient,
  order: BatchItem[],
  nowMs: number,
  prepare: Prepare,
): Promise<Map<string, StreamState>> {
  const now = new Date(nowMs).toISOString();
  const unique: [string, string][] = [];
  const seen = new Set<string>();
  for (const item of order) {
    const key = streamKey(item.input.tenant_id, item.input.stream_id);
    if (!seen.has(key)) {
      seen.add(key);
      unique.push([item.input.tenant_id, item.input.stream_id]);
    }
  }
  const locked = await client.query<{
    tenant_id: string;
    stream_id: string;
    last_revision: number;
    updated_at: Date;
    deleted: boolean;
    tombstoned: boolean;
  }>(prepare(LOCK_SQL, [unique.map((u) => u[0]), unique.map((u) => u[1]), now]));
  const streams = new Map<string, StreamState>();
  for (const row of locked.rows) {
    streams.set(streamKey(row.tenant_id, row.stream_id), {
      tenant_id: row.tenant_id,
      stream_id: row.stream_id,
      lastRevision: row.last_revision,
      // A soft-deleted stream counts as no stream for no_stream / stream_exists (as in
      // EventStoreDB); an exact revision still compares with its last revision.
      live: row.last_revision >= 0 && !row.deleted,
      lastCreatedMs: row.updated_at.getTime(),
      pending: new Map(),
      created: row.last_revision < 0,
      tombstoned: row.tombstoned,
      counted: false,
      appended: 0,
      bytes: 0,
      lastOrdinal: 0,
    });
  }
  return streams;
}

/**
 * 2. Idempotency, one query for the whole batch: which of its event ids already sit in their
 *    streams (committed rows; ids added by this batch are tracked in each stream's `pending`).
 */
async function findCommittedIds(
  client: pg.PoolClient,
  order: BatchItem[],
  streams: Map<string, StreamState>,
  prepare: Prepare,
): Promise<CommittedIds> {
  const committed: CommittedIds = new Map();
  const probe = order.filter((item) => {
    const stream = streams.get(streamKey(item.input.tenant_id, item.input.stream_id));
    return stream !== undefined && stream.lastRevision >= 0 && item.input.event_ids_fresh !== true;
  });
  if (probe.length === 0) return committed;
  const t: string[] = [];
  const st: string[] = [];
  const id: string[] = [];
  for (const item of probe) {
    for (const e of item.input.events) {
      t.push(item.input.tenant_id);
      st.push(item.input.stream_id);
      id.push(e.event_id);
    }
  }
  const found = await client.query<{
    tenant_id: string;
    stream_id: string;
    event_id: string;
    revision: number;
    position: number;
  }>(prepare(IDS_SQL, [t, st, id]));
  for (const r of found.rows) {
    committed.set(JSON.stringify([r.tenant_id, r.stream_id, r.event_id]), {
      revision: r.revision,
      position: r.position,
    });
  }
  return committed;
}

/**
 * Checks each append in lock order against its locked stream row plus what the earlier appends
 * of the batch added: an idempotent repeat is answered (now, or after the write when the
 * original is in this batch), an append failing its checks gets its own error as its outcome,
 * and the others are accepted with their revisions and ordinals.
 */
function checkAppends(
  order: BatchItem[],
  streams: Map<string, StreamState>,
  committed: CommittedIds,
  nowMs: number,
): Checked {
  const checked: Checked = { accepted: [], repeats: [], ordinal: 0 };
  for (const item of order) {
    const stream = streams.get(streamKey(item.input.tenant_id, item.input.stream_id));
    if (!stream) throw new EssError("INTERNAL", "internal error");
    try {
      if (stream.tombstoned) throw streamTombstoned(stream.stream_id);
      if (!answerRepeat(item, stream, committed, checked)) accept(item, stream, nowMs, checked);
    } catch (error) {
      // Only this append's own refusal; a database error aborts the whole transaction.
      if (!(error instanceof EssError)) throw error;
      item.outcome = { error };
    }
  }
  return checked;
}

/**
 * 2. Idempotency: the append's ids already in the stream (committed, or earlier in this batch).
 * None: false. All, as the same batch (same order, consecutive revisions): answered, true.
 * Some: WRONG_EXPECTED_REVISION.
 */
function answerRepeat(
  item: BatchItem,
  stream: StreamState,
  committed: CommittedIds,
  checked: Checked,
): boolean {
  const { tenant_id, stream_id, events } = item.input;
  const ids = events.map((e) => e.event_id);
  const stored = new Map<string, { revision: number; position: number | null; ordinal: number }>();
  for (const id of ids) {
    const p = stream.pending.get(id);
    if (p) stored.set(id, { revision: p.revision, position: null, ordinal: p.ordinal });
  }
  for (const id of ids) {
    const c = committed.get(JSON.stringify([tenant_id, stream_id, id]));
    if (c) stored.set(id, { ...c, ordinal: 0 });
  }
  if (stored.size === 0) return false;
  const first = stored.get(ids[0] ?? "");
  const sameBatch =
    first !== undefined &&
    stored.size === ids.length &&
    ids.every((id, i) => stored.get(id)?.revision === first.revision + i);
  if (!sameBatch) {
    throw wrongExpectedRevision(stream_id, String(item.input.expected_revision), stream.lastRevision);
  }
  const last = stored.get(ids[ids.length - 1] ?? "") ?? first;
  if (last.position !== null) {
    item.outcome = {
      result: {
        stream_id,
        first_revision: first.revision,
        last_revision: first.revision + ids.length - 1,
        position: last.position,
        count: ids.length,
      },
    };
  } else {
    checked.repeats.push({ item, firstRevision: first.revision, lastOrdinal: last.ordinal });
  }
  return true;
}

/** 3. Optimistic concurrency; then the append's revisions and ordinals, added to its stream. */
function accept(item: BatchItem, stream: StreamState, nowMs: number, checked: Checked): void {
  const { stream_id, events } = item.input;
  const expected = item.input.expected_revision;
  const exists = stream.lastRevision >= 0;
  const ok =
    expected === "any" ||
    (expected === "no_stream" && !stream.live) ||
    (expected === "stream_exists" && stream.live) ||
    (typeof expected === "number" && expected === stream.lastRevision);
  if (!ok) throw wrongExpectedRevision(stream_id, expected, exists ? stream.lastRevision : null);

  const firstRevision = stream.lastRevision + 1;
  const createdMs = Math.max(nowMs, stream.lastCreatedMs);
  const firstOrdinal = checked.ordinal + 1;
  events.forEach((e, i) => {
    stream.pending.set(e.event_id, { revision: firstRevision + i, ordinal: firstOrdinal + i });
  });
  checked.ordinal += events.length;
  if (!stream.live) stream.counted = true;
  stream.live = true;
  stream.lastRevision += events.length;
  stream.lastCreatedMs = createdMs;
  stream.appended += events.length;
  stream.bytes += item.sizes.reduce((a, b) => a + b, 0);
  stream.lastOrdinal = checked.ordinal;
  checked.accepted.push({ item, stream, firstRevision, firstOrdinal, createdMs });
}

/** Streams this batch created but appended nothing to are removed again. */
async function deleteUnusedStreams(client: pg.PoolClient, streams: Map<string, StreamState>): Promise<void> {
  const unused = [...streams.values()].filter((st) => st.created && st.appended === 0);
  if (unused.length === 0) return;
  await client.query(DELETE_SQL, [unused.map((st) => st.tenant_id), unused.map((st) => st.stream_id)]);
}

/**
 * 4. Usage (tenant rows, sorted), positions (counter row, last, held to commit), stream rows,
 *    events and one notice per append, in one statement. Returns the counter's new last position.
 */
async function writeAccepted(
  client: pg.PoolClient,
  checked: Checked,
  streams: Map<string, StreamState>,
  channel: string,
  nowMs: number,
  prepare: Prepare,
): Promise<number> {
  const { accepted } = checked;
  const total = checked.ordinal;
  const touched = [...streams.values()].filter((s) => s.appended > 0);
  const tenants = tenantAdds(accepted, touched);
  const tenantIds = [...tenants.keys()].sort(compare);
  const ev = eventColumns(accepted);
  const result = await client.query<{ last_position: number }>(
    prepare(WRITE_SQL, [
      tenantIds,
      tenantIds.map((t) => tenants.get(t)?.streams ?? 0),
      tenantIds.map((t) => tenants.get(t)?.events ?? 0),
      tenantIds.map((t) => tenants.get(t)?.bytes ?? 0),
      tenantIds.map((t) => tenants.get(t)?.appends ?? 0),
      tenantIds.map((t) => new Date(tenants.get(t)?.at ?? nowMs).toISOString()),
      total,
      touched.map((s) => s.tenant_id),
      touched.map((s) => s.stream_id),
      touched.map((s) => s.lastRevision),
      touched.map((s) => s.appended),
      touched.map((s) => s.bytes),
      touched.map((s) => new Date(s.lastCreatedMs).toISOString()),
      touched.map((s) => s.lastOrdinal),
      ev.tenant,
      ev.stream,
      ev.revision,
      ev.id,
      ev.type,
      ev.data,
      ev.metadata,
      ev.created,
      ev.bytes,
      ev.checksum,
      channel,
      accepted.map((a) => a.item.input.tenant_id),
      accepted.map((a) => a.item.input.stream_id),
      accepted.map((a) => a.firstRevision),
      accepted.map((a) => a.firstRevision + a.item.input.events.length - 1),
      accepted.map((a) => a.firstOrdinal),
      accepted.map((a) => a.firstOrdinal + a.item.input.events.length - 1),
      ev.dataBytes,
      ev.metadataBytes,
    ]),
  );
  const lastPosition = result.rows[0]?.last_position;
  if (lastPosition === undefined || result.rows.length !== accepted.length) {
    throw new EssError("INTERNAL", "internal error");
  }
  return lastPosition;
}

/** What the accepted appends add to each tenant's usage; `touched`: the streams appended to. */
function tenantAdds(accepted: Accepted[], touched: StreamState[]): Map<string, TenantAdd> {
  const tenants = new Map<string, TenantAdd>();
  for (const a of accepted) {
    const t = tenants.get(a.stream.tenant_id) ?? { streams: 0, events: 0, bytes: 0, appends: 0, at: 0 };
    t.events += a.item.input.events.length;
    t.bytes += a.item.sizes.reduce((x, y) => x + y, 0);
    t.appends += 1;
    t.at = Math.max(t.at, a.createdMs);
    tenants.set(a.stream.tenant_id, t);
  }
  for (const s of touched) {
    if (s.counted) {
      const t = tenants.get(s.tenant_id);
      if (t) t.streams += 1;
    }
  }
  return tenants;
}

/** The accepted events as columns (unnest's arrays), each with its checksum. */
function eventColumns(accepted: Accepted[]): {
  tenant: string[];
  stream: string[];
  revision: number[];
  id: string[];
  type: string[];
  data: string[];
  metadata: string[];
  created: string[];
  bytes: number[];
  checksum: number[];
  dataBytes: (Buffer | null)[];
  metadataBytes: (Buffer | null)[];
} {
  const ev = {
    tenant: [] as string[],
    stream: [] as string[],
    revision: [] as number[],
    id: [] as string[],
    type: [] as string[],
    data: [] as string[],
    metadata: [] as string[],
    created: [] as string[],
    bytes: [] as number[],
    checksum: [] as number[],
    dataBytes: [] as (Buffer | null)[],
    metadataBytes: [] as (Buffer | null)[],
  };
  for (const a of accepted) {
    const { tenant_id, stream_id } = a.item.input;
    const createdAt = new Date(a.createdMs).toISOString();
    a.item.input.events.forEach((e, i) => {
      const revision = a.firstRevision + i;
      ev.tenant.push(tenant_id);
      ev.stream.push(stream_id);
      ev.revision.push(revision);
      ev.id.push(e.event_id);
      ev.type.push(e.event_type);
      // A part kept as bytes goes to its bytea column, with '' as its text (migration 2).
      const dataBytes = payloadBinary(e.data);
      const metadataBytes = payloadBinary(e.metadata);
      const data = payloadText(e.data);
      const metadata = payloadText(e.metadata);
      ev.data.push(data);
      ev.metadata.push(metadata);
      ev.dataBytes.push(dataBytes);
      ev.metadataBytes.push(metadataBytes);
      ev.created.push(createdAt);
      ev.bytes.push(a.item.sizes[i] ?? 0);
      ev.checksum.push(
        eventChecksum({
          tenant_id,
          stream_id,
          revision,
          event_id: e.event_id,
          event_type: e.event_type,
          data: dataBytes ?? data,
          metadata: metadataBytes ?? metadata,
          created_at_ms: a.createdMs,
        }),
      );
    });
  }
  return ev;
}

/** The results of the accepted appends and of the repeats of this batch, from the positions. */
function answerAccepted(checked: Checked, lastPosition: number): void {
  const base = lastPosition - checked.ordinal;
  for (const a of checked.accepted) {
    const count = a.item.input.events.length;
    a.item.outcome = {
      result: {
        stream_id: a.item.input.stream_id,
        first_revision: a.firstRevision,
        last_revision: a.firstRevision + count - 1,
        position: base + a.firstOrdinal + count - 1,
        count,
      },
    };
  }
  for (const r of checked.repeats) {
    const count = r.item.input.events.length;
    r.item.outcome = {
      result: {
        stream_id: r.item.input.stream_id,
        first_revision: r.firstRevision,
        last_revision: r.firstRevision + count - 1,
        position: base + r.lastOrdinal,
        count,
      },
    };
  }
}

// The statements, byte for byte as they were written inline (the prepared-statement cache is
// keyed by their text).

const LOCK_SQL = `INSERT INTO ess_streams AS s (tenant_id, stream_id, created_at, updated_at)
         SELECT u.tenant_id, u.stream_id, $3::timestamptz, $3::timestamptz
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(tenant_id, stream_id, ord) ORDER BY u.ord
         ON CONFLICT (tenant_id, stream_id) DO UPDATE SET last_revision = s.last_revision
         RETURNING s.tenant_id, s.stream_id, s.last_revision, s.updated_at, s.deleted, s.tombstoned`;

const IDS_SQL = `SELECT e.tenant_id, e.stream_id, e.event_id, e.revision, e.position
           FROM unnest($1::text[], $2::text[], $3::uuid[]) AS u(tenant_id, stream_id, event_id)
           JOIN ess_events e ON e.tenant_id = u.tenant_id AND e.stream_id = u.stream_id AND e.event_id = u.event_id`;

const DELETE_SQL = `DELETE FROM ess_streams s USING unnest($1::text[], $2::text[]) AS u(tenant_id, stream_id)
         WHERE s.tenant_id = u.tenant_id AND s.stream_id = u.stream_id AND s.last_revision < 0
           AND s.metadata_revision IS NULL AND NOT s.tombstoned`;

const WRITE_SQL = `WITH t AS (
             INSERT INTO ess_tenants AS x (tenant_id, streams, events, bytes, appends_total, last_append_at)
             SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::timestamptz[])
             ORDER BY 1
             ON CONFLICT (tenant_id) DO UPDATE SET
               streams = x.streams + EXCLUDED.streams, events = x.events + EXCLUDED.events,
               bytes = x.bytes + EXCLUDED.bytes, appends_total = x.appends_total + EXCLUDED.appends_total,
               last_append_at = GREATEST(x.last_append_at, EXCLUDED.last_append_at)
             RETURNING 1 AS one
           ), c AS (
             UPDATE ess_global g SET last_position = g.last_position + $7::bigint
             WHERE g.id = 1 AND (SELECT count(*) FROM t) > 0 RETURNING g.last_position
           ), s AS (
             UPDATE ess_streams s SET last_revision = u.last_revision, stored_events = s.stored_events + u.n,
               bytes = s.bytes + u.bytes, updated_at = u.updated_at, deleted = false,
               last_position = c.last_position - $7::bigint + u.last_ordinal
             FROM c, unnest($8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::bigint[], $13::timestamptz[],
                            $14::bigint[]) AS u(tenant_id, stream_id, last_revision, n, bytes, updated_at, last_ordinal)
             WHERE s.tenant_id = u.tenant_id AND s.stream_id = u.stream_id
             RETURNING 1 AS one
           ), ins AS (
             INSERT INTO ess_events (position, tenant_id, stream_id, revision, event_id, event_type, data, metadata,
               created_at, bytes, checksum, data_bytes, metadata_bytes)
             SELECT c.last_position - $7::bigint + e.ord, e.tenant_id, e.stream_id, e.revision, e.event_id,
               e.event_type, e.data, e.metadata, e.created_at, e.bytes, e.checksum, e.data_bytes, e.metadata_bytes
             FROM c, unnest($15::text[], $16::text[], $17::bigint[], $18::uuid[], $19::text[], $20::text[], $21::text[],
                            $22::timestamptz[], $23::int[], $24::bigint[], $32::bytea[], $33::bytea[])
               WITH ORDINALITY AS e(tenant_id, stream_id, revision, event_id, event_type, data, metadata, created_at,
                                    bytes, checksum, data_bytes, metadata_bytes, ord)
             RETURNING 1 AS one
           )
           SELECT c.last_position, pg_notify($25, json_build_array(n.tenant_id, n.stream_id, n.first_revision,
             n.last_revision, c.last_position - $7::bigint + n.first_ordinal,
             c.last_position - $7::bigint + n.last_ordinal)::text)
           FROM c, unnest($26::text[], $27::text[], $28::bigint[], $29::bigint[], $30::bigint[], $31::bigint[])
             WITH ORDINALITY AS n(tenant_id, stream_id, first_revision, last_revision, first_ordinal, last_ordinal, ord)
           ORDER BY n.ord`;

/**
 * The postgres engine's schema, as versioned migrations embedded in the build (so `dist/`
 * needs no SQL files beside it). A migration is applied once, in its own transaction, and
 * recorded in `ess_schema_migrations`; the runner (./migrate.ts) holds an advisory lock while
 * it applies them, so several nodes starting at once apply each migration exactly once.
 *
 * Never edit a migration that has shipped: add the next version instead.
 *
 * Invariants the schema holds (see docs/postgres.md):
 * - `ess_events.position` is the global position; it is assigned from the single counter row
 *   `ess_global` at the end of the append transaction, so commits happen in position order
 *   and a reader never sees a position appear below one it has already seen.
 * - unique (tenant_id, stream_id, revision) and unique (tenant_id, stream_id, event_id) hold
 *   optimistic concurrency and idempotency even against a buggy node.
 * - ids use the "C" collation: byte order, the same order on every node and in every index.
 */

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const initial = `
CREATE TABLE ess_global (
  id smallint PRIMARY KEY CHECK (id = 1),
  -- Position of the last event ever appended; 0 before the first.
  last_position bigint NOT NULL
);
INSERT INTO ess_global (id, last_position) VALUES (1, 0);

CREATE TABLE ess_streams (
  tenant_id text COLLATE "C" NOT NULL,
  stream_id text COLLATE "C" NOT NULL,
  -- Revision of the last event ever appended; -1 while the stream has none.
  last_revision bigint NOT NULL DEFAULT -1,
  -- Lowest revision still stored (scavenge raises it).
  first_stored_revision bigint NOT NULL DEFAULT 0,
  stored_events bigint NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0,
  -- Soft delete hides every revision below this one.
  hidden_before bigint NOT NULL DEFAULT 0,
  deleted boolean NOT NULL DEFAULT false,
  max_age_seconds bigint,
  max_count bigint,
  truncate_before bigint,
  -- Position of the stream's last event; 0 while it has none.
  last_position bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, stream_id)
);
CREATE INDEX ess_streams_by_bytes ON ess_streams (tenant_id, bytes DESC, stream_id);

CREATE TABLE ess_events (
  position bigint PRIMARY KEY,
  tenant_id text COLLATE "C" NOT NULL,
  stream_id text COLLATE "C" NOT NULL,
  revision bigint NOT NULL,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  -- JSON text exactly as appended (text, not jsonb: returned byte for byte).
  data text NOT NULL,
  metadata text NOT NULL,
  created_at timestamptz NOT NULL,
  bytes integer NOT NULL,
  -- CRC-32 of the row's content, computed by the engine at append (see checksum.ts).
  checksum bigint NOT NULL,
  CONSTRAINT ess_events_revision_unique UNIQUE (tenant_id, stream_id, revision),
  CONSTRAINT ess_events_event_id_unique UNIQUE (tenant_id, stream_id, event_id)
);
CREATE INDEX ess_events_by_tenant_position ON ess_events (tenant_id, position);

CREATE TABLE ess_tenants (
  tenant_id text COLLATE "C" PRIMARY KEY,
  streams bigint NOT NULL DEFAULT 0,
  events bigint NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0,
  appends_total bigint NOT NULL DEFAULT 0,
  reads_total bigint NOT NULL DEFAULT 0,
  last_append_at timestamptz
);

CREATE TABLE ess_users (
  username text COLLATE "C" PRIMARY KEY,
  tenant_id text COLLATE "C" NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'writer', 'reader')),
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE ess_signing_key (
  id smallint PRIMARY KEY CHECK (id = 1),
  key bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Small engine state shared by every node (last_scavenge).
CREATE TABLE ess_meta (
  key text PRIMARY KEY,
  value jsonb NOT NULL
);
`;

/**
 * Tombstones and stream metadata (docs/postgres.md): a stream row may now exist with no event
 * (last_revision -1) when only its metadata was set or its unused name was tombstoned. A stream
 * whose retention was set before gets that retention as its metadata document, revision 0.
 */
const streamMetadata = `
ALTER TABLE ess_streams
  ADD COLUMN tombstoned boolean NOT NULL DEFAULT false,
  -- The metadata document as JSON text (text, not jsonb: its keys stay as given).
  ADD COLUMN metadata text,
  -- 0 for the first version of the document, +1 per change; NULL while never set.
  ADD COLUMN metadata_revision bigint;
UPDATE ess_streams SET
  metadata = json_strip_nulls(json_build_object('$maxAge', max_age_seconds, '$maxCount', max_count,
    '$tb', truncate_before))::text,
  metadata_revision = 0
WHERE max_age_seconds IS NOT NULL OR max_count IS NOT NULL OR truncate_before IS NOT NULL;
`;

/**
 * Binary events and metadata kept as bytes (docs/postgres.md, "Binary events"). A text column
 * cannot hold bytes that are not UTF-8 (nor a zero byte), so bytes get their own columns: a
 * binary event (content type application/octet-stream) has its data in data_bytes and '' in
 * data; metadata appended as bytes is in metadata_bytes, with '' in metadata. NULL (every row
 * written before this migration) means the text column holds the JSON. Adding nullable columns
 * without a default rewrites no row.
 */
const binaryPayloads = `
ALTER TABLE ess_events ADD COLUMN data_bytes bytea, ADD COLUMN metadata_bytes bytea;
`;

/** Every migration, in version order. */
export const migrations: readonly Migration[] = [
  { version: 1, name: "0001-initial", sql: initial },
  { version: 2, name: "0002-stream-metadata", sql: streamMetadata },
  { version: 3, name: "0003-binary-payloads", sql: binaryPayloads },
];

/**
 * PostgreSQL used as an event store the way Message DB and Marten use it: one events table,
 * a global position, a unique (stream_id, revision), and appends that check the expected
 * revision in the same statement. Durable: the server commits with fsync on and
 * synchronous_commit on (the orchestrator reads both and says so in the table).
 */
import pg from "pg";
import type { SystemAdapter } from "../adapter.js";
import { eventType } from "../workload.js";

/** The DDL of the events table, in its own schema so a run never touches anyone else's. */
export function postgresSchemaSql(schema: string): string[] {
  return [
    `CREATE SCHEMA ${schema}`,
    `CREATE TABLE ${schema}.events (
       position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       stream_id text NOT NULL,
       revision bigint NOT NULL,
       event_id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
       event_type text NOT NULL,
       data jsonb NOT NULL,
       metadata jsonb,
       created_at timestamptz NOT NULL DEFAULT now(),
       UNIQUE (stream_id, revision)
     )`,
  ];
}

export class PostgresAdapter implements SystemAdapter {
  private readonly pool: pg.Pool;
  private readonly appendSql: string;
  private readonly batchSql: string;
  private readonly readSql: string;

  constructor(url: string, schema: string, poolSize: number) {
    // Idle connections stay open (idleTimeoutMillis 0) so the backends, whose CPU the
    // orchestrator reads per cell, live through the whole row.
    this.pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      idleTimeoutMillis: 0,
      application_name: "ess-bench-compare",
    });
    // One round trip: insert only when the stream's last revision is the expected one. Two
    // racing writers both pass the check and the unique index refuses the second.
    this.appendSql = `INSERT INTO ${schema}.events (stream_id, revision, event_type, data)
      SELECT $1, $2::bigint + 1, $3, $4::jsonb
      WHERE COALESCE((SELECT max(revision) FROM ${schema}.events WHERE stream_id = $1), -1) = $2::bigint`;
    this.batchSql = `INSERT INTO ${schema}.events (stream_id, revision, event_type, data)
      SELECT $1, t.ordinality - 1, $2, t.data
      FROM unnest($3::jsonb[]) WITH ORDINALITY AS t(data, ordinality)`;
    this.readSql = `SELECT position, stream_id, revision, event_id, event_type, data, metadata, created_at
      FROM ${schema}.events WHERE stream_id = $1 AND revision >= 0 ORDER BY revision LIMIT $2`;
  }

  async append(stream: string, expectedRevision: number, json: string): Promise<void> {
    const result = await this.pool.query({
      name: "append",
      text: this.appendSql,
      values: [stream, expectedRevision, eventType, json],
    });
    if (result.rowCount !== 1) throw new Error(`wrong expected revision ${expectedRevision} on ${stream}`);
  }

  async appendBatch(stream: string, jsons: string[]): Promise<void> {
    await this.pool.query(this.batchSql, [stream, eventType, jsons]);
  }

  async read(stream: string, limit: number): Promise<number> {
    const result = await this.pool.query({ name: "read", text: this.readSql, values: [stream, limit] });
    return result.rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

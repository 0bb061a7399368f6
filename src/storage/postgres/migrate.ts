/**
 * Applies the embedded migrations (./migrations.ts) at start-up. Safe when several nodes start
 * at once: the whole run holds a session advisory lock, so one node applies what is missing
 * while the others wait, then find nothing left to do. Each migration runs in its own
 * transaction together with its row in `ess_schema_migrations`: it is applied fully or not at all.
 * A database whose schema is newer than this build is refused rather than used blindly.
 */
import type pg from "pg";
import { migrations, type Migration } from "./migrations.js";

/**
 * Advisory lock of the migration run, per schema (several services may share one database in
 * different schemas; the engine works in the first schema of the connection's search_path).
 */
const migrationLockArgs = "hashtext('ess-migrate'), hashtext(current_schema())";

export async function migrate(pool: pg.Pool, list: readonly Migration[] = migrations): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  let failed = false;
  try {
    await client.query(`SELECT pg_advisory_lock(${migrationLockArgs})`);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS ess_schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const done = await client.query<{ version: number }>("SELECT version FROM ess_schema_migrations");
      const versions = new Set(done.rows.map((r) => Number(r.version)));
      const newest = Math.max(0, ...list.map((m) => m.version));
      const unknown = [...versions].filter((v) => v > newest);
      if (unknown.length > 0) {
        throw new Error(
          `the database schema is at version ${Math.max(...unknown)}, newer than this build knows (${newest})`,
        );
      }
      for (const migration of list) {
        if (versions.has(migration.version)) continue;
        await client.query("BEGIN");
        try {
          await client.query(migration.sql);
          await client.query("INSERT INTO ess_schema_migrations (version, name) VALUES ($1, $2)", [
            migration.version,
            migration.name,
          ]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        }
        applied.push(migration.version);
      }
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${migrationLockArgs})`);
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    // A client whose session state is uncertain is discarded, not returned to the pool.
    client.release(failed);
  }
  return applied;
}

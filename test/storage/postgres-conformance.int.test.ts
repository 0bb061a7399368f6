/**
 * Runs the storage conformance suite against the postgres engine on the real PostgreSQL: one
 * fresh database per run, and one schema per store inside it (the engine works in the first
 * schema of its search_path, and scopes its notification channel and advisory locks to it), so
 * a store costs a schema and a migration, not a database.
 */
import pg from "pg";
import {
  OpenedEngines,
  runConformanceSuite,
  type EngineHarness,
} from "../../src/storage/conformance/suite.js";
import {
  openPostgresEngine,
  type PostgresEngineOptions,
} from "../../src/storage/postgres/postgres-engine.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";

function postgresHarness(): EngineHarness {
  let database: Promise<TestDatabase> | null = null;
  let schemas = 0;
  const engines = new OpenedEngines<PostgresEngineOptions>(openPostgresEngine);

  return {
    async create(harnessOptions = {}) {
      database ??= createTestDatabase();
      const db = await database;
      schemas += 1;
      const schema = `store_${schemas}`;
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        await admin.query(`CREATE SCHEMA ${schema}`);
      } finally {
        await admin.end();
      }
      const url = `${db.url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      return engines.openWith({ url, poolMax: 4, now: harnessOptions.now });
    },
    reopen: (closed) => engines.reopen(closed),
    async destroy() {
      await engines.closeAll();
      if (database) await (await database).drop();
    },
  };
}

runConformanceSuite("postgres engine", postgresHarness());

/**
 * Runs the storage conformance suite against the postgres engine on the real PostgreSQL: one
 * fresh database per run, and one schema per store inside it (the engine works in the first
 * schema of its search_path, and scopes its notification channel and advisory locks to it), so
 * a store costs a schema and a migration, not a database.
 */
import pg from "pg";
import type { StorageEngine } from "../../src/storage/engine.js";
import { runConformanceSuite, type EngineHarness } from "../../src/storage/conformance/suite.js";
import {
  openPostgresEngine,
  type PostgresEngineOptions,
} from "../../src/storage/postgres/postgres-engine.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";

function postgresHarness(): EngineHarness {
  let database: Promise<TestDatabase> | null = null;
  let schemas = 0;
  const options = new Map<StorageEngine, PostgresEngineOptions>();
  const open = new Set<StorageEngine>();

  async function openWith(engineOptions: PostgresEngineOptions): Promise<StorageEngine> {
    const engine = await openPostgresEngine(engineOptions);
    options.set(engine, engineOptions);
    open.add(engine);
    const close = engine.close.bind(engine);
    engine.close = async () => {
      open.delete(engine);
      await close();
    };
    return engine;
  }

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
      return openWith({ url, poolMax: 4, now: harnessOptions.now });
    },
    async reopen(closed) {
      const engineOptions = options.get(closed);
      if (!engineOptions) throw new Error("reopen of an engine this harness did not open");
      return openWith(engineOptions);
    },
    async destroy() {
      for (const engine of [...open]) await engine.close();
      if (database) await (await database).drop();
    },
  };
}

runConformanceSuite("postgres engine", postgresHarness());

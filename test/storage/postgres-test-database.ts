/**
 * Test helper: a fresh PostgreSQL database per test run (`ess_test_<random>`), created through
 * the `test` database on 127.0.0.1:5432 (trust auth) and dropped afterwards. When PostgreSQL
 * does not answer, it tries to start the local cluster once, and otherwise fails with a message
 * that says what to do.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import pg from "pg";

const host = process.env.ESS_TEST_PG_HOST ?? "127.0.0.1";
const port = Number(process.env.ESS_TEST_PG_PORT ?? 5432);
const user = process.env.ESS_TEST_PG_USER ?? "postgres";

export function testDatabaseUrl(database: string): string {
  return `postgres://${encodeURIComponent(user)}@${host}:${port}/${database}`;
}

async function tryConnect(): Promise<Error | null> {
  const client = new pg.Client({ connectionString: testDatabaseUrl("test"), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (error) {
    return error as Error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let ready: Promise<void> | null = null;

/** Makes sure PostgreSQL answers, starting the local cluster if it does not. */
export function ensurePostgres(): Promise<void> {
  ready ??= (async () => {
    let error = await tryConnect();
    if (!error) return;
    try {
      const versions = readdirSync("/etc/postgresql");
      for (const version of versions) {
        try {
          execFileSync("pg_ctlcluster", ["--skip-systemctl-redirect", version, "main", "start"], {
            stdio: "pipe",
          });
        } catch {
          // already running or not startable; the connection attempts below decide
        }
      }
    } catch {
      // no local cluster configuration: nothing to start
    }
    for (let attempt = 0; attempt < 20; attempt++) {
      error = await tryConnect();
      if (!error) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(
      `PostgreSQL is not reachable at ${host}:${port} as user ${user} (database test): ${error?.message}. ` +
        "Start it (pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) and run the tests again.",
    );
  })();
  return ready;
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database for one test file; `drop()` removes it (closing leftover sessions). */
export async function createTestDatabase(): Promise<TestDatabase> {
  await ensurePostgres();
  const name = `ess_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl("test") });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: testDatabaseUrl(name),
    async drop() {
      const client = new pg.Client({ connectionString: testDatabaseUrl("test") });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Shared PostgreSQL set-up for the benchmarks that run on the postgres engine.
 *
 * Every run gets a fresh database `ess_bench_<random>`, created through the `test` database on
 * ESS_BENCH_PG (default postgres://postgres@127.0.0.1:5432) and dropped afterwards (FORCE, so a
 * crashed child's connections cannot keep it alive). `withPostgresService` also points the
 * `ess serve` children a benchmark spawns at that database: children inherit this process's
 * environment, so SERVICE_STORAGE / SERVICE_POSTGRES_URL are set for the run and restored after.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

/** Runs `body` with a fresh database on the benchmark's PostgreSQL server, dropped afterwards. */
export async function withBenchDatabase<T>(body: (url: string) => Promise<T>): Promise<T> {
  const server = process.env.ESS_BENCH_PG ?? "postgres://postgres@127.0.0.1:5432";
  const name = `ess_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: `${server}/test` });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    return await body(`${server}/${name}`);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** Runs `body` (which spawns `ess serve` children) with SERVICE_STORAGE=postgres on a fresh database. */
export async function withPostgresService<T>(body: () => Promise<T>): Promise<T> {
  return withBenchDatabase(async (url) => {
    const saved = { storage: process.env.SERVICE_STORAGE, url: process.env.SERVICE_POSTGRES_URL };
    process.env.SERVICE_STORAGE = "postgres";
    process.env.SERVICE_POSTGRES_URL = url;
    try {
      return await body();
    } finally {
      if (saved.storage === undefined) delete process.env.SERVICE_STORAGE;
      else process.env.SERVICE_STORAGE = saved.storage;
      if (saved.url === undefined) delete process.env.SERVICE_POSTGRES_URL;
      else process.env.SERVICE_POSTGRES_URL = saved.url;
    }
  });
}

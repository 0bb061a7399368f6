/**
 * Opens an engine for the crash tests from a plain description, so that the child process
 * (crash-appender.ts) and the checking parent open the very same store. Engine-specific
 * settings travel as JSON in ESS_CRASH_STORE.
 */
import type { StorageEngine } from "../../src/storage/engine.js";

export type CrashStore =
  { engine: "log"; dataDir: string; segmentBytesMax?: number } | { engine: "postgres"; url: string };

export async function openCrashStore(store: CrashStore): Promise<StorageEngine> {
  switch (store.engine) {
    case "log": {
      const { openLogEngine } = await import("../../src/storage/log/index.js");
      return openLogEngine({ dataDir: store.dataDir, segmentBytesMax: store.segmentBytesMax });
    }
    case "postgres": {
      const { openPostgresEngine } = await import("../../src/storage/postgres/postgres-engine.js");
      return openPostgresEngine({ url: store.url, poolMax: 4 });
    }
  }
}

/**
 * Waits until a killed child's work on the store is final. For postgres, a backend finishes the
 * statement it is running (a COMMIT sent just before the kill included) before it notices that
 * its client is gone: the checks would otherwise read a store that is still changing. The test
 * database is the child's alone, so its work is final once no other backend is connected to it.
 */
export async function settleCrashStore(store: CrashStore): Promise<void> {
  if (store.engine !== "postgres") return;
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: store.url });
  await client.connect();
  try {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const result = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      if (result.rows[0]?.n === "0") return;
      if (Date.now() > deadline) {
        throw new Error(
          `the killed child's ${result.rows[0]?.n} PostgreSQL backends were still there after 15 s`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}

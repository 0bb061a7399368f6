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

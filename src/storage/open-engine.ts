/**
 * Engine selection (SERVICE_STORAGE): opens the configured engine. Each engine is imported only
 * when chosen, so the log engine loads no database client and the other way round. A new
 * engine adds one case here.
 */
import type { Config } from "../config/config.js";
import { ConfigError } from "../config/config.js";
import type { EngineOptions, StorageEngine } from "./engine.js";

export type EngineSettings = Pick<Config, "storage" | "dataDir" | "postgresUrl" | "postgresPoolSize">;

export async function openEngine(
  settings: EngineSettings,
  options: EngineOptions = {},
): Promise<StorageEngine> {
  switch (settings.storage) {
    case "log": {
      const { openLogEngine } = await import("./log/index.js");
      return openLogEngine({ ...options, dataDir: settings.dataDir });
    }
    case "postgres": {
      if (settings.postgresUrl === null) {
        throw new ConfigError("SERVICE_POSTGRES_URL", "is required when SERVICE_STORAGE=postgres");
      }
      const { openPostgresEngine } = await import("./postgres/postgres-engine.js");
      return openPostgresEngine({
        ...options,
        url: settings.postgresUrl,
        poolMax: settings.postgresPoolSize,
      });
    }
  }
}

/**
 * Engine selection (SERVICE_STORAGE): opens the configured engine. Each engine is imported only
 * when chosen, so the log engine loads no database client and the other way round. A new
 * engine adds one case here.
 */
import type { Config } from "../config/config.js";
import { ConfigError } from "../config/config.js";
import type { EngineOptions, StorageEngine } from "./engine.js";

export type EngineSettings = Pick<Config, "storage" | "dataDir" | "postgresUrl">;

export async function openEngine(
  settings: EngineSettings,
  options: EngineOptions = {},
): Promise<StorageEngine> {
  switch (settings.storage) {
    case "log": {
      const { openLogEngine } = await import("./log/index.js");
      return openLogEngine({ ...options, dataDir: settings.dataDir });
    }
    case "postgres":
      throw new ConfigError("SERVICE_STORAGE", "the postgres engine is not available in this build yet");
  }
}

/** The embedded log storage engine (SERVICE_STORAGE=log). See docs/log-engine.md. */
export { LogEngine, openLogEngine, type LogEngineOptions } from "./log-engine.js";
export type { LogFaults } from "./segment-store.js";

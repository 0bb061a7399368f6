/**
 * Structured logs: one JSON object per line on stderr. The service logs start, stop, errors
 * and slow operations, not one line per request; a line about a request carries its
 * `request_id` (docs/operations.md, "Request ids and logs"). ESS_LOG_LEVEL=debug|info|warn|error|silent;
 * `ess serve` and `ess gateway` refuse any other value at start-up (logLevelProblem).
 */
const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof levels;

function isLogLevel(name: string): name is LogLevel {
  return Object.hasOwn(levels, name);
}

/** Why ESS_LOG_LEVEL's value is refused, in one line naming the setting; null when it is good (or unset). */
export function logLevelProblem(value: string | undefined): string | null {
  if (value === undefined || value === "" || isLogLevel(value)) return null;
  return `ESS_LOG_LEVEL: '${value}' is not a log level (use ${Object.keys(levels).join(", ")})`;
}

function configuredLevel(): number {
  const name = process.env.ESS_LOG_LEVEL || "info";
  return isLogLevel(name) ? levels[name] : levels.info;
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(base: Record<string, unknown> = {}, threshold = configuredLevel()): Logger {
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (levels[level] < threshold) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...base, ...fields });
    process.stderr.write(line + "\n");
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger({ ...base, ...fields }, threshold),
  };
}

export const logger: Logger = createLogger();

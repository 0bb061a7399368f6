/**
 * `ess serve`: loads the settings (environment, overridden by flags), starts the service, and
 * stops it cleanly on SIGTERM or SIGINT (exit 0): no new calls, calls in flight answered, the
 * engine flushed and closed, so every acknowledged append is durable. A bad setting stops
 * start-up before anything starts, with one line naming it (exit 2); a failure to start
 * (storage, listen address) is one line too (exit 1).
 */
import type { Command } from "../command.js";
import { prog } from "../command.js";
import { parseArgs, UsageError } from "../args.js";
import { ConfigError, loadConfig } from "../../config/config.js";
import type { Config } from "../../config/config.js";
import { logger, logLevelProblem } from "../../logger.js";
import { startService, StartupError } from "../../service.js";

/** Flags that mirror settings. */
const settingFlags: Record<string, string> = {
  "rpc-address": "SERVICE_RPC_ADDRESS",
  "rpc-fast-carrier": "SERVICE_RPC_FAST_CARRIER",
  "rest-address": "SERVICE_REST_ADDRESS",
  "ws-address": "SERVICE_WS_ADDRESS",
  "data-dir": "SERVICE_DATA_DIR",
  storage: "SERVICE_STORAGE",
  "postgres-url": "SERVICE_POSTGRES_URL",
  "token-ttl": "SERVICE_TOKEN_TTL",
  "console-base-path": "SERVICE_CONSOLE_BASE_PATH",
  "tls-cert-file": "SERVICE_TLS_CERT_FILE",
  "tls-key-file": "SERVICE_TLS_KEY_FILE",
};
const switchFlags: Record<string, string> = { rest: "SERVICE_REST_ENABLED", ws: "SERVICE_WS_ENABLED" };

export function configFromArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = logLevelProblem(env.ESS_LOG_LEVEL);
  if (logLevel !== null) throw new UsageError(logLevel);
  const args = parseArgs(argv, Object.keys(settingFlags), Object.keys(switchFlags));
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
  const settings: Record<string, string | undefined> = { ...env };
  for (const [flag, value] of args.flags) {
    const setting = settingFlags[flag] ?? switchFlags[flag];
    if (setting) settings[setting] = value === true ? "true" : value;
  }
  try {
    return loadConfig(settings);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

export const serveCommand: Command = {
  name: "serve",
  help: [
    `Usage: ${prog} serve [options]`,
    "",
    "Runs the Event Stream Service until SIGTERM or SIGINT, then stops cleanly.",
    "Settings come from the environment (README.md); each flag overrides its setting:",
    "  --rpc-address HOST:PORT   SERVICE_RPC_ADDRESS   (default 127.0.0.1:50051)",
    "  --rpc-fast-carrier BOOL   SERVICE_RPC_FAST_CARRIER (default true; false: grpc-js serves",
    "                            every gRPC call, for diagnosis)",
    "  --rest                    SERVICE_REST_ENABLED=true",
    "  --rest-address HOST:PORT  SERVICE_REST_ADDRESS  (default 127.0.0.1:8081)",
    "  --ws                      SERVICE_WS_ENABLED=true",
    "  --ws-address HOST:PORT    SERVICE_WS_ADDRESS    (default 127.0.0.1:8082)",
    "  --data-dir DIR            SERVICE_DATA_DIR      (default ./data)",
    "  --storage log|postgres    SERVICE_STORAGE       (default log)",
    "  --postgres-url URL        SERVICE_POSTGRES_URL",
    "  --token-ttl SECONDS       SERVICE_TOKEN_TTL     (default 3600)",
    "  --console-base-path PATH  SERVICE_CONSOLE_BASE_PATH (the web console at /console/ behind a",
    "                            proxy that adds a prefix; default: derived by the page)",
    "  --tls-cert-file FILE      SERVICE_TLS_CERT_FILE (PEM certificate chain) and",
    "  --tls-key-file FILE       SERVICE_TLS_KEY_FILE  (PEM private key): with both, every",
    "                            listener serves TLS only; SIGHUP re-reads them",
    "SERVICE_ADMIN_PASSWORD sets the password of the admin user created on first start",
    "(otherwise a random one is printed once to stderr).",
    "SERVICE_METRICS_ENABLED=true serves Prometheus metrics at /metrics on SERVICE_METRICS_ADDRESS",
    "(default 127.0.0.1:9464; no authentication: bind it privately). ESS_LOG_LEVEL: debug, info,",
    "warn, error or silent (default info).",
    "",
    "Exit codes: 0 stopped cleanly, 1 failed to start or crashed, 2 bad setting or usage.",
  ].join("\n"),
  async run(argv: string[]): Promise<number> {
    const config = configFromArgs(argv);
    // Signal handlers go in before anything starts: a signal that arrives while starting then
    // stops the service as soon as it is up, instead of killing the process half-way.
    let signalled = false;
    let onStopped: (code: number) => void = () => undefined;
    const stopped = new Promise<number>((resolve) => (onStopped = resolve));
    let stop: (() => Promise<void>) | null = null;
    const requestStop = () => {
      if (!stop) return;
      stop().then(
        () => onStopped(0),
        (error: unknown) => {
          logger.error("stop failed", { error: error instanceof Error ? error.message : String(error) });
          onStopped(1);
        },
      );
    };
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        logger.warn("second signal: exiting without waiting", { signal });
        process.exit(1);
      }
      signalled = true;
      logger.info("signal received; stopping", { signal });
      requestStop();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
    // With TLS, SIGHUP re-reads the certificate and key (docs/operations.md, "TLS"); without it,
    // SIGHUP keeps node's default (the process ends).
    let reloadTls = (): void => logger.warn("SIGHUP while starting: the TLS files are read at start anyway");
    const onHangup = () => reloadTls();
    if (config.tls !== null) process.on("SIGHUP", onHangup);
    try {
      const service = await startService(config, { logger });
      stop = () => service.stop();
      reloadTls = () => void service.reloadTls();
    } catch (error) {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      process.off("SIGHUP", onHangup);
      if (error instanceof ConfigError) throw new UsageError(error.message);
      if (error instanceof StartupError) {
        process.stderr.write(`ess serve: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
    if (signalled) requestStop();
    return stopped;
  },
};

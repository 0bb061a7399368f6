/**
 * `ess gateway --upstream host:port [--address host:port]`: runs the REST gateway alone, in
 * front of a running RPC server reached over gRPC. It answers exactly as the gateway inside
 * `ess serve` does: same app, with the gRPC client (src/client/rpc-client.ts) as its operations.
 * Stops on SIGINT or SIGTERM: new connections are refused, requests still arriving get 503.
 */
import type { Command } from "../command.js";
import { prog } from "../command.js";
import { UsageError, parseArgs, requireFlag } from "../args.js";
import {
  ConfigError,
  formatAddress,
  parseAddress,
  parseBasePath,
  parseTlsFiles,
} from "../../config/config.js";
import { ServerTls, reloadTlsLogged } from "../../tls/server-tls.js";
import { logger, logLevelProblem } from "../../logger.js";
import { createRpcClient } from "../../client/rpc-client.js";
import { startRestServer } from "../../rest/server.js";
import {
  clientTlsFrom,
  explainTlsMismatch,
  tlsHelpLines,
  tlsSwitchFlags,
  tlsValueFlags,
} from "../client-tls.js";

export const gatewayCommand: Command = {
  name: "gateway",
  help: [
    `Usage: ${prog} gateway --upstream HOST:PORT [--address HOST:PORT] [--tls] [--tls-ca FILE]`,
    "",
    "Serves the REST gateway (/v1, OpenAPI at /v1/openapi.json) and calls the RPC server at",
    "--upstream over gRPC for every request. Answers exactly as the gateway of `serve`.",
    "",
    "  --upstream HOST:PORT  the RPC server (its SERVICE_RPC_ADDRESS)",
    "  --address HOST:PORT   where to listen; default SERVICE_REST_ADDRESS or 127.0.0.1:8081",
    "To the upstream over TLS (flag, else environment):",
    ...tlsHelpLines,
    "The web console is at /console/ (SERVICE_CONSOLE_BASE_PATH as for serve). With",
    "SERVICE_TLS_CERT_FILE and SERVICE_TLS_KEY_FILE (as for serve) it serves HTTPS only and",
    "re-reads them on SIGHUP.",
    "",
    "Stops on SIGINT or SIGTERM.",
  ].join("\n"),
  async run(argv) {
    const logLevel = logLevelProblem(process.env.ESS_LOG_LEVEL);
    if (logLevel !== null) throw new UsageError(logLevel);
    const args = parseArgs(argv, ["upstream", "address", ...tlsValueFlags], tlsSwitchFlags);
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
    let upstream, address;
    let consoleBasePath: string | null = null;
    let serverTls: ServerTls | null = null;
    try {
      upstream = parseAddress("--upstream", requireFlag(args, "upstream"));
      const listen = args.flags.get("address");
      address =
        typeof listen === "string"
          ? parseAddress("--address", listen)
          : parseAddress("SERVICE_REST_ADDRESS", process.env.SERVICE_REST_ADDRESS || "127.0.0.1:8081");
      const basePath = process.env.SERVICE_CONSOLE_BASE_PATH;
      if (basePath) consoleBasePath = parseBasePath("SERVICE_CONSOLE_BASE_PATH", basePath);
      const tlsFiles = parseTlsFiles(
        process.env.SERVICE_TLS_CERT_FILE || undefined,
        process.env.SERVICE_TLS_KEY_FILE || undefined,
      );
      if (tlsFiles !== null) serverTls = ServerTls.load(tlsFiles);
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message);
      throw error;
    }
    const tls = clientTlsFrom(args);
    const client = createRpcClient({ address: formatAddress(upstream), tls });
    let server;
    try {
      server = await startRestServer(client, address, {
        console: { basePath: consoleBasePath },
        tls: serverTls,
      });
    } catch (error) {
      client.close();
      throw error;
    }
    const log = logger.child({ component: "gateway" });
    if (serverTls !== null) process.on("SIGHUP", () => void reloadTlsLogged(serverTls, log));
    log.info("REST gateway listening", {
      address: formatAddress(server.address),
      upstream: formatAddress(upstream),
    });
    // Tell the operator at once when the upstream is not there; the gateway keeps serving
    // (503 UNAVAILABLE) and recovers when it comes up.
    client.check().catch(async (error: unknown) => {
      const mismatch = await explainTlsMismatch(formatAddress(upstream), tls);
      log.warn("the upstream RPC server does not answer yet", {
        upstream: formatAddress(upstream),
        error: mismatch ?? String(error),
      });
    });
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    log.info("REST gateway stopping");
    await server.close();
    client.close();
    return 0;
  },
};

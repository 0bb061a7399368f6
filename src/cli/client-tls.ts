/**
 * The client side's TLS for every command that dials the RPC server (`ess user`, `ess gateway
 * --upstream`): `--tls` (ESS_TLS=true) and `--tls-ca FILE` (ESS_TLS_CA, which implies TLS), and the
 * explanation of a connection that fails because the scheme does not match.
 */
import { readFileSync } from "node:fs";
import type { ClientTls } from "../client/rpc-client.js";
import { probeTls } from "../client/tls-probe.js";
import { parseAddress } from "../config/config.js";
import { UsageError, type ParsedArgs } from "./args.js";

export const tlsValueFlags = ["tls-ca"];
export const tlsSwitchFlags = ["tls"];

export const tlsHelpLines = [
  "  --tls                   ESS_TLS=true: the RPC server serves TLS (SERVICE_TLS_CERT_FILE)",
  "  --tls-ca FILE           ESS_TLS_CA: PEM of the CA its certificate chains to (implies --tls;",
  "                          without it, the system's trusted roots)",
];

/** The TLS the flags (else the environment) ask for; null: plaintext. Bad values: UsageError. */
export function clientTlsFrom(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): ClientTls | null {
  const caFlag = args.flags.get("tls-ca");
  const caFile = typeof caFlag === "string" ? caFlag : env.ESS_TLS_CA || undefined;
  const caSource = typeof caFlag === "string" ? "--tls-ca" : "ESS_TLS_CA";
  let on = args.flags.has("tls");
  if (!on && env.ESS_TLS) {
    const value = env.ESS_TLS.trim().toLowerCase();
    if (!["true", "1", "yes", "false", "0", "no"].includes(value)) {
      throw new UsageError(`ESS_TLS: '${env.ESS_TLS}' is not true or false`);
    }
    on = ["true", "1", "yes"].includes(value);
  }
  if (on || caFile !== undefined) quietIpServerNameWarning();
  if (caFile === undefined) return on ? { ca: null } : null;
  let ca: Buffer;
  try {
    ca = readFileSync(caFile);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${caSource}: cannot read ${caFile}${code ? ` (${code})` : ""}`);
  }
  if (!ca.toString("latin1").includes("-----BEGIN CERTIFICATE-----")) {
    throw new UsageError(`${caSource}: ${caFile} holds no PEM certificate`);
  }
  return { ca };
}

/**
 * Why a connection to `address` failed, when the reason is TLS: the server speaks TLS and the
 * client does not, or the other way round, or the server's certificate is not trusted. null when
 * the server cannot be reached at all or TLS is not the reason.
 */
export async function explainTlsMismatch(address: string, tls: ClientTls | null): Promise<string | null> {
  let target;
  try {
    target = parseAddress("address", address);
  } catch {
    return null;
  }
  const probe = await probeTls(target.host, target.port, tls?.ca ?? null);
  if (probe.kind === "tls" && tls === null) {
    return "the server speaks TLS: add --tls (ESS_TLS=true), and --tls-ca FILE (ESS_TLS_CA) when its certificate is not from a CA this machine trusts";
  }
  if (probe.kind === "plaintext" && tls !== null) {
    return "the server does not speak TLS: drop --tls and --tls-ca (ESS_TLS, ESS_TLS_CA)";
  }
  if (probe.kind === "tls" && probe.untrusted !== null) {
    return `the server speaks TLS but its certificate is not trusted (${probe.untrusted}): give --tls-ca FILE (ESS_TLS_CA) with the CA that signed it`;
  }
  return null;
}

/**
 * grpc-js sends the target's host as the TLS server name even when it is an IP address, and node
 * then warns (DEP0123) on the command's stderr; the connection is right (the certificate is
 * checked against the IP), so that one warning is dropped, every other one kept.
 */
function quietIpServerNameWarning(): void {
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = (...args: unknown[]) => {
    const [, typeOrOptions, code] = args;
    const named =
      code ??
      (typeof typeOrOptions === "object" && typeOrOptions !== null
        ? (typeOrOptions as { code?: string }).code
        : undefined);
    if (named !== "DEP0123") emitWarning(...args);
  };
}

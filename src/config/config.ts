/**
 * Settings (docs/contract.md "Settings") to one typed, validated Config. A bad setting is refused with
 * one clear line naming it (ConfigError), before anything starts.
 */
import { limits } from "../limits.js";
import { requireUsername } from "../contract/rules.js";

export interface ListenAddress {
  host: string;
  port: number;
}

export interface Config {
  restEnabled: boolean;
  restAddress: ListenAddress;
  rpcAddress: ListenAddress;
  /**
   * SERVICE_RPC_FAST_CARRIER: the gRPC server's fast carrier serves its methods (default true);
   * false lets grpc-js listen and serve every call itself, for diagnosis (docs/rpc.md, "Carriers").
   */
  rpcFastCarrier: boolean;
  wsEnabled: boolean;
  wsAddress: ListenAddress;
  dataDir: string;
  storage: "log" | "postgres";
  postgresUrl: string | null;
  /**
   * Connections in the postgres engine's pool (SERVICE_POSTGRES_POOL_SIZE; not in the contract's
   * table). Default 10. Each node also holds one listening connection.
   */
  postgresPoolSize: number;
  /** null: generate one on first start and print it once. */
  adminPassword: string | null;
  /** Bearer token lifetime in seconds. Default 3600. */
  tokenTtlSeconds: number;
  /**
   * The path under which browsers reach the REST listener when a reverse proxy mounts it under a
   * prefix, normalized to start and end with "/" (SERVICE_CONSOLE_BASE_PATH; docs/console.md).
   * null (default): the console derives it from its own address.
   */
  consoleBasePath: string | null;
  /** SERVICE_METRICS_ENABLED: Prometheus metrics at /metrics on their own listener (docs/operations.md). */
  metricsEnabled: boolean;
  /** SERVICE_METRICS_ADDRESS: the metrics listener. Default 127.0.0.1:9464. */
  metricsAddress: ListenAddress;
  /** SERVICE_KURRENT_ENABLED: the KurrentDB-protocol listener (docs/kurrent.md). */
  kurrentEnabled: boolean;
  kurrentAddress: ListenAddress;
  /** SERVICE_KURRENT_ANONYMOUS_USER: whom its calls without credentials act as; null: refused. */
  kurrentAnonymousUser: string | null;
  /**
   * SERVICE_TLS_CERT_FILE and SERVICE_TLS_KEY_FILE (PEM chain, PEM key): when set, every listener
   * serves TLS only (docs/operations.md, "TLS"). null (default): plaintext. Only the paths: the
   * files are read and checked by src/tls/server-tls.ts before anything starts.
   */
  tls: { certFile: string; keyFile: string } | null;
}

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
    this.name = "ConfigError";
  }
}

export type Settings = Record<string, string | undefined>;

export function parseAddress(setting: string, value: string): ListenAddress {
  // host:port, with [v6]:port for IPv6 literals.
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[3]) : NaN;
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(setting, `'${value}' is not a host:port address (for example 127.0.0.1:8081)`);
  }
  return { host: match[1] ?? match[2] ?? "", port };
}

export function formatAddress(address: ListenAddress): string {
  return address.host.includes(":") ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

function parseBoolean(setting: string, value: string | undefined): boolean {
  if (value === undefined || value === "") return false;
  const v = value.trim().toLowerCase();
  if (v === "true" || v === "1" || v === "yes") return true;
  if (v === "false" || v === "0" || v === "no") return false;
  throw new ConfigError(setting, `'${value}' is not true or false`);
}

function parsePositiveInteger(setting: string, value: string): number {
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new ConfigError(setting, `'${value}' is not a positive whole number`);
  }
  return n;
}

/**
 * A URL path prefix: "/", "/ess" or "/ops/ess/" → "/", "/ess/", "/ops/ess/". Only unreserved
 * path characters, no "." or ".." segment: the value is written into the console's page.
 */
export function parseBasePath(setting: string, value: string): string {
  const path = value.trim();
  const segments = path.split("/").slice(1);
  if (
    !path.startsWith("/") ||
    !/^[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(path) ||
    path.includes("//") ||
    segments.some((segment) => segment === "." || segment === "..")
  ) {
    throw new ConfigError(setting, `'${value}' is not a URL path starting with / (for example /ess/)`);
  }
  return path.endsWith("/") ? path : `${path}/`;
}

export function loadConfig(settings: Settings = process.env): Config {
  const get = (name: string): string | undefined => {
    const v = settings[name];
    return v === undefined || v === "" ? undefined : v;
  };
  const storage = get("SERVICE_STORAGE") ?? "log";
  if (storage !== "log" && storage !== "postgres") {
    throw new ConfigError("SERVICE_STORAGE", `'${storage}' is not a storage engine (use log or postgres)`);
  }
  const postgresUrl = get("SERVICE_POSTGRES_URL") ?? null;
  if (storage === "postgres") {
    if (postgresUrl === null) {
      throw new ConfigError("SERVICE_POSTGRES_URL", "is required when SERVICE_STORAGE=postgres");
    }
    if (!/^postgres(ql)?:\/\//.test(postgresUrl)) {
      throw new ConfigError(
        "SERVICE_POSTGRES_URL",
        "must be a postgres:// or postgresql:// connection string",
      );
    }
  }
  const adminPassword = get("SERVICE_ADMIN_PASSWORD") ?? null;
  if (adminPassword !== null && adminPassword.length < limits.passwordCharsMin) {
    throw new ConfigError("SERVICE_ADMIN_PASSWORD", `must be at least ${limits.passwordCharsMin} characters`);
  }
  const fastCarrier = get("SERVICE_RPC_FAST_CARRIER");
  const ttl = get("SERVICE_TOKEN_TTL");
  const poolSize = get("SERVICE_POSTGRES_POOL_SIZE");
  const basePath = get("SERVICE_CONSOLE_BASE_PATH");
  return {
    restEnabled: parseBoolean("SERVICE_REST_ENABLED", get("SERVICE_REST_ENABLED")),
    restAddress: parseAddress("SERVICE_REST_ADDRESS", get("SERVICE_REST_ADDRESS") ?? "127.0.0.1:8081"),
    rpcAddress: parseAddress("SERVICE_RPC_ADDRESS", get("SERVICE_RPC_ADDRESS") ?? "127.0.0.1:50051"),
    rpcFastCarrier: fastCarrier === undefined ? true : parseBoolean("SERVICE_RPC_FAST_CARRIER", fastCarrier),
    wsEnabled: parseBoolean("SERVICE_WS_ENABLED", get("SERVICE_WS_ENABLED")),
    wsAddress: parseAddress("SERVICE_WS_ADDRESS", get("SERVICE_WS_ADDRESS") ?? "127.0.0.1:8082"),
    dataDir: get("SERVICE_DATA_DIR") ?? "./data",
    storage,
    postgresUrl,
    postgresPoolSize:
      poolSize === undefined
        ? limits.postgresPoolSizeDefault
        : parsePositiveInteger("SERVICE_POSTGRES_POOL_SIZE", poolSize),
    adminPassword,
    tokenTtlSeconds: ttl === undefined ? 3600 : parsePositiveInteger("SERVICE_TOKEN_TTL", ttl),
    consoleBasePath: basePath === undefined ? null : parseBasePath("SERVICE_CONSOLE_BASE_PATH", basePath),
    metricsEnabled: parseBoolean("SERVICE_METRICS_ENABLED", get("SERVICE_METRICS_ENABLED")),
    metricsAddress: parseAddress(
      "SERVICE_METRICS_ADDRESS",
      get("SERVICE_METRICS_ADDRESS") ?? "127.0.0.1:9464",
    ),
    kurrentEnabled: parseBoolean("SERVICE_KURRENT_ENABLED", get("SERVICE_KURRENT_ENABLED")),
    kurrentAddress: parseAddress(
      "SERVICE_KURRENT_ADDRESS",
      get("SERVICE_KURRENT_ADDRESS") ?? "127.0.0.1:2113",
    ),
    kurrentAnonymousUser: parseAnonymousUser(get("SERVICE_KURRENT_ANONYMOUS_USER")),
    tls: parseTlsFiles(get("SERVICE_TLS_CERT_FILE"), get("SERVICE_TLS_KEY_FILE")),
  };
}

function parseAnonymousUser(value: string | undefined): string | null {
  if (value === undefined || value === "") return null;
  try {
    return requireUsername(value, "SERVICE_KURRENT_ANONYMOUS_USER");
  } catch {
    throw new ConfigError("SERVICE_KURRENT_ANONYMOUS_USER", `'${value}' is not a username`);
  }
}

/** Both TLS files or neither: one without the other is refused, naming the missing one. */
export function parseTlsFiles(
  certFile: string | undefined,
  keyFile: string | undefined,
): { certFile: string; keyFile: string } | null {
  if (certFile === undefined && keyFile === undefined) return null;
  if (certFile === undefined) {
    throw new ConfigError("SERVICE_TLS_CERT_FILE", "is required when SERVICE_TLS_KEY_FILE is set");
  }
  if (keyFile === undefined) {
    throw new ConfigError("SERVICE_TLS_KEY_FILE", "is required when SERVICE_TLS_CERT_FILE is set");
  }
  return { certFile, keyFile };
}

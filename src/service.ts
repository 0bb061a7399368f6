/**
 * The service process's parts, started and stopped in order:
 *   start: storage engine -> users (first-start admin) and signing key -> operations and
 *          subscriptions -> listeners (RPC; the REST gateway and the WebSocket interface when
 *          enabled, the REST listener then taking WebSocket upgrades too);
 *   stop:  refuse new calls, end subscriptions, stop accepting on every listener -> wait for
 *          the calls in flight (appends are answered only once durable) -> close the engine
 *          (flush, fsync).
 * If any part fails to start, the parts already started are stopped again: nothing is left
 * half-started.
 */
import { randomBytes } from "node:crypto";
import type { Config, ListenAddress } from "./config/config.js";
import { formatAddress } from "./config/config.js";
import type { Logger } from "./logger.js";
import { TokenService } from "./auth/tokens.js";
import { Users } from "./auth/users.js";
import { createAuthenticator } from "./operations/authenticate.js";
import type { Authenticator } from "./operations/authenticate.js";
import type { LoginThrottle } from "./operations/login-throttle.js";
import { createOperations } from "./operations/operations.js";
import type { ServiceOperations } from "./operations/operations.js";
import { startRpcServer } from "./rpc/server.js";
import { createSubscribeHandler } from "./rpc/subscribe-handler.js";
import { startRestServer } from "./rest/server.js";
import { SubscriptionHub } from "./operations/subscription/hub.js";
import { SubscriptionService } from "./operations/subscribe.js";
import { acceptSubscribeUpgrades } from "./ws/rest-upgrade.js";
import { startWebSocketServer, subscribePath } from "./ws/server.js";
import { startKurrentListener } from "./kurrent/listener.js";
import type { EngineOptions, StorageEngine } from "./storage/engine.js";
import { openEngine } from "./storage/open-engine.js";
import { serviceVersion } from "./version.js";
import { wireServiceMetrics } from "./metrics/start.js";
import { ServerTls, reloadTlsLogged } from "./tls/server-tls.js";

/** One network listener of the service (RPC, REST, WebSocket). */
export interface Listener {
  name: "rpc" | "rest" | "ws" | "metrics" | "kurrent";
  address: ListenAddress;
  /** Stops accepting and waits (bounded) for the requests in flight. */
  close(): Promise<void>;
}

export interface Service {
  readonly engine: StorageEngine;
  readonly operations: ServiceOperations;
  readonly authenticator: Authenticator;
  readonly listeners: Listener[];
  /** The bound RPC address (the real port when port 0 was configured). */
  readonly rpcAddress: ListenAddress;
  stop(): Promise<void>;
  /**
   * Re-reads SERVICE_TLS_CERT_FILE and SERVICE_TLS_KEY_FILE (on SIGHUP): new connections of every
   * listener get a good new pair, open ones keep theirs; a bad pair is logged and the old one
   * stays. Returns whether a new pair is in place (false too when TLS is off).
   */
  reloadTls(): boolean;
}

export interface ServiceOptions {
  logger: Logger;
  engineOptions?: EngineOptions;
  /** Milliseconds the listeners wait for calls in flight at stop. Default 30000. */
  stopGraceMs?: number;
  /**
   * Where lines meant for the operator go: the generated admin password (printed once), and
   * the warning that SERVICE_ADMIN_PASSWORD was ignored. Default: stderr.
   */
  printAdminPassword?: (line: string) => void;
  /** The login throttle; default: one with the bounds of limits.ts (tests pass their own). */
  loginThrottle?: LoginThrottle;
  /** Operations slower than this many milliseconds are logged ("slow operation"). Default 1000. */
  slowOperationMs?: number;
}

export class StartupError extends Error {
  constructor(
    readonly setting: string | null,
    message: string,
  ) {
    super(setting ? `${setting}: ${message}` : message);
    this.name = "StartupError";
  }
}

/** The storage engine the configuration names; a failure to open it names its setting. */
async function openStorage(
  config: Config,
  engineOptions: ServiceOptions["engineOptions"],
): Promise<StorageEngine> {
  try {
    return await openEngine(config, engineOptions);
  } catch (error) {
    if (error instanceof Error && error.name === "ConfigError") throw error;
    const where = config.storage === "log" ? "SERVICE_DATA_DIR" : "SERVICE_POSTGRES_URL";
    throw new StartupError(where, `cannot open the ${config.storage} storage: ${describe(error)}`);
  }
}

function logStarted(
  logger: Logger,
  config: Config,
  engine: StorageEngine,
  listeners: Listener[],
  tls: ServerTls | null,
): void {
  logger.info("service started", {
    version: serviceVersion,
    storage: engine.kind,
    ...(engine.kind === "log" ? { data_dir: config.dataDir } : {}),
    ...Object.fromEntries(listeners.map((l) => [`${l.name}_address`, formatAddress(l.address)])),
    ...(tls === null ? {} : { tls: true, tls_fingerprint256: tls.pair.fingerprint256 }),
  });
}

export async function startService(config: Config, options: ServiceOptions): Promise<Service> {
  const { logger } = options;
  const startedAt = Date.now();
  const now = options.engineOptions?.now ?? Date.now;
  // Before anything starts: a bad pair is a ConfigError naming its setting (src/tls/server-tls.ts).
  const tls = config.tls === null ? null : ServerTls.load(config.tls);
  // Metrics before the engine (docs/operations.md, "Metrics"): it reports its commits to them.
  const metrics = config.metricsEnabled ? wireServiceMetrics() : null;
  const engine = await openStorage(
    config,
    metrics?.engineOptions(options.engineOptions) ?? options.engineOptions,
  );
  const listeners: Listener[] = [];
  let stopHub = (): void => undefined;
  try {
    const users = new Users(engine.auth, now);
    await ensureAdmin(users, engine, config, options);
    const key = await engine.auth.getOrCreateSigningKey(() => randomBytes(32));
    const tokens = new TokenService(key, config.tokenTtlSeconds, now);
    const authenticator = createAuthenticator({ tokens, users, now });
    const operations = createOperations({
      engine,
      users,
      tokens,
      authenticator,
      logger,
      startedAt,
      now,
      loginThrottle: options.loginThrottle,
      slowOperationMs: options.slowOperationMs,
      metrics: metrics?.metrics,
    });

    const hub = new SubscriptionHub(engine);
    const subscriptions = new SubscriptionService({
      hub,
      authenticate: (ctx) => authenticator.authenticate(ctx),
      now,
      metrics: metrics?.metrics,
    });
    stopHub = () => hub.close();
    const graceMs = options.stopGraceMs ?? 30_000;

    const rpc = await listenAs("SERVICE_RPC_ADDRESS", config.rpcAddress, () =>
      startRpcServer({
        operations,
        address: config.rpcAddress,
        fastCarrier: config.rpcFastCarrier,
        logger,
        subscribe: createSubscribeHandler(subscriptions, { logger }),
        authenticate: (ctx) => authenticator.authenticate(ctx),
        tls,
      }),
    );
    listeners.push({ name: "rpc", address: rpc.address, close: () => rpc.close(graceMs) });

    await startOptionalListeners(config, listeners, {
      operations,
      subscriptions,
      users,
      engine,
      hub,
      metrics,
      logger,
      tls,
      graceMs,
    });

    logStarted(logger, config, engine, listeners, tls);

    let stopping: Promise<void> | null = null;
    return {
      engine,
      operations,
      authenticator,
      listeners,
      rpcAddress: rpc.address,
      reloadTls: () => reloadTlsLogged(tls, logger),
      stop(): Promise<void> {
        stopping ??= (async () => {
          logger.info("service stopping");
          hub.close();
          await Promise.all([operations.drain(), ...listeners.map((l) => l.close())]);
          await engine.close();
          logger.info("service stopped");
        })();
        return stopping;
      },
    };
  } catch (error) {
    stopHub();
    await Promise.allSettled(listeners.map((l) => l.close()));
    await engine.close().catch(() => undefined);
    throw error;
  }
}

/** What the listeners after the RPC server are started with. */
interface ListenerParts {
  operations: ServiceOperations;
  subscriptions: SubscriptionService;
  users: Users;
  engine: StorageEngine;
  hub: SubscriptionHub;
  metrics: ReturnType<typeof wireServiceMetrics> | null;
  logger: Logger;
  tls: ServerTls | null;
  /** Milliseconds the gRPC listeners wait for calls in flight at stop. */
  graceMs: number;
}

/**
 * Starts the listeners the settings enable beside the RPC server (REST, WebSocket, metrics,
 * KurrentDB), adding each to `listeners` as soon as it listens, so a later failure stops it again.
 */
async function startOptionalListeners(
  config: Config,
  listeners: Listener[],
  parts: ListenerParts,
): Promise<void> {
  const { operations, subscriptions, users, engine, hub, metrics, logger, tls, graceMs } = parts;
  if (config.restEnabled) {
    const rest = await listenAs("SERVICE_REST_ADDRESS", config.restAddress, () =>
      startRestServer(operations, config.restAddress, {
        logger,
        console: { basePath: config.consoleBasePath },
        tls,
        ...(config.wsEnabled ? { webSocketPath: subscribePath } : {}),
      }),
    );
    // docs/contract.md "WebSocket protocol": with WebSocket on too, the REST listener also takes /v1/subscribe,
    // so a page the gateway serves subscribes on its own origin. Its connections close first:
    // the server's close waits for every socket, upgraded ones included.
    const upgrades = config.wsEnabled ? acceptSubscribeUpgrades(rest.app.server, { subscriptions }) : null;
    listeners.push({
      name: "rest",
      address: rest.address,
      close: async () => {
        await upgrades?.close();
        await rest.close();
      },
    });
  }
  if (config.wsEnabled) {
    const ws = await listenAs("SERVICE_WS_ADDRESS", config.wsAddress, () =>
      startWebSocketServer({ address: config.wsAddress, subscriptions, tls }),
    );
    listeners.push({ name: "ws", address: ws.address, close: () => ws.close() });
  }
  if (metrics !== null) {
    listeners.push(
      await listenAs("SERVICE_METRICS_ADDRESS", config.metricsAddress, () =>
        metrics.listen(config.metricsAddress, engine, hub, logger),
      ),
    );
  }

  if (config.kurrentEnabled) {
    if (config.kurrentAnonymousUser !== null && !(await users.get(config.kurrentAnonymousUser))) {
      throw new StartupError(
        "SERVICE_KURRENT_ANONYMOUS_USER",
        `user '${config.kurrentAnonymousUser}' does not exist (create it with ess user add)`,
      );
    }
    const kurrent = await listenAs("SERVICE_KURRENT_ADDRESS", config.kurrentAddress, () =>
      startKurrentListener({
        address: config.kurrentAddress,
        operations,
        subscriptions,
        anonymousUser: config.kurrentAnonymousUser,
        logger,
        tls,
      }),
    );
    listeners.push({ name: "kurrent", address: kurrent.address, close: () => kurrent.close(graceMs) });
  }
}

/**
 * Makes user `admin` on the first start of an empty store, and tells the operator what they need:
 * a generated password (printed once), or that SERVICE_ADMIN_PASSWORD was ignored.
 */
async function ensureAdmin(
  users: Users,
  engine: StorageEngine,
  config: Config,
  options: ServiceOptions,
): Promise<void> {
  const { logger } = options;
  const admin = await users.ensureAdmin(config.adminPassword);
  const print = options.printAdminPassword ?? ((line: string) => process.stderr.write(line + "\n"));
  if (admin.ignored !== null) {
    // One line a newcomer cannot miss: otherwise the login with this password just fails.
    const kind = engine.kind === "log" ? "data directory" : "database";
    const store = engine.kind === "log" ? `${kind} ${config.dataDir}` : kind;
    const problem =
      admin.ignored === "no_admin"
        ? "has users but no user 'admin'"
        : "has user 'admin' with another password";
    print(
      `ess: warning: SERVICE_ADMIN_PASSWORD is ignored: the ${store} ${problem}; the setting applies` +
        ` only on the first start of an empty ${kind}` +
        (engine.kind === "log"
          ? " (use a new SERVICE_DATA_DIR, or the password set on its first start)"
          : ""),
    );
  }
  if (admin.generatedPassword !== null) {
    print(
      `ess: created user 'admin' (tenant 'default', role admin) with password ${admin.generatedPassword}` +
        " -- it is shown only this once",
    );
  } else if (admin.created) {
    logger.info("created user admin with SERVICE_ADMIN_PASSWORD", { tenant_id: "default" });
  }
}

/** Starts a listener; failing to listen is a StartupError naming the address's setting. */
async function listenAs<T>(setting: string, address: ListenAddress, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    throw new StartupError(setting, `cannot listen on ${formatAddress(address)}: ${describe(error)}`);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    // grpc-js wraps the listen error: "No address added out of total 1 resolved errors: [...]".
    const inner = /errors: \[(?:listen )?([^\]]+)\]/.exec(error.message);
    if (inner?.[1]) return inner[1];
    // node:net's (the fast carrier listens itself): "listen EADDRINUSE: address already in use ...".
    if (error.message.startsWith("listen ")) return error.message.slice("listen ".length);
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}

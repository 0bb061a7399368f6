/**
 * The gRPC server: ess.v1.{Streams, Admin, Auth, Health}, grpc.health.v1.Health and server
 * reflection. It only translates (message <-> operation, EssError -> status: ./error-mapping.ts);
 * every rule lives in the operations. Each method is defined once, in the method table
 * (./methods/); the grpc-js carrier (./grpc-js-carrier.ts) serves every method, the fast carrier
 * (./fast-carrier/) the few where grpc-js's per-call cost was measured to matter (docs/rpc.md,
 * "Carriers"). Shutdown stops accepting calls, ends the long-lived streams and waits for the
 * calls in flight, so an accepted append is answered before the engine closes. What one client
 * connection can make the server hold is bounded (docs/rpc.md, "Per-connection bounds").
 */
import * as grpc from "@grpc/grpc-js";
import type { ListenAddress } from "../config/config.js";
import { formatAddress } from "../config/config.js";
import { limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { CallContext, Operations } from "../operations/contract.js";
import { ConnectionReadBudgets } from "./connection-read-budget.js";
import { FastConnections } from "./fast-carrier/connections.js";
import { fastStreamHandlers, startFastCarrier } from "./fast-carrier/fast-carrier.js";
import { createGrpcJsCarrier, forwardedPeerHeader } from "./grpc-js-carrier.js";
import { LongLivedCalls } from "./methods/long-lived-calls.js";
import { operationsAdmission, type Admission } from "./methods/admission.js";
import type { RpcMethod } from "./methods/method.js";
import type { SubscribeServer } from "./methods/subscribe.js";
import { methodTable } from "./methods/table.js";
import { receiveMessageBytesMax } from "./proto.js";
import { grpcServerCredentials } from "./tls-credentials.js";
import type { ServerTls } from "../tls/server-tls.js";

export type { SubscribeCall } from "./methods/subscribe.js";

export interface RpcServerOptions {
  operations: Operations;
  address: ListenAddress;
  logger: Logger;
  /**
   * Serves Streams.Subscribe (the subscription logic plugs in here); without it the RPC
   * answers UNIMPLEMENTED. It must end its subscription when the call ends.
   */
  subscribe?: SubscribeServer;
  /**
   * Streams.AppendSession and ReadSession check the session's token with it once at the start
   * and end the session when the token expires. Without it, a bad token fails the first
   * request instead.
   */
  authenticate?: (ctx: CallContext) => Promise<{ expires_at_ms: number }>;
  /** Requests run at once per AppendSession or ReadSession. Default limits.sessionInFlightMax. */
  sessionInFlightMax?: number;
  /**
   * False: grpc-js listens and serves every call itself, for diagnosis (SERVICE_RPC_FAST_CARRIER;
   * docs/rpc.md, "Carriers"). Default true.
   */
  fastCarrier?: boolean;
  /**
   * The TLS material (SERVICE_TLS_CERT_FILE, SERVICE_TLS_KEY_FILE): the port then serves gRPC
   * over TLS only, in either carrier mode, and follows the material's reloads. Default: plaintext.
   */
  tls?: ServerTls | null;
}

export interface RpcServer {
  /** The bound address (with the real port when port 0 was asked). */
  readonly address: ListenAddress;
  /**
   * Stops accepting calls, ends streaming calls, waits up to `graceMs` for the calls in
   * flight, then cuts what is left.
   */
  close(graceMs?: number): Promise<void>;
}

export async function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const ops = options.operations;
  const calls = new LongLivedCalls();
  const table = methodTable({
    ops,
    calls,
    subscribe: options.subscribe,
    authenticateSession: options.authenticate,
    sessionInFlightMax: options.sessionInFlightMax,
  });
  const readBudgets = new ConnectionReadBudgets(
    limits.rpcConnectionUnwrittenReadBytesMax,
    limits.readPageBytesMax,
  );
  const admission = operationsAdmission(ops);
  const fastCarrierOn = options.fastCarrier ?? true;
  const grpcServer = createGrpcJsCarrier(
    table.values(),
    { admission, readBudgets, behindHop: fastCarrierOn },
    options.logger,
  );
  const listener = fastCarrierOn
    ? await listenWithFastCarrier(options.address, table, grpcServer, {
        admission,
        readBudgets,
        tls: options.tls ?? null,
      })
    : await listenWithGrpcJs(options.address, grpcServer, grpcServerCredentials(options.tls ?? null));

  return {
    address: { host: options.address.host, port: listener.port },
    async close(graceMs = 30_000): Promise<void> {
      calls.stop();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          options.logger.warn("rpc calls still running after the grace period; cutting them", {
            grace_ms: graceMs,
          });
          listener.destroy();
          resolve();
        }, graceMs);
        void listener.close().then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/** What listens on the RPC port: the fast carrier (with grpc-js behind it), or grpc-js alone. */
interface Listener {
  readonly port: number;
  /** Stops accepting calls and resolves once the calls in flight are done. */
  close(): Promise<void>;
  /** Cuts what is left. */
  destroy(): void;
}

async function listenWithFastCarrier(
  address: ListenAddress,
  table: ReadonlyMap<string, RpcMethod>,
  grpcServer: grpc.Server,
  deps: { admission: Admission; readBudgets: ConnectionReadBudgets; tls: ServerTls | null },
): Promise<Listener> {
  const connections = new FastConnections(deps.readBudgets);
  // The hop's connections are in-process (./fast-carrier/hop.ts): plaintext whatever the port serves.
  const injector = grpcServer.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const carrier = await startFastCarrier({
    address,
    handlers: fastStreamHandlers(table, {
      connections,
      admission: deps.admission,
      receiveBytesMax: receiveMessageBytesMax,
    }),
    connections,
    forwardedPeerHeader,
    injectConnection: (connection) => injector.injectConnection(connection),
    tls: deps.tls,
  });
  return {
    port: carrier.port,
    close: () => Promise.all([carrier.close(), shutDownGrpcJs(grpcServer)]).then(() => undefined),
    destroy() {
      carrier.destroy();
      grpcServer.forceShutdown();
    },
  };
}

async function listenWithGrpcJs(
  address: ListenAddress,
  grpcServer: grpc.Server,
  credentials: grpc.ServerCredentials,
): Promise<Listener> {
  const port = await new Promise<number>((resolve, reject) => {
    grpcServer.bindAsync(formatAddress(address), credentials, (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
  return { port, close: () => shutDownGrpcJs(grpcServer), destroy: () => grpcServer.forceShutdown() };
}

function shutDownGrpcJs(grpcServer: grpc.Server): Promise<void> {
  return new Promise((resolve) => grpcServer.tryShutdown(() => resolve()));
}

/**
 * Starts the REST gateway on an address and stops it. The service start-up (`ess serve`) calls
 * this with its in-process operations when SERVICE_REST_ENABLED=true; `ess gateway` calls it with
 * a gRPC client of a remote RPC server. Both give the same app, so both answer the same.
 */
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { ListenAddress } from "../config/config.js";
import type { Operations } from "../operations/contract.js";
import { buildRestApp, type RestAppOptions } from "./app.js";

export interface RestServer {
  app: FastifyInstance;
  /** The bound address (the real port when 0 was asked for). */
  address: ListenAddress;
  /** Stops accepting, answers requests still arriving with 503 UNAVAILABLE, waits for the rest. */
  close(): Promise<void>;
}

export async function startRestServer(
  operations: Operations,
  address: ListenAddress,
  options: RestAppOptions = {},
): Promise<RestServer> {
  const app = buildRestApp(operations, options);
  try {
    await app.listen({ host: address.host, port: address.port });
  } catch (error) {
    await app.close();
    throw error;
  }
  const bound = app.server.address() as AddressInfo;
  return {
    app,
    address: { host: address.host, port: bound.port },
    close: () => app.close(),
  };
}

/**
 * The metrics listener (SERVICE_METRICS_ADDRESS): `GET /metrics` answers the Prometheus text
 * format; every other path or method is 404 (405 for another method on /metrics). It has no
 * authentication: bind it to a private address (docs/operations.md). It is a listener of its
 * own so that it can be bound apart from the public ones and never shares their limits.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { ListenAddress } from "../config/config.js";
import type { Logger } from "../logger.js";
import type { ServiceMetrics } from "./metrics.js";

export interface MetricsServer {
  readonly address: ListenAddress;
  close(): Promise<void>;
}

export async function startMetricsServer(
  metrics: ServiceMetrics,
  address: ListenAddress,
  logger: Logger,
): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { "content-type": "text/plain; charset=utf-8", allow: "GET, HEAD" });
      response.end("method not allowed\n");
      return;
    }
    metrics.exposition().then(
      ({ text, contentType }) => {
        response.writeHead(200, { "content-type": contentType });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        logger.error("metrics scrape failed", {
          error: error instanceof Error ? error.message : String(error),
        });
        response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("metrics failed\n");
      },
    );
  });
  // A scraper keeps its connection open between scrapes; closing must not wait for it.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address.port, address.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    address: { host: address.host, port: bound.port },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The load generator of bench/rest-bench.ts, run as its own process so that it does not share
 * an event loop with the server: autocannon against one REST route for a fixed time, printing
 * one JSON line with the answers per second and the latency percentiles.
 *
 * Usage: node dist/bench/rest-load.js '<json LoadSpec>'
 */
import autocannon from "autocannon";

export interface LoadSpec {
  url: string;
  token: string;
  kind: "append" | "read100";
  connections: number;
  seconds: number;
  /** For read100: the stream to read (it holds at least 1,000 events). */
  stream?: string;
}

export interface LoadResult {
  requests: number;
  per_second: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non_2xx: number;
  errors: number;
}

const payload = JSON.stringify({
  order_id: "o-123456",
  amount_cents: 4250,
  currency: "EUR",
  lines: [{ sku: "a-1", qty: 2 }],
});

function requestFor(spec: LoadSpec): autocannon.Request {
  if (spec.kind === "append") {
    let n = 0;
    return {
      method: "POST",
      // One stream per connection slot, as the RPC benchmark does per worker.
      setupRequest: (request) => ({
        ...request,
        path: `/v1/streams/append-${spec.connections}-${n++ % spec.connections}/append`,
      }),
      body: `{"event_type":"OrderPlaced","data":${payload}}`,
    };
  }
  return {
    method: "GET",
    setupRequest: (request) => ({
      ...request,
      path: `/v1/streams/${spec.stream ?? "read-bench"}?from=${Math.floor(Math.random() * 900)}&limit=100`,
    }),
  };
}

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec;
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.seconds,
  headers: { authorization: `Bearer ${spec.token}`, "content-type": "application/json" },
  requests: [requestFor(spec)],
});
const out: LoadResult = {
  requests: result.requests.total,
  per_second: Math.round(result.requests.total / spec.seconds),
  latency_p50_ms: result.latency.p50,
  latency_p99_ms: result.latency.p99,
  non_2xx: result.non2xx,
  errors: result.errors,
};
process.stdout.write(JSON.stringify(out) + "\n");

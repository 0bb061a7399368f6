// The metrics listener (SERVICE_METRICS_ENABLED) on the log engine: /metrics in the Prometheus
// text format and nothing else on it; every request counted once, by interface, operation and
// outcome, whichever interface carried it (REST, gRPC through the fast carrier and through
// grpc-js behind the hop); appends, events and bytes written; fsync and group commit; reads;
// logins; verify runs; storage gauges; live subscriptions. A listen address that cannot be had
// stops start-up naming SERVICE_METRICS_ADDRESS.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import * as grpc from "@grpc/grpc-js";
import { formatAddress, loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import { proto } from "../../src/rpc/proto.js";
import { startService, StartupError } from "../../src/service.js";
import { startTestService, type TestService } from "../rpc/service-harness.js";
import { metricsUrl, sample, scrape } from "./scrape.js";

let ts: TestService;
let restUrl: string;

before(async () => {
  ts = await startTestService({
    SERVICE_REST_ENABLED: "true",
    SERVICE_REST_ADDRESS: "127.0.0.1:0",
    SERVICE_WS_ENABLED: "true",
    SERVICE_WS_ADDRESS: "127.0.0.1:0",
    SERVICE_METRICS_ENABLED: "true",
    SERVICE_METRICS_ADDRESS: "127.0.0.1:0",
  });
  restUrl = `http://${formatAddress(ts.service.listeners.find((l) => l.name === "rest")!.address)}`;
});

after(() => ts?.close());

function restAppend(token: string, streamId: string, body: string): Promise<Response> {
  return fetch(`${restUrl}/v1/streams/${streamId}/append`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  });
}

/** A gRPC Append with gzip compression: the fast carrier hands it to grpc-js through the hop. */
function compressedAppend(token: string, streamId: string): Promise<void> {
  const client = new proto.ess.v1.Streams(ts.address, grpc.credentials.createInsecure(), {
    "grpc.default_compression_algorithm": 2,
  });
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return new Promise((resolve, reject) =>
    client.Append(
      { stream_id: streamId, events: [{ event_type: "E", data: Buffer.from('{"n":3}') }] },
      metadata,
      (error) => {
        client.close();
        if (error) reject(error);
        else resolve();
      },
    ),
  );
}

test("/metrics answers the Prometheus text format; every other path is 404, another method 405", async () => {
  const base = metricsUrl(ts.service);
  const response = await fetch(`${base}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  assert.match(text, /^# HELP ess_requests_total /m);
  assert.match(text, /^# TYPE ess_request_duration_seconds histogram$/m);
  assert.match(text, /^# TYPE ess_fsync_duration_seconds histogram$/m);
  // prom-client's default process metrics, under their usual names.
  assert.ok(sample(text, "process_cpu_seconds_total") !== null);
  assert.ok(sample(text, "nodejs_heap_size_used_bytes") !== null);
  // Every pair of a network interface and an operation is there from the start, at 0.
  assert.equal(
    sample(text, "ess_requests_total", { interface: "ws", operation: "Admin.Verify", outcome: "ok" }),
    0,
  );

  for (const path of ["/", "/metrics/", "/v1/health", "/metricsx"]) {
    const other = await fetch(`${base}${path}`);
    assert.equal(other.status, 404, path);
    await other.body?.cancel();
  }
  const post = await fetch(`${base}/metrics`, { method: "POST" });
  assert.equal(post.status, 405);
  await post.body?.cancel();
});

test("requests are counted once each, by interface, operation and outcome, with their latency", async () => {
  const writer = await ts.userContext("metrics-writer", "acme", "writer");
  const token = writer.token!;
  const before = await scrape(ts.service);
  const count = (text: string, iface: string, operation: string, outcome = "ok") =>
    sample(text, "ess_requests_total", { interface: iface, operation, outcome }) ?? 0;

  // gRPC through the fast carrier: two appends of 1 and 2 events, and a read.
  await ts.client.append(writer, { stream_id: "m-1", events: [{ event_type: "E", data: { n: 1 } }] });
  await ts.client.append(writer, {
    stream_id: "m-1",
    events: [
      { event_type: "E", data: { n: 2 }, metadata: { m: 1 } },
      { event_type: "E", data: { n: 22 } },
    ],
  });
  const page = await ts.client.read(writer, { stream_id: "m-1" });
  assert.equal(page.events.length, 3);
  // gRPC through grpc-js behind the hop.
  await compressedAppend(token, "m-2");
  // REST: one append, one read, one append refused for its token, one refused by the schema.
  assert.equal(
    (await restAppend(token, "m-2", '{"events":[{"event_type":"E","data":{"n":4}}]}')).status,
    200,
  );
  const read = await fetch(`${restUrl}/v1/streams/m-2`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(read.status, 200);
  await read.body?.cancel();
  const badToken = await restAppend("not-a-token", "m-2", '{"events":[]}');
  assert.equal(badToken.status, 401);
  await badToken.body?.cancel();
  const badBody = await restAppend(token, "m-2", '{"events":"no"}');
  assert.equal(badBody.status, 400);
  await badBody.body?.cancel();
  // gRPC refused at admission (no token).
  await assert.rejects(
    ts.client.append({ token: "bad" }, { stream_id: "m-3", events: [{ event_type: "E", data: {} }] }),
    /UNAUTHENTICATED|token/,
  );

  const after = await scrape(ts.service);
  const delta = (iface: string, operation: string, outcome = "ok") =>
    count(after, iface, operation, outcome) - count(before, iface, operation, outcome);
  assert.equal(delta("grpc", "Streams.Append"), 3);
  assert.equal(delta("grpc", "Streams.Read"), 1);
  assert.equal(delta("grpc", "Streams.Append", "UNAUTHENTICATED"), 1);
  assert.equal(delta("rest", "Streams.Append"), 1);
  assert.equal(delta("rest", "Streams.Read"), 1);
  assert.equal(delta("rest", "Streams.Append", "UNAUTHENTICATED"), 1);
  assert.equal(delta("rest", "Streams.Append", "INVALID_ARGUMENT"), 1);
  // The interfaces' token checks before a call are not requests of their own.
  assert.equal(delta("rest", "Auth.WhoAmI"), 0);
  assert.equal(delta("grpc", "Auth.WhoAmI"), 0);
  // The latency histogram holds each request the operations ran.
  const histogramCount = (text: string) =>
    sample(text, "ess_request_duration_seconds_count", {
      interface: "grpc",
      operation: "Streams.Append",
      outcome: "ok",
    }) ?? 0;
  assert.equal(histogramCount(after) - histogramCount(before), 3);
  const inf = sample(after, "ess_request_duration_seconds_bucket", {
    interface: "grpc",
    operation: "Streams.Append",
    outcome: "ok",
    le: "+Inf",
  });
  assert.equal(inf, histogramCount(after));

  const counter = (name: string) => (sample(after, name) ?? 0) - (sample(before, name) ?? 0);
  assert.equal(counter("ess_appends_total"), 4);
  assert.equal(counter("ess_events_written_total"), 5);
  // Data and metadata as stored, metadata {} where none was sent: {"n":1}{} {"n":2}{"m":1}
  // {"n":22}{} {"n":3}{} {"n":4}{}.
  assert.equal(counter("ess_bytes_written_total"), 9 + 14 + 10 + 9 + 9);
  assert.equal(counter("ess_reads_total"), 2);
  assert.equal(counter("ess_events_read_total"), 3 + 2);
  // One fdatasync per group; the groups held the four appends.
  assert.equal(counter("ess_group_commit_appends_sum"), 4);
  assert.ok(counter("ess_fsync_duration_seconds_count") >= 1);
  assert.equal(counter("ess_fsync_duration_seconds_count"), counter("ess_group_commit_appends_count"));
  assert.ok((sample(after, "ess_storage_events") ?? 0) >= 5);
  assert.ok((sample(after, "ess_storage_segments") ?? 0) >= 1);
  assert.ok((sample(after, "ess_storage_size_bytes") ?? 0) > 0);
  assert.ok((sample(after, "ess_storage_disk_free_bytes") ?? 0) > 0);
});

test("failed logins, verify runs, subscribe requests and live subscriptions are counted", async () => {
  const before = await scrape(ts.service);
  await assert.rejects(ts.client.login({ token: null }, { username: "admin", password: "wrong-password" }));
  await ts.client.verify(ts.admin);

  const wsAddress = formatAddress(ts.service.listeners.find((l) => l.name === "ws")!.address);
  const socket = new WebSocket(`ws://${wsAddress}/v1/subscribe`, {
    headers: { authorization: `Bearer ${ts.admin.token}` },
  });
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const caughtUp = new Promise((resolve) =>
    socket.on("message", (data: Buffer) => {
      if ((JSON.parse(data.toString()) as { type: string }).type === "caught_up") resolve(undefined);
    }),
  );
  socket.send(JSON.stringify({ type: "subscribe", id: "s", stream: "m-1" }));
  await caughtUp;
  const during = await scrape(ts.service);
  socket.close();
  await new Promise((resolve) => socket.once("close", resolve));

  const counter = (name: string, labels: Record<string, string> = {}) =>
    (sample(during, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
  assert.equal(counter("ess_login_failures_total"), 1);
  assert.equal(
    counter("ess_requests_total", { interface: "grpc", operation: "Auth.Login", outcome: "UNAUTHENTICATED" }),
    1,
  );
  assert.equal(counter("ess_verify_runs_total", { outcome: "ok" }), 1);
  assert.equal(sample(during, "ess_subscriptions_live"), 1);
  assert.equal(
    counter("ess_requests_total", { interface: "ws", operation: "Streams.Subscribe", outcome: "ok" }),
    1,
  );
  assert.ok(sample(during, "ess_subscription_buffered_bytes") !== null);
});

test("a metrics address that cannot be listened on stops start-up, naming SERVICE_METRICS_ADDRESS", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const port = (taken.address() as { port: number }).port;
  const dataDir = await mkdtemp(join(tmpdir(), "ess-metrics-"));
  try {
    const config = loadConfig({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_RPC_ADDRESS: "127.0.0.1:0",
      SERVICE_METRICS_ENABLED: "true",
      SERVICE_METRICS_ADDRESS: `127.0.0.1:${port}`,
      SERVICE_ADMIN_PASSWORD: "admin-password-1",
    });
    await assert.rejects(
      startService(config, { logger: createLogger({}, 100), stopGraceMs: 1000 }),
      (error) => {
        assert.ok(error instanceof StartupError);
        assert.equal(error.setting, "SERVICE_METRICS_ADDRESS");
        assert.match(
          error.message,
          /^SERVICE_METRICS_ADDRESS: cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/,
        );
        return true;
      },
    );
  } finally {
    taken.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

// The metrics on the PostgreSQL engine: requests, appends and reads counted as on the log
// engine, each batch's transaction timed (ess_postgres_commit_duration_seconds, no fsync
// histogram samples) with its appends in the group-commit histogram, and the storage gauges.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTestDatabase, type TestDatabase } from "../storage/postgres-test-database.js";
import { startTestService, type TestService } from "../rpc/service-harness.js";
import { sample, scrape } from "./scrape.js";

let db: TestDatabase;
let ts: TestService;

before(async () => {
  db = await createTestDatabase();
  ts = await startTestService({
    SERVICE_STORAGE: "postgres",
    SERVICE_POSTGRES_URL: db.url,
    SERVICE_METRICS_ENABLED: "true",
    SERVICE_METRICS_ADDRESS: "127.0.0.1:0",
  });
});

after(async () => {
  await ts?.close();
  await db?.drop();
});

test("postgres: requests, appends, commits and reads arrive in /metrics", async () => {
  const before = await scrape(ts.service);
  await Promise.all(
    [1, 2, 3].map((n) =>
      ts.client.append(ts.admin, {
        stream_id: `pg-m-${n}`,
        events: [{ event_type: "E", data: { n } }],
      }),
    ),
  );
  const page = await ts.client.readAll(ts.admin, {});
  await assert.rejects(ts.client.read(ts.admin, { stream_id: "pg-m-missing" }));
  const after = await scrape(ts.service);

  const delta = (name: string, labels: Record<string, string> = {}) =>
    (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
  assert.equal(
    delta("ess_requests_total", { interface: "grpc", operation: "Streams.Append", outcome: "ok" }),
    3,
  );
  assert.equal(
    delta("ess_requests_total", {
      interface: "grpc",
      operation: "Streams.Read",
      outcome: "STREAM_NOT_FOUND",
    }),
    1,
  );
  assert.equal(delta("ess_appends_total"), 3);
  assert.equal(delta("ess_events_written_total"), 3);
  assert.equal(delta("ess_group_commit_appends_sum"), 3);
  const commits = delta("ess_postgres_commit_duration_seconds_count");
  assert.ok(commits >= 1 && commits <= 3, String(commits));
  assert.equal(delta("ess_fsync_duration_seconds_count"), 0);
  assert.equal(delta("ess_reads_total"), 1);
  assert.equal(delta("ess_events_read_total"), page.events.length);
  assert.ok((sample(after, "ess_storage_events") ?? 0) >= 3);
  assert.equal(sample(after, "ess_storage_segments"), 0);
});

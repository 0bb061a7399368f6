// Jobs on the postgres engine, with two service processes' worth of nodes sharing one database:
// verify and scavenge jobs give the synchronous RPCs' results with progress in bytes and
// streams; each node knows only its own jobs; and a real scavenge job is refused with
// SCAVENGE_IN_PROGRESS while any node holds the scavenge lock.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import type { Job } from "../../src/contract/bodies.js";
import type { CallContext } from "../../src/operations/contract.js";
import type { RpcClient } from "../../src/client/rpc-client.js";
import { scavengeLockArgs } from "../../src/storage/postgres/scavenge.js";
import { appendScavengeWork, scavengeWorkHidden } from "../helpers/scavenge-gate.js";
import { createTestDatabase, type TestDatabase } from "../storage/postgres-test-database.js";
import { startTestService, type TestService } from "./service-harness.js";

let db: TestDatabase;
let nodeA: TestService;
let nodeB: TestService;

before(async () => {
  db = await createTestDatabase();
  const settings = { SERVICE_STORAGE: "postgres", SERVICE_POSTGRES_URL: db.url };
  nodeA = await startTestService(settings);
  nodeB = await startTestService(settings);
  const writer = await nodeA.userContext("pg-jobs-writer", "acme", "writer");
  await appendScavengeWork(
    (stream_id, events) => nodeA.client.append(writer, { stream_id, events }),
    (stream_id, max_count) => nodeA.client.setRetention(writer, { stream_id, max_count }),
  );
});

after(async () => {
  await nodeA?.close();
  await nodeB?.close();
  await db?.drop();
});

async function untilFinished(client: RpcClient, ctx: CallContext, jobId: string): Promise<Job> {
  for (let polls = 0; polls < 2000; polls++) {
    const job = await client.getJob(ctx, { job_id: jobId });
    if (job.state === "done" || job.state === "failed") return job;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.fail(`job ${jobId} did not finish`);
}

test("verify and scavenge jobs on postgres give the synchronous results, with progress in bytes and streams", async () => {
  const { client, admin } = nodeA;
  const verify = await untilFinished(
    client,
    admin,
    (await client.startJob(admin, { kind: "verify" })).job_id,
  );
  assert.equal(verify.state, "done", JSON.stringify(verify));
  const synchronousVerify = await client.verify(admin);
  assert.deepEqual({ ...verify.result, duration_ms: 0 }, { ...synchronousVerify, duration_ms: 0 });
  assert.equal(verify.progress.unit, "bytes");
  assert.ok(verify.progress.total > 0 && verify.progress.done === verify.progress.total);

  const dry = await untilFinished(
    client,
    admin,
    (await client.startJob(admin, { kind: "scavenge", dry_run: true })).job_id,
  );
  const synchronousDry = await client.scavenge(admin, { dry_run: true });
  assert.deepEqual({ ...dry.result, duration_ms: 0 }, { ...synchronousDry, duration_ms: 0 });
  assert.deepEqual(
    synchronousDry.streams?.map((s) => [s.tenant_id, s.stream_id, s.events_removed]),
    [["acme", "old", scavengeWorkHidden]],
  );
  assert.deepEqual(dry.progress, { done: 1, total: 1, unit: "streams" });

  const real = await untilFinished(
    client,
    admin,
    (await client.startJob(admin, { kind: "scavenge", confirm: true })).job_id,
  );
  assert.equal(real.state, "done", JSON.stringify(real));
  assert.equal((real.result as { events_removed: number }).events_removed, scavengeWorkHidden);
  assert.deepEqual(real.progress, { done: 1, total: 1, unit: "streams" });
  assert.equal((await client.scavenge(admin, { dry_run: true })).events_removed, 0);
});

test("each node knows only its own jobs", async () => {
  const job = await nodeA.client.startJob(nodeA.admin, { kind: "verify" });
  await untilFinished(nodeA.client, nodeA.admin, job.job_id);
  await assert.rejects(nodeB.client.getJob(nodeB.admin, { job_id: job.job_id }), { code: "JOB_NOT_FOUND" });
  assert.ok(!(await nodeB.client.listJobs(nodeB.admin, {})).jobs.some((j) => j.job_id === job.job_id));
});

test("a real scavenge job is refused with SCAVENGE_IN_PROGRESS while another node holds the scavenge lock, and starts no job", async () => {
  const holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  try {
    await holder.query(`SELECT pg_advisory_lock(${scavengeLockArgs})`);
    const before = (await nodeB.client.listJobs(nodeB.admin, {})).jobs.length;
    await assert.rejects(nodeB.client.startJob(nodeB.admin, { kind: "scavenge", confirm: true }), {
      code: "SCAVENGE_IN_PROGRESS",
    });
    assert.equal((await nodeB.client.listJobs(nodeB.admin, {})).jobs.length, before);
    // A dry run takes no lock.
    const dry = await nodeB.client.startJob(nodeB.admin, { kind: "scavenge", dry_run: true });
    assert.equal((await untilFinished(nodeB.client, nodeB.admin, dry.job_id)).state, "done");
    await holder.query(`SELECT pg_advisory_unlock(${scavengeLockArgs})`);
    const real = await nodeB.client.startJob(nodeB.admin, { kind: "scavenge", confirm: true });
    assert.equal((await untilFinished(nodeB.client, nodeB.admin, real.job_id)).state, "done");
  } finally {
    await holder.end();
  }
});

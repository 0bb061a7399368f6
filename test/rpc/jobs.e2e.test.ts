// Jobs over gRPC (Admin.StartJob, GetJob, ListJobs) against a whole service on the log engine:
// results equal to the synchronous RPCs', errors as gRPC statuses with their error-code trailer,
// and the registry's two bounds (unfinished jobs, finished jobs kept) on a real server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { limits } from "../../src/limits.js";
import type { Job } from "../../src/contract/bodies.js";
import type { CallContext } from "../../src/operations/contract.js";
import type { RpcClient } from "../../src/client/rpc-client.js";
import { appendScavengeWork, scavengeGate, scavengeWorkHidden } from "../helpers/scavenge-gate.js";
import { startTestService, type TestService } from "./service-harness.js";

async function untilFinished(client: RpcClient, ctx: CallContext, jobId: string): Promise<Job> {
  for (let polls = 0; polls < 2000; polls++) {
    const job = await client.getJob(ctx, { job_id: jobId });
    if (job.state === "done" || job.state === "failed") return job;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.fail(`job ${jobId} did not finish`);
}

/** A raw Admin call: the gRPC status and error-code trailer a client sees, or null on success. */
function rawAdminCall(
  ts: TestService,
  method: "StartJob" | "GetJob" | "ListJobs",
  request: object,
  ctx: CallContext | null,
): Promise<{ code: grpc.status; errorCode: unknown; retryAfter: unknown } | null> {
  const admin = ts.client.grpc.admin as unknown as Record<
    string,
    (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null) => void) => void
  >;
  return new Promise((resolve) =>
    admin[method]!.call(ts.client.grpc.admin, request, ts.client.metadataFor(ctx), (error) =>
      resolve(
        error === null
          ? null
          : {
              code: error.code,
              errorCode: error.metadata.get("error-code")[0],
              retryAfter: error.metadata.get("retry-after")[0],
            },
      ),
    ),
  );
}

async function storeWithWork(ts: TestService): Promise<CallContext> {
  const writer = await ts.userContext("jobs-writer", "acme", "writer");
  await appendScavengeWork(
    (stream_id, events) => ts.client.append(writer, { stream_id, events }),
    (stream_id, max_count) => ts.client.setRetention(writer, { stream_id, max_count }),
  );
  return writer;
}

test("jobs over gRPC give the synchronous RPCs' results, and refusals carry their codes", async () => {
  const gate = scavengeGate();
  const ts = await startTestService({}, gate.engineOptions);
  try {
    const writer = await storeWithWork(ts);
    const verify = await ts.client.startJob(ts.admin, { kind: "verify" });
    assert.equal(verify.state, "queued");
    const verified = await untilFinished(ts.client, ts.admin, verify.job_id);
    assert.equal(verified.state, "done");
    assert.deepEqual(
      { ...verified.result, duration_ms: 0 },
      { ...(await ts.client.verify(ts.admin)), duration_ms: 0 },
    );
    const dry = await untilFinished(
      ts.client,
      ts.admin,
      (await ts.client.startJob(ts.admin, { kind: "scavenge", dry_run: true })).job_id,
    );
    const synchronousDry = await ts.client.scavenge(ts.admin, { dry_run: true });
    assert.deepEqual({ ...dry.result, duration_ms: 0 }, { ...synchronousDry, duration_ms: 0 });
    assert.equal(synchronousDry.streams?.[0]?.events_removed, scavengeWorkHidden);

    const held = gate.hold();
    const real = await ts.client.startJob(ts.admin, { kind: "scavenge", confirm: true });
    await held.paused;
    try {
      assert.deepEqual(await rawAdminCall(ts, "StartJob", { kind: "scavenge", confirm: true }, ts.admin), {
        code: grpc.status.ABORTED,
        errorCode: "SCAVENGE_IN_PROGRESS",
        retryAfter: undefined,
      });
    } finally {
      held.release();
    }
    const scavenged = await untilFinished(ts.client, ts.admin, real.job_id);
    assert.equal(scavenged.state, "done");
    assert.equal((scavenged.result as { events_removed: number }).events_removed, scavengeWorkHidden);

    const refusals: [string, object, CallContext | null, grpc.status, string][] = [
      ["StartJob", { kind: "defragment" }, ts.admin, grpc.status.INVALID_ARGUMENT, "INVALID_ARGUMENT"],
      ["StartJob", { kind: "scavenge" }, ts.admin, grpc.status.INVALID_ARGUMENT, "CONFIRMATION_REQUIRED"],
      ["StartJob", { kind: "verify" }, null, grpc.status.UNAUTHENTICATED, "UNAUTHENTICATED"],
      ["StartJob", { kind: "verify" }, writer, grpc.status.PERMISSION_DENIED, "PERMISSION_DENIED"],
      ["ListJobs", {}, writer, grpc.status.PERMISSION_DENIED, "PERMISSION_DENIED"],
      ["GetJob", { job_id: randomUUID() }, ts.admin, grpc.status.NOT_FOUND, "JOB_NOT_FOUND"],
      ["GetJob", { job_id: "nope" }, ts.admin, grpc.status.INVALID_ARGUMENT, "INVALID_ARGUMENT"],
    ];
    for (const [method, request, ctx, code, errorCode] of refusals) {
      const outcome = await rawAdminCall(ts, method as "StartJob", request, ctx);
      assert.deepEqual(
        outcome,
        { code, errorCode, retryAfter: undefined },
        `${method} ${JSON.stringify(request)}`,
      );
    }
    const listed = await ts.client.listJobs(ts.admin, {});
    assert.deepEqual(
      listed.jobs.map((j) => j.job_id),
      [real.job_id, dry.job_id, verify.job_id],
      "refused jobs were never started; newest first",
    );
  } finally {
    await ts.close();
  }
});

test("at most jobsUnfinishedMax jobs are unfinished: behind a held scavenge, verify jobs queue and the next is RATE_LIMITED", async () => {
  const gate = scavengeGate();
  const ts = await startTestService({}, gate.engineOptions);
  try {
    await storeWithWork(ts);
    const held = gate.hold();
    const real = await ts.client.startJob(ts.admin, { kind: "scavenge", confirm: true });
    await held.paused;
    const queued: Job[] = [];
    try {
      // The log engine runs verify and scavenge one at a time: these wait behind the held run.
      for (let i = 1; i < limits.jobsUnfinishedMax; i++)
        queued.push(await ts.client.startJob(ts.admin, { kind: "verify" }));
      for (const job of queued)
        assert.equal((await ts.client.getJob(ts.admin, { job_id: job.job_id })).state, "queued");
      assert.deepEqual(await rawAdminCall(ts, "StartJob", { kind: "verify" }, ts.admin), {
        code: grpc.status.RESOURCE_EXHAUSTED,
        errorCode: "RATE_LIMITED",
        retryAfter: "1",
      });
    } finally {
      held.release();
    }
    for (const job of [real, ...queued])
      assert.equal((await untilFinished(ts.client, ts.admin, job.job_id)).state, "done");
    // Once they have finished, jobs can be started again.
    await untilFinished(ts.client, ts.admin, (await ts.client.startJob(ts.admin, { kind: "verify" })).job_id);
  } finally {
    await ts.close();
  }
});

test("at most jobsFinishedMax finished jobs are kept: the one that finished first is then JOB_NOT_FOUND", async () => {
  const ts = await startTestService();
  try {
    const ids: string[] = [];
    for (let i = 0; i <= limits.jobsFinishedMax; i++) {
      const job = await ts.client.startJob(ts.admin, { kind: "scavenge", dry_run: true });
      await untilFinished(ts.client, ts.admin, job.job_id);
      ids.push(job.job_id);
    }
    await assert.rejects(ts.client.getJob(ts.admin, { job_id: ids[0]! }), { code: "JOB_NOT_FOUND" });
    assert.equal((await ts.client.getJob(ts.admin, { job_id: ids[1]! })).state, "done");
    const listed = await ts.client.listJobs(ts.admin, { limit: 1000 });
    assert.deepEqual(
      listed.jobs.map((j) => j.job_id),
      ids.slice(1).reverse(),
    );
    assert.equal(listed.next_cursor, null);
  } finally {
    await ts.close();
  }
});

/**
 * Jobs over REST (docs/rest.md "Jobs") end to end, in both gateway modes: the real service on
 * the log engine with small segments, real HTTP. A job runs to done with moving progress and
 * the result its synchronous route gives; a real scavenge is held between two segments (a test
 * hook of the engine) to see it running and to be refused a second one.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Job } from "../../src/contract/bodies.js";
import { appendScavengeWork, scavengeGate, scavengeWorkHidden } from "../helpers/scavenge-gate.js";
import {
  adminPassword,
  expectError,
  expectOk,
  gatewayModes,
  http,
  login,
  startTarget,
  type RestTarget,
} from "./harness.js";

const withoutDuration = (result: unknown) => ({ ...(result as object), duration_ms: 0 });

for (const mode of gatewayModes) {
  describe(`jobs over REST (${mode})`, () => {
    const gate = scavengeGate();
    let target: RestTarget;
    let admin: string;
    let writer: string;

    before(async () => {
      target = await startTarget(mode, gate.engineOptions);
      admin = await login(target, "admin", adminPassword);
      await http(target, "POST", "/v1/admin/users", {
        token: admin,
        body: {
          username: "jobs-writer",
          password: "jobs-writer-password",
          tenant_id: "acme",
          role: "writer",
        },
      });
      writer = await login(target, "jobs-writer", "jobs-writer-password");
      await appendScavengeWork(
        (stream, events) =>
          http(target, "POST", `/v1/streams/${stream}/append`, { token: writer, body: { events } }),
        (stream, max_count) =>
          http(target, "PUT", `/v1/streams/${stream}/retention`, { token: writer, body: { max_count } }),
      );
    });
    after(async () => {
      await target?.stop();
    });

    const start = (body: unknown, token: string | null = admin) =>
      http(target, "POST", "/v1/admin/jobs", { token, body });
    const get = async (id: string): Promise<Job> =>
      expectOk<Job>(await http(target, "GET", `/v1/admin/jobs/${id}`, { token: admin }), "Job");
    /** Polls the job until it is done or failed; every answer it sees goes in `seen`. */
    async function untilFinished(id: string, seen: Job[] = []): Promise<Job> {
      for (let polls = 0; polls < 2000; polls++) {
        const job = await get(id);
        seen.push(job);
        if (job.state === "done" || job.state === "failed") return job;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.fail(`job ${id} did not finish`);
    }

    test("a verify job answers 202 queued, runs to done with its progress in bytes, and its result is the synchronous verify's", async () => {
      const started = expectOk<Job>(await start({ kind: "verify" }), "Job", 202);
      assert.match(started.job_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.deepEqual(
        { ...started, job_id: "", created_at: "" },
        {
          job_id: "",
          kind: "verify",
          dry_run: false,
          state: "queued",
          progress: { done: 0, total: 0, unit: "bytes" },
          created_at: "",
          started_at: null,
          finished_at: null,
          result: null,
          error: null,
        },
      );
      const seen: Job[] = [];
      const done = await untilFinished(started.job_id, seen);
      assert.equal(done.state, "done", JSON.stringify(done));
      const synchronous = expectOk(
        await http(target, "GET", "/v1/admin/verify", { token: admin }),
        "VerifyResult",
      );
      assert.deepEqual(withoutDuration(done.result), withoutDuration(synchronous));
      const verified = done.result as { ok: boolean; bytes_checked: number };
      assert.equal(verified.ok, true);
      assert.deepEqual(done.progress, {
        done: verified.bytes_checked,
        total: verified.bytes_checked,
        unit: "bytes",
      });
      assert.ok(done.started_at !== null && done.finished_at !== null);
      assert.ok(done.created_at <= done.started_at && done.started_at <= done.finished_at);
      for (const job of seen) assert.ok(job.progress.done <= job.progress.total);
      const listed = expectOk<{ jobs: Job[] }>(
        await http(target, "GET", "/v1/admin/jobs", { token: admin }),
        "JobList",
      );
      assert.deepEqual(
        listed.jobs.find((j) => j.job_id === started.job_id),
        done,
      );
    });

    test("a scavenge dry-run job lists the streams affected and gives what the synchronous dry run gives", async () => {
      const started = expectOk<Job>(await start({ kind: "scavenge", dry_run: true }), "Job", 202);
      assert.equal(started.dry_run, true);
      const done = await untilFinished(started.job_id);
      assert.equal(done.state, "done");
      const synchronous = expectOk(
        await http(target, "POST", "/v1/admin/scavenge", { token: admin, body: { dry_run: true } }),
        "ScavengeResult",
      );
      assert.deepEqual(withoutDuration(done.result), withoutDuration(synchronous));
      const result = done.result as { events_removed: number; streams: unknown[] };
      assert.equal(result.events_removed, scavengeWorkHidden);
      assert.deepEqual(result.streams, [
        {
          stream_id: "old",
          tenant_id: "acme",
          events_removed: scavengeWorkHidden,
          bytes_reclaimed: (synchronous as { bytes_reclaimed: number }).bytes_reclaimed,
        },
      ]);
    });

    test("a real scavenge job shows its progress in segments while it runs; a second real scavenge meanwhile is 409", async () => {
      const held = gate.hold();
      const started = expectOk<Job>(await start({ kind: "scavenge", confirm: true }), "Job", 202);
      assert.deepEqual([started.kind, started.dry_run], ["scavenge", false]);
      await held.paused;
      try {
        const running = await get(started.job_id);
        assert.equal(running.state, "running");
        assert.equal(running.progress.unit, "segments");
        assert.equal(running.progress.done, 1, "one segment rewritten, held before the second");
        assert.ok(running.progress.total >= 2, JSON.stringify(running.progress));
        assert.notEqual(running.started_at, null);
        assert.equal(running.finished_at, null);

        expectError(await start({ kind: "scavenge", confirm: true }), 409, "SCAVENGE_IN_PROGRESS");
        expectError(
          await http(target, "POST", "/v1/admin/scavenge", { token: admin, body: { confirm: true } }),
          409,
          "SCAVENGE_IN_PROGRESS",
        );
        // A dry run is no real run: it is not refused.
        expectOk(await start({ kind: "scavenge", dry_run: true }), "Job", 202);
      } finally {
        held.release();
      }
      const seen: Job[] = [];
      const done = await untilFinished(started.job_id, seen);
      assert.equal(done.state, "done", JSON.stringify(done));
      assert.equal(done.progress.done, done.progress.total);
      const result = done.result as { dry_run: boolean; events_removed: number; streams?: unknown };
      assert.equal(result.dry_run, false);
      assert.equal(result.events_removed, scavengeWorkHidden);
      assert.equal(result.streams, undefined, "a real run lists no streams");
      const after = expectOk(
        await http(target, "POST", "/v1/admin/scavenge", { token: admin, body: { dry_run: true } }),
        "ScavengeResult",
      );
      assert.equal((after as { events_removed: number }).events_removed, 0, "nothing left to remove");
    });

    test("refusals: 400 for a bad kind, a real scavenge without confirm (nothing started) or a bad id, 401 before the body is read, 403, 404", async () => {
      const before = expectOk<{ jobs: Job[] }>(
        await http(target, "GET", "/v1/admin/jobs?limit=1000", { token: admin }),
        "JobList",
      );
      expectError(await start({ kind: "defragment" }), 400, "INVALID_ARGUMENT");
      expectError(await start({}), 400, "INVALID_ARGUMENT");
      expectError(await start({ kind: "verify", extra: true }), 400, "INVALID_ARGUMENT");
      expectError(await start({ kind: "scavenge" }), 400, "CONFIRMATION_REQUIRED");
      expectError(await start({ kind: "scavenge", confirm: false }), 400, "CONFIRMATION_REQUIRED");
      const after = expectOk<{ jobs: Job[] }>(
        await http(target, "GET", "/v1/admin/jobs?limit=1000", { token: admin }),
        "JobList",
      );
      assert.equal(after.jobs.length, before.jobs.length, "a refused job is not started");

      // Not JSON, but without a token: refused as unauthenticated before the body is looked at.
      expectError(
        await http(target, "POST", "/v1/admin/jobs", {
          rawBody: "{not json",
          headers: { "content-type": "application/json" },
        }),
        401,
        "UNAUTHENTICATED",
      );
      expectError(await http(target, "GET", "/v1/admin/jobs"), 401, "UNAUTHENTICATED");
      expectError(await start({ kind: "verify" }, writer), 403, "PERMISSION_DENIED");
      expectError(await http(target, "GET", "/v1/admin/jobs", { token: writer }), 403, "PERMISSION_DENIED");
      expectError(
        await http(target, "GET", `/v1/admin/jobs/${randomUUID()}`, { token: writer }),
        403,
        "PERMISSION_DENIED",
      );
      const missing = randomUUID();
      const notFound = expectError(
        await http(target, "GET", `/v1/admin/jobs/${missing}`, { token: admin }),
        404,
        "JOB_NOT_FOUND",
      );
      assert.deepEqual(notFound.details, { job_id: missing });
      expectError(
        await http(target, "GET", "/v1/admin/jobs/not-a-uuid", { token: admin }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await http(target, "GET", "/v1/admin/jobs?cursor=bogus", { token: admin }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await http(target, "GET", "/v1/admin/jobs?limit=0", { token: admin }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await http(target, "DELETE", "/v1/admin/jobs", { token: admin }),
        405,
        "METHOD_NOT_ALLOWED",
      );
    });

    test("the job list goes newest first and pages with next_cursor", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const job = expectOk<Job>(await start({ kind: "scavenge", dry_run: true }), "Job", 202);
        await untilFinished(job.job_id);
        ids.push(job.job_id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 3; pages++) {
        const query: string = `limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
        const page = expectOk<{ jobs: Job[]; next_cursor: string | null }>(
          await http(target, "GET", `/v1/admin/jobs?${query}`, { token: admin }),
          "JobList",
        );
        assert.equal(page.jobs.length, 1);
        seen.push(page.jobs[0]!.job_id);
        assert.equal(typeof page.next_cursor, "string", "older jobs follow");
        cursor = page.next_cursor;
      }
      assert.deepEqual(seen, [...ids].reverse());
    });
  });
}

import { test } from "node:test";
import assert from "node:assert/strict";
import { EssError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Job, JobProgress, ScavengeResult, VerifyResult } from "../contract/bodies.js";
import { JobRegistry, type JobReport, type JobWork } from "./jobs.js";

/** A logger that keeps its lines, to check what a failure logs. */
function recordingLogger(): Logger & { lines: { level: string; message: string; fields: unknown }[] } {
  const lines: { level: string; message: string; fields: unknown }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, fields });
    };
  const logger = {
    lines,
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => logger,
  };
  return logger;
}

const verified: VerifyResult = {
  ok: true,
  segments_checked: 1,
  records_checked: 2,
  bytes_checked: 300,
  errors: [],
  duration_ms: 1,
};

/** Work the test drives by hand: admit, report progress, then finish or fail. */
function heldWork(kind: "verify" | "scavenge" = "verify") {
  let report!: JobReport;
  let finish!: (result: VerifyResult | ScavengeResult) => void;
  let fail!: (error: unknown) => void;
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const work: JobWork = {
    kind,
    dry_run: kind === "scavenge",
    run: (r) =>
      new Promise((resolve, reject) => {
        report = r;
        finish = resolve;
        fail = reject;
        started();
      }),
  };
  return {
    work,
    running,
    admit: () => report.admitted(),
    progress: (p: JobProgress) => report.progress(p),
    finish: (result: VerifyResult | ScavengeResult = verified) => finish(result),
    fail: (error: unknown) => fail(error),
  };
}

/** Starts held work and admits it, so start() resolves with its job. */
async function startHeld(registry: JobRegistry, kind: "verify" | "scavenge" = "verify") {
  const held = heldWork(kind);
  const starting = registry.start(held.work);
  await held.running;
  held.admit();
  const job = await starting;
  return { ...held, job };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function clock() {
  let ms = Date.UTC(2026, 0, 1);
  return { now: () => ms, advance: (by: number) => (ms += by) };
}

test("a job is queued until its work begins, then running with its progress, then done with its result", async () => {
  const time = clock();
  const registry = new JobRegistry({ logger: recordingLogger(), now: time.now });
  const held = await startHeld(registry);
  assert.equal(held.job.state, "queued");
  assert.equal(held.job.kind, "verify");
  assert.equal(held.job.dry_run, false);
  assert.equal(held.job.started_at, null);
  assert.equal(held.job.created_at, "2026-01-01T00:00:00.000Z");
  assert.deepEqual(registry.get(held.job.job_id), held.job);

  time.advance(1000);
  held.progress({ done: 0, total: 300, unit: "bytes" });
  let job = registry.get(held.job.job_id)!;
  assert.equal(job.state, "running");
  assert.equal(job.started_at, "2026-01-01T00:00:01.000Z");
  held.progress({ done: 120, total: 300, unit: "bytes" });
  assert.deepEqual(registry.get(held.job.job_id)!.progress, { done: 120, total: 300, unit: "bytes" });
  // A report past its total moves the total: done never passes it.
  held.progress({ done: 310, total: 300, unit: "bytes" });
  assert.deepEqual(registry.get(held.job.job_id)!.progress, { done: 310, total: 310, unit: "bytes" });

  time.advance(1000);
  held.finish();
  await settle();
  job = registry.get(held.job.job_id)!;
  assert.equal(job.state, "done");
  assert.deepEqual(job.result, verified);
  assert.equal(job.error, null);
  assert.equal(job.finished_at, "2026-01-01T00:00:02.000Z");
  assert.equal(job.progress.done, job.progress.total);
  // Snapshots are copies: changing one changes nothing kept.
  job.progress.done = -1;
  assert.notEqual(registry.get(held.job.job_id)!.progress.done, -1);
});

test("a failure is kept as {code, message}; an unexpected one is INTERNAL, its stack only in the log", async () => {
  const logger = recordingLogger();
  const registry = new JobRegistry({ logger });
  const expected = await startHeld(registry, "scavenge");
  expected.fail(new EssError("UNAVAILABLE", "storage is not writable; restart to recover"));
  const unexpected = await startHeld(registry);
  unexpected.fail(new Error("EIO: i/o error, read /secret/path"));
  await settle();
  const first = registry.get(expected.job.job_id)!;
  assert.equal(first.state, "failed");
  assert.deepEqual(first.error, {
    code: "UNAVAILABLE",
    message: "storage is not writable; restart to recover",
  });
  assert.equal(first.result, null);
  assert.notEqual(first.finished_at, null);
  assert.notEqual(first.started_at, null, "a job that ends has started");
  const second = registry.get(unexpected.job.job_id)!;
  assert.deepEqual(second.error, { code: "INTERNAL", message: "internal error" });
  assert.doesNotMatch(JSON.stringify(second), /secret|EIO|at /);
  const logged = logger.lines.filter((l) => l.level === "error");
  assert.equal(logged.length, 1);
  assert.match(JSON.stringify(logged[0]!.fields), /EIO: i\/o error/);
});

test("work refused before it is admitted leaves no job, and the refusal is what start() throws", async () => {
  const registry = new JobRegistry({ logger: recordingLogger(), unfinishedMax: 1 });
  const refused: JobWork = {
    kind: "scavenge",
    dry_run: false,
    run: () => Promise.reject(new EssError("SCAVENGE_IN_PROGRESS", "a scavenge is already running")),
  };
  await assert.rejects(registry.start(refused), { code: "SCAVENGE_IN_PROGRESS" });
  const throwing: JobWork = {
    kind: "verify",
    dry_run: false,
    run: () => {
      throw new EssError("UNAVAILABLE", "the storage engine is closed");
    },
  };
  await assert.rejects(registry.start(throwing), { code: "UNAVAILABLE" });
  assert.deepEqual(registry.list({ limit: 10, cursor: null }), { jobs: [], next_cursor: null });
  // Neither holds a place among the unfinished jobs.
  const held = await startHeld(registry);
  assert.equal(held.job.state, "queued");
});

test("work that finishes without saying it was admitted is a done job", async () => {
  const registry = new JobRegistry({ logger: recordingLogger() });
  const job = await registry.start({ kind: "verify", dry_run: false, run: () => Promise.resolve(verified) });
  await settle();
  assert.equal(registry.get(job.job_id)?.state, "done");
});

test("at most unfinishedMax jobs are queued or running: another is RATE_LIMITED until one finishes", async () => {
  const registry = new JobRegistry({ logger: recordingLogger(), unfinishedMax: 2 });
  const first = await startHeld(registry);
  await startHeld(registry);
  const refusal = await registry.start(heldWork().work).then(
    () => assert.fail("a third unfinished job was started"),
    (error: unknown) => error,
  );
  assert.ok(refusal instanceof EssError);
  assert.equal(refusal.code, "RATE_LIMITED");
  assert.equal(refusal.details.retry_after_seconds, 1);
  first.finish();
  await settle();
  const third = await startHeld(registry);
  assert.equal(third.job.state, "queued");
});

test("at most finishedMax finished jobs are kept: the one that finished longest ago is forgotten first", async () => {
  const registry = new JobRegistry({ logger: recordingLogger(), finishedMax: 2 });
  const a = await startHeld(registry);
  const b = await startHeld(registry);
  const c = await startHeld(registry);
  const d = await startHeld(registry);
  // Finished in the order b, a, d: c still runs.
  b.finish();
  await settle();
  a.finish();
  await settle();
  d.finish();
  await settle();
  assert.equal(registry.get(b.job.job_id), null, "b finished first and is forgotten");
  for (const kept of [a, c, d]) assert.ok(registry.get(kept.job.job_id), "a, d (finished) and c (running)");
  c.finish();
  await settle();
  assert.equal(registry.get(a.job.job_id), null);
  assert.deepEqual(
    registry.list({ limit: 10, cursor: null }).jobs.map((j) => j.job_id),
    [d.job.job_id, c.job.job_id],
  );
});

test("listing goes newest first in pages of limit jobs, and a page stops before its bytes pass the bound", async () => {
  const registry = new JobRegistry({ logger: recordingLogger(), pageBytesMax: 2000 });
  const jobs: Job[] = [];
  for (let i = 0; i < 5; i++) {
    const held = await startHeld(registry, "scavenge");
    held.finish({
      dry_run: true,
      events_removed: 1,
      bytes_reclaimed: 1,
      segments_rewritten: 0,
      streams_affected: 1,
      duration_ms: 0,
      streams: [{ stream_id: "s".repeat(900), tenant_id: "t", events_removed: 1, bytes_reclaimed: 1 }],
    });
    await settle();
    jobs.push(held.job);
  }
  const newestFirst = jobs.map((j) => j.job_id).reverse();
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 1; ; pages++) {
    const page = registry.list({ limit: 4, cursor });
    // Each job weighs about 1.3 KB: a page of 2000 bytes holds one.
    assert.equal(page.jobs.length, 1);
    seen.push(...page.jobs.map((j) => j.job_id));
    if (page.next_cursor === null) break;
    assert.ok(pages < 10);
    cursor = page.next_cursor;
  }
  assert.deepEqual(seen, newestFirst);

  const unbounded = new JobRegistry({ logger: recordingLogger() });
  for (let i = 0; i < 5; i++) (await startHeld(unbounded)).finish();
  await settle();
  const first = unbounded.list({ limit: 2, cursor: null });
  assert.equal(first.jobs.length, 2);
  const rest = unbounded.list({ limit: 1000, cursor: first.next_cursor });
  assert.equal(rest.jobs.length, 3);
  assert.equal(rest.next_cursor, null);
  for (const cursor of ["nope", Buffer.from('["job","x"]').toString("base64url")]) {
    assert.throws(() => unbounded.list({ limit: 10, cursor }), { code: "INVALID_ARGUMENT" });
  }
});

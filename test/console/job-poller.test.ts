import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "../../console/src/lib/api-client.js";
import type { Job } from "../../console/src/lib/contract.js";
import { pollJob, progressFraction } from "../../console/src/lib/job-poller.js";
import { ManualTimers, settle } from "./fakes.js";

function job(state: Job["state"], done = 0, total = 10): Job {
  return {
    job_id: "j1",
    kind: "scavenge",
    state,
    progress: { done, total, unit: "segments" },
    started_at: null,
    finished_at: null,
    result: null,
    error: null,
  };
}

async function runUntilSettled(timers: ManualTimers, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    timers.advance(5000);
    await settle();
  }
}

test("a job is followed until it is done, each state reported", async () => {
  const timers = new ManualTimers();
  const answers = [job("running", 3), job("running", 7), job("done", 10)];
  const seen: string[] = [];
  const poll = pollJob(job("queued"), {
    fetchJob: () => Promise.resolve(answers.shift() ?? job("done", 10)),
    onUpdate: (j) => seen.push(`${j.state}:${j.progress?.done}`),
    timers,
  });
  await runUntilSettled(timers, 4);
  const finished = await poll.finished;
  assert.equal(finished.state, "done");
  assert.deepEqual(seen, ["queued:0", "running:3", "running:7", "done:10"]);
  assert.deepEqual(timers.waiting, []);
});

test("a failed job ends the polling with the job, not an exception", async () => {
  const timers = new ManualTimers();
  const poll = pollJob(job("running"), {
    fetchJob: () => Promise.resolve({ ...job("failed"), error: { code: "DATA_CORRUPTED", message: "x" } }),
    onUpdate: () => undefined,
    timers,
  });
  await runUntilSettled(timers, 1);
  assert.equal((await poll.finished).state, "failed");
});

test("polls that fail for a passing reason are retried; others end the polling", async () => {
  const timers = new ManualTimers();
  let calls = 0;
  const poll = pollJob(job("running"), {
    fetchJob: () => {
      calls += 1;
      if (calls <= 2) return Promise.reject(new TypeError("Failed to fetch"));
      return Promise.resolve(job("done", 10));
    },
    onUpdate: () => undefined,
    timers,
  });
  await runUntilSettled(timers, 3);
  assert.equal((await poll.finished).state, "done");

  const gone = pollJob(job("running"), {
    fetchJob: () => Promise.reject(new ApiError("NOT_FOUND", "there is no job j1", 404)),
    onUpdate: () => undefined,
    timers,
  });
  await runUntilSettled(timers, 1);
  await assert.rejects(gone.finished, { code: "NOT_FOUND" });
});

test("polling gives up after too many failures in a row", async () => {
  const timers = new ManualTimers();
  const poll = pollJob(job("running"), {
    fetchJob: () => Promise.reject(new TypeError("Failed to fetch")),
    onUpdate: () => undefined,
    timers,
    failuresMax: 3,
  });
  await runUntilSettled(timers, 4);
  await assert.rejects(poll.finished, { code: "NETWORK_ERROR" });
});

test("cancel stops polling and leaves nothing waiting", async () => {
  const timers = new ManualTimers();
  let calls = 0;
  const poll = pollJob(job("running"), {
    fetchJob: () => {
      calls += 1;
      return Promise.resolve(job("running"));
    },
    onUpdate: () => undefined,
    timers,
  });
  poll.cancel();
  await runUntilSettled(timers, 2);
  assert.equal(calls, 0);
  assert.deepEqual(timers.waiting, []);
  await assert.rejects(poll.finished, { code: "CANCELLED" });
});

test("the poll interval grows for a long job, up to its maximum", async () => {
  const timers = new ManualTimers();
  pollJob(job("running"), {
    fetchJob: () => Promise.resolve(job("running")),
    onUpdate: () => undefined,
    timers,
    intervalMs: 400,
    intervalMaxMs: 2000,
  });
  assert.deepEqual(timers.waiting, [400]);
  for (let i = 0; i < 60; i++) {
    timers.advance(timers.waiting[0] ?? 0);
    await settle();
  }
  assert.deepEqual(timers.waiting, [2000]);
});

test("progress is a fraction when the job says how much there is", () => {
  assert.equal(progressFraction({ done: 3, total: 4, unit: "x" }), 0.75);
  assert.equal(progressFraction({ done: 9, total: 4, unit: "x" }), 1);
  assert.equal(progressFraction({ done: 0, total: 0, unit: "x" }), null);
  assert.equal(progressFraction(null), null);
});

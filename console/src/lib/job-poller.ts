/**
 * Follows a verify or scavenge job (docs/rest.md "Jobs") until it is done or failed, reporting
 * each state it reads.
 *
 * - Polls every `intervalMs`, slower as the job runs on (up to `intervalMaxMs`), so a long
 *   scavenge costs the service few requests and a short one still shows its progress.
 * - A poll that fails for a reason that may pass (no answer, 503, 429) is retried on the same
 *   schedule, up to `failuresMax` times in a row; any other failure (the job is gone, the token
 *   was refused and the operator gave up) ends the polling with that error.
 * - `cancel()` stops polling (the page went away); the job itself goes on in the service.
 */
import { ApiError, toApiError } from "./api-client.js";
import type { Job, JobProgress } from "./contract.js";
import type { Timers } from "./live-subscription.js";

export interface JobPollerOptions {
  fetchJob(jobId: string): Promise<Job>;
  onUpdate(job: Job): void;
  timers: Timers;
  intervalMs?: number;
  intervalMaxMs?: number;
  failuresMax?: number;
}

export interface JobPoll {
  /** The job once done or failed; rejects with an ApiError when polling gave up. */
  finished: Promise<Job>;
  cancel(): void;
}

const transientCodes = new Set(["NETWORK_ERROR", "UNAVAILABLE", "RATE_LIMITED", "HTTP_502", "HTTP_504"]);

export function isFinished(job: Job): boolean {
  return job.state === "done" || job.state === "failed";
}

/** done / total between 0 and 1, or null when the job has not said how much there is. */
export function progressFraction(progress: JobProgress | null | undefined): number | null {
  if (!progress || !Number.isFinite(progress.total) || progress.total <= 0) return null;
  return Math.min(1, Math.max(0, progress.done / progress.total));
}

export function pollJob(job: Job, options: JobPollerOptions): JobPoll {
  const intervalMs = options.intervalMs ?? 400;
  const intervalMaxMs = options.intervalMaxMs ?? 2000;
  const failuresMax = options.failuresMax ?? 5;
  let timer: unknown = null;
  let cancelled = false;
  let polls = 0;
  let failures = 0;
  let resolveFinished!: (job: Job) => void;
  let rejectFinished!: (error: ApiError) => void;
  const finished = new Promise<Job>((resolve, reject) => {
    resolveFinished = resolve;
    rejectFinished = reject;
  });
  // A caller that stopped listening (cancel on leaving the page) leaves no unhandled rejection.
  finished.catch(() => undefined);

  const schedule = () => {
    // 400 ms for the first few seconds, then a little slower each time up to the maximum.
    const delay = Math.min(intervalMaxMs, intervalMs * Math.max(1, Math.floor(polls / 10) + 1));
    timer = options.timers.setTimeout(() => {
      timer = null;
      void poll();
    }, delay);
  };

  const poll = async () => {
    polls += 1;
    let current: Job;
    try {
      current = await options.fetchJob(job.job_id);
    } catch (error) {
      if (cancelled) return;
      const apiError = toApiError(error);
      failures += 1;
      if (transientCodes.has(apiError.code) && failures < failuresMax) {
        schedule();
        return;
      }
      rejectFinished(apiError);
      return;
    }
    if (cancelled) return;
    failures = 0;
    options.onUpdate(current);
    if (isFinished(current)) resolveFinished(current);
    else schedule();
  };

  options.onUpdate(job);
  if (isFinished(job)) resolveFinished(job);
  else schedule();

  return {
    finished,
    cancel() {
      cancelled = true;
      if (timer !== null) options.timers.clearTimeout(timer);
      timer = null;
      rejectFinished(new ApiError("CANCELLED", "stopped following the job", 0));
    },
  };
}

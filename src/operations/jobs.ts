/**
 * The jobs of one process (docs/rest.md "Jobs"): verify and scavenge runs that Admin.StartJob
 * starts in the background and Admin.GetJob and ListJobs report while they run and after.
 * The registry knows no engine: the operations hand it the work (./operations.ts).
 *
 * Invariants:
 * - jobs live in this process's memory only: a restart forgets them, and each node of a
 *   postgres deployment knows only the jobs it started;
 * - at most `unfinishedMax` jobs are queued or running at once (another is refused with
 *   RATE_LIMITED) and at most `finishedMax` finished ones are kept: past it the job that finished
 *   longest ago is forgotten;
 * - a job exists only once its work is admitted: work that fails before (a real scavenge while
 *   another runs: SCAVENGE_IN_PROGRESS, as on the synchronous route) is refused and leaves no
 *   job; a failure after is kept in the job as {code, message}, never a stack;
 * - a job's state only moves forward, queued -> running -> done or failed (queued -> failed
 *   too), and its progress.done never passes progress.total.
 */
import { randomUUID } from "node:crypto";
import { invalidArgument, isEssError, rateLimited, toEssError } from "../errors.js";
import { limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { Job, JobKind, JobList, JobProgress, ScavengeResult, VerifyResult } from "../contract/bodies.js";

/** What a job's work tells the registry as it goes. */
export interface JobReport {
  /** The work will not be refused any more (see ScavengeOptions.onAdmitted); calls after the first do nothing. */
  readonly admitted: () => void;
  /** The work has begun (the first call) or moved. */
  readonly progress: (progress: JobProgress) => void;
}

export interface JobWork {
  kind: JobKind;
  dry_run: boolean;
  /** Runs the work, calling `report.admitted()` once it cannot be refused any more. */
  run(report: JobReport): Promise<VerifyResult | ScavengeResult>;
}

export interface JobRegistryOptions {
  logger: Logger;
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
  /** Default limits.jobsFinishedMax. */
  finishedMax?: number;
  /** Default limits.jobsUnfinishedMax. */
  unfinishedMax?: number;
  /** Default limits.jobListPageBytesMax. */
  pageBytesMax?: number;
}

interface JobEntry {
  job: Job;
  /** Creation order: listings go newest first and their cursors name a sequence number. */
  sequence: number;
  /** Bytes of the job's JSON, weighed once when it finishes (listings bound their pages by it). */
  bytes: number;
}

/** What an unfinished job weighs in a listing: its fields without a result. */
const unfinishedJobBytes = 512;

type Outcome = { ok: true; result: VerifyResult | ScavengeResult } | { ok: false; error: unknown };

export class JobRegistry {
  readonly #jobs = new Map<string, JobEntry>();
  /** Ids of finished jobs, in the order they finished. */
  readonly #finished = new Set<string>();
  #unfinished = 0;
  #sequence = 0;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #finishedMax: number;
  readonly #unfinishedMax: number;
  readonly #pageBytesMax: number;

  constructor(options: JobRegistryOptions) {
    this.#log = options.logger;
    this.#now = options.now ?? Date.now;
    this.#finishedMax = options.finishedMax ?? limits.jobsFinishedMax;
    this.#unfinishedMax = options.unfinishedMax ?? limits.jobsUnfinishedMax;
    this.#pageBytesMax = options.pageBytesMax ?? limits.jobListPageBytesMax;
  }

  /**
   * Starts `work` and resolves with its job as it was when the work was admitted (queued: the
   * answer does not depend on how far the work got meanwhile), or rejects with what refused it.
   */
  async start(work: JobWork): Promise<Job> {
    if (this.#unfinished >= this.#unfinishedMax) {
      throw rateLimited(
        `${this.#unfinishedMax} jobs are already queued or running: start another once one has finished`,
        1,
        { jobs_unfinished_max: this.#unfinishedMax },
      );
    }
    this.#unfinished++;
    const entry: JobEntry = {
      job: {
        job_id: randomUUID(),
        kind: work.kind,
        dry_run: work.dry_run,
        state: "queued",
        progress: { done: 0, total: 0, unit: work.kind === "verify" ? "bytes" : "streams" },
        created_at: this.#iso(),
        started_at: null,
        finished_at: null,
        result: null,
        error: null,
      },
      sequence: ++this.#sequence,
      bytes: unfinishedJobBytes,
    };
    const job = entry.job;
    let admitted = false;
    let admittedAs: Job | null = null;
    let settled = false;
    let admit!: () => void;
    const admission = new Promise<null>((resolve) => (admit = () => resolve(null)));
    const report: JobReport = {
      admitted: () => {
        if (admitted) return;
        admitted = true;
        admittedAs = snapshot(job);
        this.#jobs.set(job.job_id, entry);
        admit();
      },
      progress: (progress) => {
        if (settled) return;
        report.admitted();
        if (job.state === "queued") {
          job.state = "running";
          job.started_at = this.#iso();
        }
        job.progress = {
          done: progress.done,
          total: Math.max(progress.total, progress.done),
          unit: progress.unit,
        };
      },
    };
    const outcome: Promise<Outcome> = Promise.resolve()
      .then(() => work.run(report))
      .then(
        (result) => {
          // Work that finished was admitted, whether it said so or not.
          report.admitted();
          return { ok: true as const, result };
        },
        (error: unknown) => ({ ok: false as const, error }),
      );
    const first = await Promise.race([admission, outcome]);
    if (admittedAs === null) {
      // Refused before it was admitted: no job, the caller gets the refusal.
      this.#unfinished--;
      throw this.#toReportedError(first !== null && !first.ok ? first.error : null, job);
    }
    void outcome.then((o) => {
      settled = true;
      this.#finish(entry, o);
    });
    return admittedAs;
  }

  /** A copy of the job, or null for an id this registry does not know (any more). */
  get(jobId: string): Job | null {
    const entry = this.#jobs.get(jobId);
    return entry ? snapshot(entry.job) : null;
  }

  /**
   * Newest first. A page holds at most `limit` jobs and stops before their JSON passes
   * pageBytesMax (it always holds one job when one is left).
   */
  list(page: { limit: number; cursor: string | null }): JobList {
    const before = page.cursor === null ? Number.POSITIVE_INFINITY : decodeJobCursor(page.cursor);
    const jobs: Job[] = [];
    let bytes = 0;
    let lastSequence = 0;
    let more = false;
    for (const entry of [...this.#jobs.values()].reverse()) {
      if (entry.sequence >= before) continue;
      if (jobs.length === page.limit || (jobs.length > 0 && bytes + entry.bytes > this.#pageBytesMax)) {
        more = true;
        break;
      }
      jobs.push(snapshot(entry.job));
      bytes += entry.bytes;
      lastSequence = entry.sequence;
    }
    return { jobs, next_cursor: more ? encodeJobCursor(lastSequence) : null };
  }

  #finish(entry: JobEntry, outcome: Outcome): void {
    const job = entry.job;
    job.finished_at = this.#iso();
    job.started_at ??= job.finished_at;
    if (outcome.ok) {
      job.state = "done";
      job.result = outcome.result;
      job.progress = { ...job.progress, done: job.progress.total };
    } else {
      job.state = "failed";
      const error = this.#toReportedError(outcome.error, job);
      job.error = { code: error.code, message: error.message };
    }
    entry.bytes = Buffer.byteLength(JSON.stringify(job));
    this.#log.info("job finished", {
      job_id: job.job_id,
      kind: job.kind,
      dry_run: job.dry_run,
      state: job.state,
      ...(job.error ? { error_code: job.error.code } : {}),
    });
    this.#unfinished--;
    this.#finished.add(job.job_id);
    for (const oldest of this.#finished) {
      if (this.#finished.size <= this.#finishedMax) break;
      this.#finished.delete(oldest);
      this.#jobs.delete(oldest);
    }
  }

  /** The EssError a failure is reported as; anything else is logged here, with its stack, once. */
  #toReportedError(error: unknown, job: Job) {
    if (!isEssError(error)) {
      this.#log.error("job failed", {
        job_id: job.job_id,
        kind: job.kind,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
    return toEssError(error);
  }

  #iso(): string {
    return new Date(this.#now()).toISOString();
  }
}

function snapshot(job: Job): Job {
  return { ...job, progress: { ...job.progress }, error: job.error ? { ...job.error } : null };
}

function encodeJobCursor(sequence: number): string {
  return Buffer.from(JSON.stringify(["job", sequence]), "utf8").toString("base64url");
}

function decodeJobCursor(cursor: string): number {
  try {
    const parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(parts) && parts[0] === "job" && Number.isSafeInteger(parts[1]))
      return parts[1] as number;
  } catch {
    // Not JSON: refused below like any other foreign cursor.
  }
  throw invalidArgument("cursor is not one this service returned", { field: "cursor" });
}

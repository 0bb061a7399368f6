/**
 * Storage status, and verify and scavenge as jobs (docs/rest.md "Jobs") with their progress.
 * A scavenge goes preview (a dry-run job listing the streams it would touch) → typed
 * confirmation → the real job's progress → its result; a failure at any step is shown as its
 * code and message and leaves the page where it was.
 */
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, apiPath, toApiError } from "../lib/api-client.js";
import type {
  Job,
  JobList,
  JobProgress as JobProgressFigures,
  ScavengeResult,
  StorageStatus,
  VerifyResult,
} from "../lib/contract.js";
import { formatBytes, formatCount, formatDuration } from "../lib/format.js";
import { isFinished, pollJob, progressFraction, type JobPoll } from "../lib/job-poller.js";
import { newestView, pageSizeDefault } from "../lib/paging.js";
import {
  ErrorNotice,
  Fields,
  Link,
  Loading,
  PageTitle,
  Time,
  TypedConfirm,
  useLoad,
  type Loaded,
} from "../components.js";
import { useConsole } from "../context.js";

interface JobRun {
  job: Job | null;
  error: ApiError | null;
  running: boolean;
  start: (body: Record<string, unknown>) => Promise<Job | null>;
  reset: () => void;
}

/** Starts a job and follows it until it ends; stops following when the page goes away. */
function useJobRun(onFinished?: () => void): JobRun {
  const { api, timers } = useConsole();
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [running, setRunning] = useState(false);
  const poll = useRef<JobPoll | null>(null);
  useEffect(() => () => poll.current?.cancel(), []);
  const start = async (body: Record<string, unknown>): Promise<Job | null> => {
    poll.current?.cancel();
    setError(null);
    setJob(null);
    setRunning(true);
    try {
      const answer = await api.request<Job>("POST", "v1/admin/jobs", { body });
      poll.current = pollJob(answer.body, {
        fetchJob: (jobId) => api.get<Job>(apiPath("v1/admin/jobs", jobId)),
        onUpdate: setJob,
        timers,
      });
      const finished = await poll.current.finished;
      if (finished.state === "failed" && finished.error) {
        setError(new ApiError(finished.error.code, finished.error.message, 0));
      }
      return finished;
    } catch (failure) {
      const apiError = toApiError(failure);
      if (apiError.code !== "CANCELLED") setError(apiError);
      return null;
    } finally {
      setRunning(false);
      onFinished?.();
    }
  };
  return {
    job,
    error,
    running,
    start,
    reset: () => {
      poll.current?.cancel();
      setJob(null);
      setError(null);
      setRunning(false);
    },
  };
}

function progressAmount(progress: JobProgressFigures): string {
  return progress.unit === "bytes"
    ? `${formatBytes(progress.done)} of ${formatBytes(progress.total)}`
    : `${formatCount(progress.done)} of ${formatCount(progress.total)} ${progress.unit}`;
}

export function JobProgress({ job, label }: { job: Job; label: string }): JSX.Element {
  const fraction = progressFraction(job.progress);
  const progress = job.progress;
  return (
    <div class="job-progress">
      <div class="job-progress-head">
        <span class={`badge badge-${job.state}`}>{job.state}</span>
        <span>
          {progress && progress.total > 0
            ? `${progressAmount(progress)}${fraction !== null ? ` (${Math.floor(fraction * 100)}%)` : ""}`
            : job.state === "queued"
              ? "waiting to start"
              : ""}
        </span>
      </div>
      {isFinished(job) ? null : fraction === null ? (
        <progress aria-label={label} />
      ) : (
        <progress aria-label={label} max={1000} value={Math.round(fraction * 1000)} />
      )}
    </div>
  );
}

function VerifyOutcome({ result }: { result: VerifyResult }): JSX.Element {
  return (
    <div>
      <p class={result.ok ? "notice notice-ok" : "notice notice-error"} role="status">
        {result.ok ? "Verify found no error." : `Verify found ${formatCount(result.errors.length)} errors.`}
      </p>
      <Fields
        rows={[
          ["Segments checked", formatCount(result.segments_checked)],
          ["Records checked", formatCount(result.records_checked)],
          ["Bytes checked", formatBytes(result.bytes_checked)],
          ["Took", formatDuration(result.duration_ms)],
        ]}
      />
      {result.errors.length > 0 ? (
        <table class="data">
          <caption>Errors</caption>
          <thead>
            <tr>
              <th scope="col">Segment</th>
              <th scope="col" class="num">
                Offset
              </th>
              <th scope="col">Kind</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {result.errors.map((error) => (
              <tr key={`${error.segment}/${error.offset}`}>
                <td class="mono">{error.segment}</td>
                <td class="num">{error.offset}</td>
                <td>{error.kind}</td>
                <td>{error.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

function VerifySection({ onFinished }: { onFinished: () => void }): JSX.Element {
  const run = useJobRun(onFinished);
  const result = run.job?.state === "done" ? (run.job.result as VerifyResult | null) : null;
  return (
    <section class="card" aria-labelledby="verify-heading">
      <h2 id="verify-heading">Verify</h2>
      <p class="muted">
        Reads every stored record and checks its checksum. Appends and reads go on meanwhile.
      </p>
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={run.running}
          onClick={() => void run.start({ kind: "verify" })}
        >
          {run.running ? "Verifying…" : "Run verify"}
        </button>
      </div>
      {run.job !== null ? <JobProgress job={run.job} label="Verify progress" /> : null}
      <ErrorNotice error={run.error} action="Verify failed" />
      {result !== null ? <VerifyOutcome result={result} /> : null}
    </section>
  );
}

function ScavengeTotals({ result }: { result: ScavengeResult }): JSX.Element {
  return (
    <Fields
      rows={[
        [result.dry_run ? "Events it would remove" : "Events removed", formatCount(result.events_removed)],
        [result.dry_run ? "Space it would free" : "Space freed", formatBytes(result.bytes_reclaimed)],
        [
          result.dry_run ? "Segments it would rewrite" : "Segments rewritten",
          formatCount(result.segments_rewritten),
        ],
        ["Streams affected", formatCount(result.streams_affected)],
        ["Took", formatDuration(result.duration_ms)],
      ]}
    />
  );
}

function ScavengeSection({ onFinished }: { onFinished: () => void }): JSX.Element {
  const { route, announce } = useConsole();
  const preview = useJobRun(onFinished);
  const real = useJobRun(onFinished);
  const [confirming, setConfirming] = useState(false);
  const previewResult = preview.job?.state === "done" ? (preview.job.result as ScavengeResult | null) : null;
  const realResult = real.job?.state === "done" ? (real.job.result as ScavengeResult | null) : null;
  const busy = preview.running || real.running;
  return (
    <section class="card" aria-labelledby="scavenge-heading">
      <h2 id="scavenge-heading">Scavenge</h2>
      <p class="muted">
        Removes from disk the events that retention and deletes no longer let be read. First a preview (a dry
        run that changes nothing), then the real run once you confirm it.
      </p>
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={busy}
          onClick={() => {
            real.reset();
            void preview.start({ kind: "scavenge", dry_run: true });
          }}
        >
          {preview.running ? "Previewing…" : "Preview scavenge"}
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy || previewResult === null || realResult !== null}
          title={previewResult === null ? "preview first" : undefined}
          onClick={() => setConfirming(true)}
        >
          Scavenge now…
        </button>
      </div>
      {preview.job !== null ? <JobProgress job={preview.job} label="Scavenge preview progress" /> : null}
      <ErrorNotice error={preview.error} action="The preview failed" />
      {previewResult !== null ? (
        <div class="scavenge-preview">
          <h3>Preview</h3>
          <ScavengeTotals result={previewResult} />
          {previewResult.streams && previewResult.streams.length > 0 ? (
            <table class="data">
              <caption>
                Streams it would touch{previewResult.streams.length >= 1000 ? " (first 1,000)" : ""}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Tenant</th>
                  <th scope="col">Stream</th>
                  <th scope="col" class="num">
                    Events removed
                  </th>
                  <th scope="col" class="num">
                    Space freed
                  </th>
                </tr>
              </thead>
              <tbody>
                {previewResult.streams.map((stream) => (
                  <tr key={`${stream.tenant_id}/${stream.stream_id}`}>
                    <td>{stream.tenant_id}</td>
                    <td class="mono">
                      <Link
                        route={{
                          page: "stream",
                          streamId: stream.stream_id,
                          view: newestView(pageSizeDefault),
                          tenant: stream.tenant_id === route.tenant ? route.tenant : stream.tenant_id,
                        }}
                      >
                        {stream.stream_id}
                      </Link>
                    </td>
                    <td class="num">{formatCount(stream.events_removed)}</td>
                    <td class="num">{formatBytes(stream.bytes_reclaimed)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="empty">No stream has events to remove.</p>
          )}
        </div>
      ) : null}
      {real.job !== null ? <JobProgress job={real.job} label="Scavenge progress" /> : null}
      <ErrorNotice error={real.error} action="The scavenge failed" />
      {realResult !== null ? (
        <div>
          <h3>Result</h3>
          <p class="notice notice-ok" role="status">
            Scavenge done.
          </p>
          <ScavengeTotals result={realResult} />
        </div>
      ) : null}
      {confirming ? (
        <TypedConfirm
          title="Scavenge now?"
          word="scavenge"
          description={
            <p>
              This removes {previewResult ? formatCount(previewResult.events_removed) : "the"} events from
              disk for good ({previewResult ? formatBytes(previewResult.bytes_reclaimed) : ""}). They are
              already unreadable; this cannot be undone.
            </p>
          }
          actionLabel="Scavenge"
          busy={false}
          error={null}
          onConfirm={() => {
            setConfirming(false);
            announce("Scavenge started");
            void real.start({ kind: "scavenge", confirm: true });
          }}
          onClose={() => setConfirming(false)}
        />
      ) : null}
    </section>
  );
}

/** An engine figure by its name's unit: sizes, durations and times as everywhere else. */
function detailValue(key: string, value: unknown): JSX.Element | string {
  if (typeof value === "number") {
    if (key.includes("bytes")) return formatBytes(value);
    if (key.endsWith("_ms")) return formatDuration(value);
    return formatCount(value);
  }
  if (typeof value === "string" && key.endsWith("_at")) return <Time iso={value} />;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "yes" : "no";
  return JSON.stringify(value) ?? "–";
}

function StorageSection({ status }: { status: StorageStatus }): JSX.Element {
  const [allSegments, setAllSegments] = useState(false);
  const segments = status.segments ?? [];
  const shownSegments = allSegments ? segments : segments.slice(-20);
  const details = (value: unknown): [string, JSX.Element | string][] =>
    value && typeof value === "object"
      ? Object.entries(value as Record<string, unknown>).map(([key, v]) => [
          key.replace(/_/g, " "),
          detailValue(key, v),
        ])
      : [];
  return (
    <section aria-labelledby="storage-heading">
      <h2 id="storage-heading">Storage</h2>
      <Fields
        rows={[
          ["Engine", status.engine],
          ["Events", formatCount(status.events_total)],
          ["Streams", formatCount(status.streams_total)],
          ["Size", formatBytes(status.bytes_total)],
          ["Last position", formatCount(status.last_position)],
          ...(status.data_dir
            ? ([["Data directory", <span class="mono">{status.data_dir}</span>]] as [string, JSX.Element][])
            : []),
        ]}
      />
      <div class="columns">
        {status.writer ? (
          <div>
            <h3>Writer</h3>
            <Fields rows={details(status.writer)} />
          </div>
        ) : null}
        {status.index ? (
          <div>
            <h3>Index</h3>
            <Fields rows={details(status.index)} />
          </div>
        ) : null}
        <div>
          <h3>Last scavenge</h3>
          {status.last_scavenge ? (
            <Fields rows={details(status.last_scavenge)} />
          ) : (
            <p class="muted">never</p>
          )}
        </div>
      </div>
      {segments.length > 0 ? (
        <>
          <table class="data">
            <caption>
              Segments
              {segments.length > shownSegments.length
                ? ` (the last ${shownSegments.length} of ${segments.length})`
                : ""}
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" class="num">
                  Base position
                </th>
                <th scope="col" class="num">
                  Records
                </th>
                <th scope="col" class="num">
                  Size
                </th>
                <th scope="col">Sealed</th>
              </tr>
            </thead>
            <tbody>
              {shownSegments.map((segment) => (
                <tr key={segment.name}>
                  <td class="mono">{segment.name}</td>
                  <td class="num">{formatCount(segment.base_position)}</td>
                  <td class="num">{formatCount(segment.records)}</td>
                  <td class="num">{formatBytes(segment.bytes)}</td>
                  <td>{segment.sealed ? "yes" : "no (active)"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {segments.length > 20 ? (
            <button type="button" onClick={() => setAllSegments(!allSegments)}>
              {allSegments ? "Show the last 20" : `Show all ${segments.length}`}
            </button>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function RecentJobs({ jobs }: { jobs: Loaded<JobList> }): JSX.Element {
  return (
    <section aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">Recent jobs</h2>
      <ErrorNotice error={jobs.error} action="Listing jobs failed" />
      {jobs.data !== null && jobs.data.jobs.length === 0 ? (
        <p class="muted">No job has run since the service started.</p>
      ) : null}
      {jobs.data !== null && jobs.data.jobs.length > 0 ? (
        <table class="data">
          <caption class="offscreen">Recent jobs</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Kind</th>
              <th scope="col">State</th>
              <th scope="col">Started</th>
              <th scope="col">Finished</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {jobs.data.jobs.map((job) => (
              <tr key={job.job_id}>
                <td class="mono">{job.job_id}</td>
                <td>
                  {job.kind}
                  {job.dry_run ? " (dry run)" : ""}
                </td>
                <td>
                  <span class={`badge badge-${job.state}`}>{job.state}</span>
                </td>
                <td>
                  <Time iso={job.started_at} />
                </td>
                <td>
                  <Time iso={job.finished_at} />
                </td>
                <td>{jobOutcome(job)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function jobOutcome(job: Job): string {
  if (job.error) return `${job.error.code}: ${job.error.message}`;
  const result = job.result;
  if (result === null) return "";
  if ("ok" in result) return result.ok ? "no error" : `${result.errors.length} errors`;
  return `${formatCount(result.events_removed)} events, ${formatBytes(result.bytes_reclaimed)}`;
}

export function OperationsPage(): JSX.Element {
  const { api } = useConsole();
  const status = useLoad(() => api.get<StorageStatus>("v1/admin/storage-status"), []);
  const jobs = useLoad(() => api.get<JobList>("v1/admin/jobs"), []);
  useEffect(() => {
    document.title = "Operations · ess console";
  }, []);
  const refresh = () => {
    status.reload();
    jobs.reload();
  };
  return (
    <section>
      <PageTitle>Operations</PageTitle>
      <div class="columns">
        <VerifySection onFinished={refresh} />
        <ScavengeSection onFinished={refresh} />
      </div>
      <ErrorNotice error={status.error} action="Reading the storage status failed" />
      {status.loading && status.data === null ? <Loading what="the storage status" /> : null}
      {status.data !== null ? <StorageSection status={status.data} /> : null}
      <RecentJobs jobs={jobs} />
    </section>
  );
}

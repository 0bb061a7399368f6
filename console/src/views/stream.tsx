/**
 * One stream: its events page by page, its live tail, its info (retention, delete). The tabs
 * and the page's position are in the URL.
 */
import type { JSX } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import { ApiError, apiPath, toApiError } from "../lib/api-client.js";
import { base64Bytes, type ReadResult, type StreamInfo } from "../lib/contract.js";
import { formatBytes, formatCount, formatSeconds, previewText, shortId } from "../lib/format.js";
import {
  ascending,
  describePage,
  newestView,
  pageLinks,
  pageSizeDefault,
  pinnedView,
  revisionView,
  shownRange,
  type RevisionRange,
  type StreamView,
} from "../lib/paging.js";
import type { Route } from "../lib/route.js";
import {
  ErrorNotice,
  Fields,
  Link,
  Loading,
  PageSizeSelect,
  PageTitle,
  Time,
  TypedConfirm,
  useLoad,
  type Loaded,
} from "../components.js";
import { canWrite, useConsole } from "../context.js";
import { LiveTail } from "./live.js";

type StreamRoute = Extract<Route, { page: "stream" | "live" | "info" }>;

export function readableRange(info: StreamInfo | null): RevisionRange | null {
  if (
    info === null ||
    info.first_revision === null ||
    info.last_revision === null ||
    info.event_count === 0
  ) {
    return null;
  }
  return { first: info.first_revision, last: info.last_revision };
}

export function StreamPage({ route }: { route: StreamRoute }): JSX.Element {
  const { api, tenant } = useConsole();
  const streamId = route.streamId;
  const info = useLoad(
    () => api.get<StreamInfo>(apiPath("v1/streams", streamId, "info"), { tenant }),
    [streamId, tenant],
  );
  useEffect(() => {
    document.title = `${streamId} · ess console`;
  }, [streamId]);
  const tabs: { page: StreamRoute["page"]; label: string; route: Route }[] = [
    {
      page: "stream",
      label: "Events",
      route: { page: "stream", streamId, view: newestView(pageSizeDefault), tenant: route.tenant },
    },
    { page: "live", label: "Live tail", route: { page: "live", streamId, tenant: route.tenant } },
    { page: "info", label: "Info and retention", route: { page: "info", streamId, tenant: route.tenant } },
  ];
  return (
    <section>
      <PageTitle>
        <span class="muted">Stream</span> <span class="mono">{streamId}</span>
      </PageTitle>
      <StreamSummary info={info} />
      <nav class="tabs" aria-label="Stream views">
        {tabs.map((tab) => (
          <Link key={tab.page} route={tab.route} aria-current={route.page === tab.page ? "page" : undefined}>
            {tab.label}
          </Link>
        ))}
      </nav>
      {route.page === "stream" ? <EventsTab streamId={streamId} view={route.view} info={info} /> : null}
      {route.page === "live" ? <StreamLiveTab streamId={streamId} info={info} /> : null}
      {route.page === "info" ? <InfoTab streamId={streamId} info={info} /> : null}
    </section>
  );
}

function StreamSummary({ info }: { info: Loaded<StreamInfo> }): JSX.Element | null {
  if (info.data === null) return null;
  const data = info.data;
  const range = readableRange(data);
  return (
    <p class="summary">
      <span>
        {formatCount(data.event_count)} readable {data.event_count === 1 ? "event" : "events"}
      </span>
      <span>{range ? `revisions ${range.first}–${range.last}` : "no readable revisions"}</span>
      <span>{formatBytes(data.bytes)}</span>
      {data.deleted ? <span class="badge badge-warn">deleted</span> : null}
      {data.tombstoned ? <span class="badge badge-danger">tombstoned</span> : null}
    </p>
  );
}

function sameView(a: StreamView, b: StreamView): boolean {
  return a.from === b.from && a.direction === b.direction && a.limit === b.limit;
}

function EventsTab({
  streamId,
  view,
  info,
}: {
  streamId: string;
  view: StreamView;
  info: Loaded<StreamInfo>;
}) {
  const { api, tenant, navigate, route } = useConsole();
  const [goTo, setGoTo] = useState("");
  const goToId = useId();
  const page = useLoad(
    () =>
      api.get<ReadResult>(apiPath("v1/streams", streamId), {
        from: view.from,
        limit: view.limit,
        direction: view.direction,
        tenant,
      }),
    [streamId, view.from, view.direction, view.limit, tenant],
  );
  const events = page.data ? ascending(page.data.events) : [];
  const shown = shownRange(events.map((event) => event.revision));
  const readable = readableRange(info.data);
  const show = (next: StreamView, replace = false) =>
    navigate({ page: "stream", streamId, view: next, tenant: route.tenant }, { replace });

  // The newest page, once read, is pinned to where it ended: the link keeps showing these events.
  useEffect(() => {
    if (page.data === null) return;
    const pinned = pinnedView(view, shown);
    if (!sameView(pinned, view)) show(pinned, true);
    // Runs when a page arrives; `shown` is derived from it.
  }, [page.data]);

  // While a page loads, its links would be computed from the page before: none until it is here.
  const links = page.loading ? pageLinks(view, null, null) : pageLinks(view, shown, readable);
  const refresh = () => {
    page.reload();
    info.reload();
  };
  return (
    <div>
      <div class="toolbar-row">
        <nav class="pager" aria-label="Stream pages">
          <button
            type="button"
            disabled={links.oldest === null}
            onClick={() => links.oldest && show(links.oldest)}
          >
            Oldest
          </button>
          <button
            type="button"
            data-shortcut="older"
            disabled={links.older === null}
            onClick={() => links.older && show(links.older)}
          >
            Older
          </button>
          <button
            type="button"
            data-shortcut="newer"
            disabled={links.newer === null}
            onClick={() => links.newer && show(links.newer)}
          >
            Newer
          </button>
          <button
            type="button"
            disabled={links.newest === null}
            onClick={() => links.newest && show(links.newest)}
          >
            Newest
          </button>
        </nav>
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            const revision = Number(goTo);
            if (goTo.trim() !== "" && Number.isSafeInteger(revision) && revision >= 0) {
              show(revisionView(revision, view.limit));
            }
          }}
        >
          <label for={goToId}>Go to revision</label>
          <input
            id={goToId}
            data-shortcut="filter"
            inputMode="numeric"
            pattern="[0-9]*"
            size={8}
            value={goTo}
            onInput={(event) => setGoTo(event.currentTarget.value)}
          />
          <button type="submit">Go</button>
        </form>
        <div class="inline-form">
          <PageSizeSelect value={view.limit} onChange={(size) => show({ ...view, limit: size })} />
        </div>
        <button type="button" onClick={refresh}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={page.error} action="Reading the stream failed" />
      {page.loading && page.data === null ? <Loading what="events" /> : null}
      {page.data !== null ? (
        <>
          <p class="muted" aria-live="polite">
            Showing {describePage(shown, readable)}
          </p>
          <EventTable events={events} streamId={streamId} />
        </>
      ) : null}
    </div>
  );
}

export function payloadPreview(event: ReadResult["events"][number]): string {
  if (event.data_base64 !== undefined) return `binary, ${base64Bytes(event.data_base64)} bytes`;
  return previewText(JSON.stringify(event.data) ?? "");
}

function EventTable({ events, streamId }: { events: ReadResult["events"]; streamId: string }): JSX.Element {
  const { route } = useConsole();
  return (
    <table class="data">
      <caption class="offscreen">Events of {streamId}</caption>
      <thead>
        <tr>
          <th scope="col" class="num">
            Revision
          </th>
          <th scope="col">Type</th>
          <th scope="col">Created</th>
          <th scope="col" class="num">
            Position
          </th>
          <th scope="col">Event id</th>
          <th scope="col">Data</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.revision}>
            <td class="num">
              <Link route={{ page: "event", streamId, revision: event.revision, tenant: route.tenant }}>
                {event.revision}
              </Link>
            </td>
            <td class="mono">{event.event_type}</td>
            <td>
              <Time iso={event.created_at} />
            </td>
            <td class="num">{event.position}</td>
            <td class="mono" title={event.event_id}>
              {shortId(event.event_id)}
            </td>
            <td class="mono preview">{payloadPreview(event)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function StreamLiveTab({ streamId, info }: { streamId: string; info: Loaded<StreamInfo> }): JSX.Element {
  const { tenant } = useConsole();
  if (info.loading && info.data === null && info.error === null) return <Loading what="the stream" />;
  // The last 20 events for context, then live; a stream that does not exist yet from its start.
  const last = info.data?.last_revision ?? null;
  const from = last === null ? 0 : Math.max(info.data?.first_revision ?? 0, last - 19);
  return <LiveTail stream={streamId} tenant={tenant} from={from} label={`Live events of ${streamId}`} />;
}

function parseOptionalCount(text: string, minimum: number): number | null | "invalid" {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  if (!/^\d+$/.test(trimmed)) return "invalid";
  const value = Number(trimmed);
  return Number.isSafeInteger(value) && value >= minimum ? value : "invalid";
}

function InfoTab({ streamId, info }: { streamId: string; info: Loaded<StreamInfo> }): JSX.Element {
  const { api, tenant, identity, announce } = useConsole();
  const writable = canWrite(identity);
  const data = info.data;
  const [maxAge, setMaxAge] = useState("");
  const [maxCount, setMaxCount] = useState("");
  const [truncateBefore, setTruncateBefore] = useState("");
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<ApiError | null>(null);
  const ids = { maxAge: useId(), maxCount: useId(), truncate: useId() };
  useEffect(() => {
    if (data === null) return;
    setMaxAge(data.retention.max_age_seconds === null ? "" : String(data.retention.max_age_seconds));
    setMaxCount(data.retention.max_count === null ? "" : String(data.retention.max_count));
    setTruncateBefore(data.retention.truncate_before === null ? "" : String(data.retention.truncate_before));
  }, [data]);
  if (info.error !== null)
    return <ErrorNotice error={info.error} action="Reading the stream's info failed" />;
  if (data === null) return <Loading what="the stream's info" />;
  const readOnlyReason = writable ? undefined : "needs role writer or admin";

  const saveRetention = () => {
    const body = {
      max_age_seconds: parseOptionalCount(maxAge, 1),
      max_count: parseOptionalCount(maxCount, 1),
      truncate_before: parseOptionalCount(truncateBefore, 0),
    };
    if (Object.values(body).includes("invalid")) {
      setSaveError(
        new ApiError(
          "INVALID_ARGUMENT",
          "each limit is a whole number (max age and max count at least 1), or empty for none",
          0,
        ),
      );
      return;
    }
    setSaving(true);
    setSaveError(null);
    api
      .request<StreamInfo>("PUT", apiPath("v1/streams", streamId, "retention"), { query: { tenant }, body })
      .then(
        () => {
          setSaving(false);
          announce("Retention saved");
          info.reload();
        },
        (error: unknown) => {
          setSaving(false);
          setSaveError(toApiError(error));
        },
      );
  };

  const deleteStream = () => {
    setDeleting(true);
    setDeleteError(null);
    api.request<StreamInfo>("DELETE", apiPath("v1/streams", streamId), { query: { tenant } }).then(
      () => {
        setDeleting(false);
        setConfirming(false);
        announce(`Stream ${streamId} deleted`);
        info.reload();
      },
      (error: unknown) => {
        setDeleting(false);
        setDeleteError(toApiError(error));
      },
    );
  };

  return (
    <div class="columns">
      <section aria-labelledby="info-heading">
        <h2 id="info-heading">Info</h2>
        <Fields
          rows={[
            ["Stream", <span class="mono">{data.stream_id}</span>],
            ["Tenant", data.tenant_id],
            ["Readable events", formatCount(data.event_count)],
            ["First revision", formatCount(data.first_revision)],
            ["Last revision", formatCount(data.last_revision)],
            ["Size", formatBytes(data.bytes)],
            ["Created", <Time iso={data.created_at} />],
            ["Updated", <Time iso={data.updated_at} />],
            ["Deleted", data.tombstoned ? "yes (tombstoned, for good)" : data.deleted ? "yes (soft)" : "no"],
            [
              "Max age",
              data.retention.max_age_seconds === null
                ? "none"
                : formatSeconds(data.retention.max_age_seconds),
            ],
            ["Max count", data.retention.max_count === null ? "none" : formatCount(data.retention.max_count)],
            [
              "Truncate before",
              data.retention.truncate_before === null ? "none" : formatCount(data.retention.truncate_before),
            ],
          ]}
        />
      </section>
      <section aria-labelledby="retention-heading">
        <h2 id="retention-heading">Retention</h2>
        <p class="muted">
          Takes effect on reads at once; scavenging then frees the space. Leave a field empty for no limit.
        </p>
        <form
          class="stacked"
          onSubmit={(event) => {
            event.preventDefault();
            saveRetention();
          }}
        >
          <label for={ids.maxAge}>Max age, seconds</label>
          <input
            id={ids.maxAge}
            inputMode="numeric"
            value={maxAge}
            disabled={!writable}
            onInput={(event) => setMaxAge(event.currentTarget.value)}
          />
          <label for={ids.maxCount}>Max count, events</label>
          <input
            id={ids.maxCount}
            inputMode="numeric"
            value={maxCount}
            disabled={!writable}
            onInput={(event) => setMaxCount(event.currentTarget.value)}
          />
          <label for={ids.truncate}>Truncate before revision</label>
          <input
            id={ids.truncate}
            inputMode="numeric"
            value={truncateBefore}
            disabled={!writable}
            onInput={(event) => setTruncateBefore(event.currentTarget.value)}
          />
          <ErrorNotice error={saveError} action="Saving the retention failed" />
          <div class="actions">
            <button type="submit" class="primary" disabled={!writable || saving} title={readOnlyReason}>
              {saving ? "Saving…" : "Save retention"}
            </button>
            {!writable ? <span class="muted">Your role can read only.</span> : null}
          </div>
        </form>
        <h2>Delete</h2>
        <p class="muted">
          A soft delete hides every event from reads at once. Appending later continues the stream from its
          next revision.
        </p>
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={!writable || data.deleted}
            title={readOnlyReason}
            onClick={() => {
              setDeleteError(null);
              setConfirming(true);
            }}
          >
            Delete stream…
          </button>
          {data.deleted ? <span class="muted">Already deleted.</span> : null}
        </div>
      </section>
      {confirming ? (
        <TypedConfirm
          title="Delete this stream?"
          word={streamId}
          description={
            <p>
              Every event of <code>{streamId}</code> stops being readable now, and scavenging will remove them
              from disk.
            </p>
          }
          actionLabel="Delete stream"
          busy={deleting}
          error={deleteError}
          onConfirm={deleteStream}
          onClose={() => setConfirming(false)}
        />
      ) : null}
    </div>
  );
}

/**
 * The tenant's events in global order (`GET /v1/events`), by position, page by page forward;
 * and its live tail (`$all`).
 */
import type { JSX } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import type { ReadAllResult } from "../lib/contract.js";
import { shortId } from "../lib/format.js";
import { newestView, pageSizeDefault } from "../lib/paging.js";
import type { Route } from "../lib/route.js";
import { ErrorNotice, Link, Loading, PageSizeSelect, PageTitle, Time, useLoad } from "../components.js";
import { useConsole } from "../context.js";
import { LiveTail } from "./live.js";
import { payloadPreview } from "./stream.js";

type AllRoute = Extract<Route, { page: "all" }>;

function AllTabs({ current }: { current: "all" | "all-live" }): JSX.Element {
  const { route } = useConsole();
  return (
    <nav class="tabs" aria-label="All events views">
      <Link
        route={{ page: "all", from: 0, limit: pageSizeDefault, tenant: route.tenant }}
        aria-current={current === "all" ? "page" : undefined}
      >
        By position
      </Link>
      <Link
        route={{ page: "all-live", tenant: route.tenant }}
        aria-current={current === "all-live" ? "page" : undefined}
      >
        Live tail
      </Link>
    </nav>
  );
}

export function AllEventsPage({ route }: { route: AllRoute }): JSX.Element {
  const { api, tenant, navigate, trails } = useConsole();
  const [goTo, setGoTo] = useState("");
  const goToId = useId();
  const page = useLoad(
    () => api.get<ReadAllResult>("v1/events", { from_position: route.from, limit: route.limit, tenant }),
    [route.from, route.limit, tenant],
  );
  useEffect(() => {
    document.title = "All events · ess console";
  }, []);
  const go = (change: Partial<AllRoute>) => navigate({ ...route, ...change });
  const key = String(route.from);
  const previous = route.from === 0 ? undefined : trails.all.previous(key);
  const next = page.data && !page.data.is_end ? page.data.next_position : null;
  return (
    <section>
      <PageTitle>All events{tenant !== null ? ` of ${tenant}` : ""}</PageTitle>
      <AllTabs current="all" />
      <div class="toolbar-row">
        <nav class="pager" aria-label="All events pages">
          <button type="button" disabled={route.from === 0} onClick={() => go({ from: 0 })}>
            From the start
          </button>
          <button
            type="button"
            data-shortcut="older"
            disabled={previous === undefined}
            onClick={() => go({ from: previous === undefined || previous === null ? 0 : Number(previous) })}
          >
            Previous
          </button>
          <button
            type="button"
            data-shortcut="newer"
            disabled={next === null}
            onClick={() => {
              if (next === null) return;
              trails.all.record(key, String(next));
              go({ from: next });
            }}
          >
            Next
          </button>
        </nav>
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            const position = Number(goTo);
            if (goTo.trim() !== "" && Number.isSafeInteger(position) && position >= 0) go({ from: position });
          }}
        >
          <label for={goToId}>From position</label>
          <input
            id={goToId}
            data-shortcut="filter"
            inputMode="numeric"
            size={10}
            value={goTo}
            onInput={(event) => setGoTo(event.currentTarget.value)}
          />
          <button type="submit">Go</button>
        </form>
        <div class="inline-form">
          <PageSizeSelect value={route.limit} onChange={(size) => go({ limit: size })} />
        </div>
        <button type="button" onClick={page.reload}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={page.error} action="Reading all events failed" />
      {page.loading && page.data === null ? <Loading what="events" /> : null}
      {page.data !== null ? (
        <>
          <table class="data">
            <caption class="offscreen">Events from position {route.from}</caption>
            <thead>
              <tr>
                <th scope="col" class="num">
                  Position
                </th>
                <th scope="col">Stream</th>
                <th scope="col" class="num">
                  Revision
                </th>
                <th scope="col">Type</th>
                <th scope="col">Created</th>
                <th scope="col">Event id</th>
                <th scope="col">Data</th>
              </tr>
            </thead>
            <tbody>
              {page.data.events.map((event) => (
                <tr key={event.position}>
                  <td class="num">{event.position}</td>
                  <td class="mono">
                    <Link
                      route={{
                        page: "stream",
                        streamId: event.stream_id,
                        view: newestView(pageSizeDefault),
                        tenant: route.tenant,
                      }}
                    >
                      {event.stream_id}
                    </Link>
                  </td>
                  <td class="num">
                    <Link
                      route={{
                        page: "event",
                        streamId: event.stream_id,
                        revision: event.revision,
                        tenant: route.tenant,
                      }}
                    >
                      {event.revision}
                    </Link>
                  </td>
                  <td class="mono">{event.event_type}</td>
                  <td>
                    <Time iso={event.created_at} />
                  </td>
                  <td class="mono" title={event.event_id}>
                    {shortId(event.event_id)}
                  </td>
                  <td class="mono preview">{payloadPreview(event)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {page.data.events.length === 0 ? (
            <p class="empty">
              {page.data.is_end ? "No events from this position on." : "No events in this span."}
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

export function AllLivePage(): JSX.Element {
  const { tenant } = useConsole();
  useEffect(() => {
    document.title = "All events, live · ess console";
  }, []);
  return (
    <section>
      <PageTitle>All events{tenant !== null ? ` of ${tenant}` : ""}</PageTitle>
      <AllTabs current="all-live" />
      <p class="muted">Events of every stream of the tenant, as they are appended from now on.</p>
      <LiveTail stream="$all" tenant={tenant} from="end" label="Live events of all streams" />
    </section>
  );
}

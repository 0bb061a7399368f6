/**
 * The streams of a tenant: a prefix filter and cursor paging, both in the URL.
 */
import type { JSX } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import type { StreamList } from "../lib/contract.js";
import { formatBytes, formatCount } from "../lib/format.js";
import { newestView, pageSizeDefault } from "../lib/paging.js";
import type { Route } from "../lib/route.js";
import { ErrorNotice, Link, Loading, PageSizeSelect, PageTitle, Time, useLoad } from "../components.js";
import { useConsole } from "../context.js";

type StreamsRoute = Extract<Route, { page: "streams" }>;

export function StreamsPage({ route }: { route: StreamsRoute }): JSX.Element {
  const { api, navigate, tenant, trails } = useConsole();
  const trail = trails.streams;
  const [prefix, setPrefix] = useState(route.prefix);
  useEffect(() => setPrefix(route.prefix), [route.prefix]);
  const filterId = useId();
  const list = useLoad(
    () =>
      api.get<StreamList>("v1/streams", {
        prefix: route.prefix,
        cursor: route.cursor,
        limit: route.limit,
        tenant,
      }),
    [route.prefix, route.cursor, route.limit, tenant],
  );
  useEffect(() => {
    document.title = "Streams · ess console";
  }, []);
  const go = (change: Partial<StreamsRoute>) => navigate({ ...route, ...change });
  const previous = trail.previous(route.cursor);
  return (
    <section>
      <PageTitle>Streams{tenant !== null ? ` of ${tenant}` : ""}</PageTitle>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          go({ prefix: prefix.trim(), cursor: null });
        }}
      >
        <label for={filterId}>Stream id starts with</label>
        <input
          id={filterId}
          data-shortcut="filter"
          value={prefix}
          placeholder="e.g. orders-"
          spellcheck={false}
          autoComplete="off"
          onInput={(event) => setPrefix(event.currentTarget.value)}
        />
        <button type="submit">Filter</button>
        <PageSizeSelect value={route.limit} onChange={(size) => go({ limit: size, cursor: null })} />
      </form>
      <ErrorNotice error={list.error} action="Listing streams failed" />
      {list.loading && list.data === null ? <Loading what="streams" /> : null}
      {list.data !== null ? (
        <>
          <table class="data">
            <caption class="offscreen">Streams</caption>
            <thead>
              <tr>
                <th scope="col">Stream</th>
                <th scope="col" class="num">
                  Events
                </th>
                <th scope="col" class="num">
                  Last revision
                </th>
                <th scope="col" class="num">
                  Size
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.streams.map((stream) => (
                <tr key={`${stream.tenant_id}/${stream.stream_id}`}>
                  <td class="mono">
                    <Link
                      route={{
                        page: "stream",
                        streamId: stream.stream_id,
                        view: newestView(pageSizeDefault),
                        tenant: route.tenant,
                      }}
                    >
                      {stream.stream_id}
                    </Link>
                  </td>
                  <td class="num">{formatCount(stream.event_count)}</td>
                  <td class="num">{formatCount(stream.last_revision)}</td>
                  <td class="num">{formatBytes(stream.bytes)}</td>
                  <td>
                    <Time iso={stream.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.streams.length === 0 ? (
            <p class="empty">
              {route.prefix ? `No stream id starts with “${route.prefix}”.` : "No streams yet."}
            </p>
          ) : null}
          <nav class="pager" aria-label="Stream list pages">
            <button type="button" disabled={route.cursor === null} onClick={() => go({ cursor: null })}>
              First page
            </button>
            <button
              type="button"
              data-shortcut="older"
              disabled={previous === undefined}
              onClick={() => go({ cursor: previous ?? null })}
            >
              Previous
            </button>
            <button
              type="button"
              data-shortcut="newer"
              disabled={list.data.next_cursor === null}
              onClick={() => {
                const next = list.data?.next_cursor;
                if (!next) return;
                trail.record(route.cursor, next);
                go({ cursor: next });
              }}
            >
              Next
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}

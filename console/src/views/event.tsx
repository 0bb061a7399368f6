/**
 * One event: its fields and its payloads, with previous and next. A JSON payload is shown as
 * the service stored it (the answer's own text, ../lib/json-text.ts), indented or exactly as
 * stored; a binary one as base64.
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { apiPath, type Answer } from "../lib/api-client.js";
import { base64Bytes, type EventRecord, type ReadResult } from "../lib/contract.js";
import { eventPayloadTexts, indentJson, type PayloadTexts } from "../lib/json-text.js";
import type { Route } from "../lib/route.js";
import { CopyButton, ErrorNotice, Fields, Link, Loading, PageTitle, Time, useLoad } from "../components.js";
import { useConsole } from "../context.js";

type EventRoute = Extract<Route, { page: "event" }>;

function Payload({
  name,
  json,
  base64,
  present,
}: {
  name: string;
  /** The stored JSON text, when the payload is JSON. */
  json: string | null;
  base64: string | undefined;
  present: boolean;
}): JSX.Element {
  const [asStored, setAsStored] = useState(false);
  const headingId = `payload-${name.toLowerCase()}`;
  if (!present) {
    return (
      <section aria-labelledby={headingId} class="payload">
        <h2 id={headingId}>{name}</h2>
        <p class="muted">none</p>
      </section>
    );
  }
  if (base64 !== undefined) {
    return (
      <section aria-labelledby={headingId} class="payload">
        <div class="payload-head">
          <h2 id={headingId}>{name}</h2>
          <span class="muted">binary, {base64Bytes(base64)} bytes, shown as base64</span>
          <CopyButton text={base64} label={`Copy ${name.toLowerCase()} as base64`} />
        </div>
        <pre class="json" tabIndex={0} aria-label={`${name}, base64`}>
          {base64}
        </pre>
      </section>
    );
  }
  const stored = json ?? "null";
  const indented = indentJson(stored) ?? stored;
  return (
    <section aria-labelledby={headingId} class="payload">
      <div class="payload-head">
        <h2 id={headingId}>{name}</h2>
        <div class="segmented" role="group" aria-label={`${name} display`}>
          <button type="button" aria-pressed={!asStored} onClick={() => setAsStored(false)}>
            Indented
          </button>
          <button type="button" aria-pressed={asStored} onClick={() => setAsStored(true)}>
            As stored
          </button>
        </div>
        <CopyButton text={stored} label={`Copy ${name.toLowerCase()} JSON`} />
      </div>
      <pre class="json" tabIndex={0} aria-label={`${name}, JSON`}>
        {asStored ? stored : indented}
      </pre>
    </section>
  );
}

/**
 * An event's fields and payloads. `payloads` are the stored texts when known (a read's answer);
 * without them (an event from the live tail) the JSON is written back from its parsed form.
 */
export function EventDetails({
  event,
  payloads,
}: {
  event: EventRecord;
  payloads: PayloadTexts | null;
}): JSX.Element {
  const { route } = useConsole();
  const fromParsed = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
  return (
    <div class="event-details">
      <Fields
        rows={[
          [
            "Stream",
            <Link
              class="mono"
              route={{
                page: "stream",
                streamId: event.stream_id,
                view: { from: event.revision, direction: "backward", limit: 50 },
                tenant: route.tenant,
              }}
            >
              {event.stream_id}
            </Link>,
          ],
          ["Revision", String(event.revision)],
          ["Position", String(event.position)],
          [
            "Event id",
            <span class="with-copy">
              <span class="mono">{event.event_id}</span>
              <CopyButton text={event.event_id} label="Copy event id" />
            </span>,
          ],
          [
            "Type",
            <span class="with-copy">
              <span class="mono">{event.event_type}</span>
              <CopyButton text={event.event_type} label="Copy event type" />
            </span>,
          ],
          ["Created", <Time iso={event.created_at} />],
          ...(event.content_type
            ? ([["Content type", <span class="mono">{event.content_type}</span>]] as [string, JSX.Element][])
            : []),
        ]}
      />
      <Payload
        name="Data"
        json={payloads?.data ?? fromParsed(event.data)}
        base64={event.data_base64}
        present={event.data !== undefined || event.data_base64 !== undefined}
      />
      <Payload
        name="Metadata"
        json={payloads?.metadata ?? fromParsed(event.metadata)}
        base64={event.metadata_base64}
        present={
          (event.metadata !== undefined && event.metadata !== null) || event.metadata_base64 !== undefined
        }
      />
    </div>
  );
}

function readOne(
  api: ReturnType<typeof useConsole>["api"],
  streamId: string,
  from: number,
  direction: "forward" | "backward",
  tenant: string | null,
): Promise<Answer<ReadResult>> {
  return api.request<ReadResult>("GET", apiPath("v1/streams", streamId), {
    query: { from, limit: 1, direction, tenant },
  });
}

export function EventPage({ route }: { route: EventRoute }): JSX.Element {
  const { api, tenant, navigate } = useConsole();
  const { streamId, revision } = route;
  const current = useLoad(
    () => readOne(api, streamId, revision, "forward", tenant),
    [streamId, revision, tenant],
  );
  const previous = useLoad(
    () =>
      revision === 0
        ? Promise.resolve(null)
        : readOne(api, streamId, revision - 1, "backward", tenant).then((a) => a.body.events[0] ?? null),
    [streamId, revision, tenant],
  );
  const shownRevision = current.data?.body.events[0]?.revision;
  const next = useLoad(
    () =>
      shownRevision === undefined
        ? Promise.resolve(null)
        : readOne(api, streamId, shownRevision + 1, "forward", tenant).then((a) => a.body.events[0] ?? null),
    [streamId, shownRevision, tenant],
  );
  useEffect(() => {
    document.title = `${streamId} @ ${revision} · ess console`;
  }, [streamId, revision]);
  const event = current.data?.body.events[0] ?? null;
  const payloads = current.data ? (eventPayloadTexts(current.data.text)?.[0] ?? null) : null;
  const go = (target: EventRecord | null | undefined) => {
    if (target) navigate({ page: "event", streamId, revision: target.revision, tenant: route.tenant });
  };
  return (
    <section>
      <PageTitle>
        <span class="muted">Event</span> <span class="mono">{streamId}</span> <span class="muted">@</span>{" "}
        {revision}
      </PageTitle>
      <nav class="pager" aria-label="Events">
        <Link
          route={{
            page: "stream",
            streamId,
            view: { from: revision, direction: "backward", limit: 50 },
            tenant: route.tenant,
          }}
        >
          Back to the stream
        </Link>
        <button
          type="button"
          data-shortcut="older"
          disabled={previous.loading || !previous.data}
          onClick={() => go(previous.data)}
        >
          Previous event
        </button>
        <button
          type="button"
          data-shortcut="newer"
          disabled={next.loading || !next.data}
          onClick={() => go(next.data)}
        >
          Next event
        </button>
      </nav>
      <ErrorNotice error={current.error} action="Reading the event failed" />
      {current.loading && current.data === null ? <Loading what="the event" /> : null}
      {current.data !== null && event === null ? (
        <p class="empty">No readable event at or after revision {revision}.</p>
      ) : null}
      {event !== null && event.revision !== revision ? (
        <p class="notice" role="note">
          Revision {revision} is not readable (retention or a delete); this is the next readable one,{" "}
          {event.revision}.
        </p>
      ) : null}
      {event !== null ? <EventDetails event={event} payloads={payloads} /> : null}
    </section>
  );
}

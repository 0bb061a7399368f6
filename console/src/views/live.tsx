/**
 * A live tail: events as they are appended, over the WebSocket interface on the page's own
 * origin (../lib/live-subscription.ts). It never moves what the operator is reading: it pauses
 * while they are scrolled away from the newest row, have text selected in it, or have an event
 * open (../lib/live-buffer.ts), and says how many events wait. At most `rowsMax` rows are kept.
 */
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { ApiError } from "../lib/api-client.js";
import type { EventRecord } from "../lib/contract.js";
import { formatCount } from "../lib/format.js";
import { LiveBuffer, type PauseReason } from "../lib/live-buffer.js";
import { LiveSubscription, type LiveState } from "../lib/live-subscription.js";
import { newestView, pageSizeDefault } from "../lib/paging.js";
import { ErrorNotice, Link, Time } from "../components.js";
import { useConsole } from "../context.js";
import { EventDetails } from "./event.js";
import { payloadPreview } from "./stream.js";

export const rowsMax = 500;
/** Rendering waits this long after an event, so a burst of events is one render. */
const renderDelayMs = 50;

const reasonText: Record<PauseReason, string> = {
  scrolled: "scrolled away from the newest event",
  selection: "text selected",
  "event-open": "an event is open",
  operator: "paused by you",
};

function stateText(state: LiveState): string {
  switch (state.kind) {
    case "connecting":
      return "Connecting…";
    case "catching-up":
      return "Reading history…";
    case "live":
      return "Live";
    case "retrying":
      return state.everOpened
        ? `Connection lost (${state.closeCode}); trying again in ${Math.round(state.delayMs / 1000)} s`
        : `Cannot connect to the WebSocket interface (it needs SERVICE_WS_ENABLED=true); trying again in ${Math.round(state.delayMs / 1000)} s`;
    case "stopped":
      return "Stopped";
  }
}

export function LiveTail({
  stream,
  tenant,
  from,
  label,
}: {
  stream: string;
  tenant: string | null;
  from: number | "end";
  label: string;
}): JSX.Element {
  const { subscribeUrl, openSocket, timers, session, route } = useConsole();
  const buffer = useMemo(() => new LiveBuffer<EventRecord>(rowsMax), []);
  const [, setVersion] = useState(0);
  const [state, setState] = useState<LiveState>({ kind: "connecting" });
  const [opened, setOpened] = useState<EventRecord | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const renderTimer = useRef(0);
  const rerender = () => setVersion((n) => n + 1);

  useEffect(() => {
    const subscription = new LiveSubscription({
      url: subscribeUrl,
      openSocket,
      timers,
      target: { stream, tenant, from },
      token: () => session.currentToken(),
      reauthenticate: (refused) => session.reauthenticate(refused),
      onEvent: (event) => {
        buffer.push(event);
        if (renderTimer.current === 0) {
          renderTimer.current = window.setTimeout(() => {
            renderTimer.current = 0;
            rerender();
          }, renderDelayMs);
        }
      },
      onState: setState,
    });
    subscription.start();
    const stopListening = session.subscribe(() => {
      const token = session.currentToken();
      if (token !== null) subscription.refreshToken(token);
    });
    return () => {
      stopListening();
      subscription.stop();
      window.clearTimeout(renderTimer.current);
    };
  }, [stream, tenant, from, subscribeUrl, openSocket, timers, session, buffer]);

  // Following: the newest row stays in view.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element !== null && !buffer.paused) element.scrollTop = element.scrollHeight;
  });

  // Text selected inside the tail holds it still, so the selection is not pulled away.
  useEffect(() => {
    const onSelection = () => {
      const selection = document.getSelection();
      const element = scroller.current;
      const inside =
        selection !== null &&
        !selection.isCollapsed &&
        selection.rangeCount > 0 &&
        element !== null &&
        element.contains(selection.getRangeAt(0).commonAncestorContainer);
      if (inside) buffer.pause("selection");
      else buffer.resume("selection");
      rerender();
    };
    document.addEventListener("selectionchange", onSelection);
    return () => document.removeEventListener("selectionchange", onSelection);
  }, [buffer]);

  const onScroll = () => {
    const element = scroller.current;
    if (element === null) return;
    const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 8;
    const changed = atBottom ? buffer.resume("scrolled") : buffer.pause("scrolled");
    if (changed || buffer.pauseReasons.includes("scrolled") !== !atBottom) rerender();
  };

  const open = (event: EventRecord) => {
    buffer.pause("event-open");
    setOpened(event);
    window.setTimeout(() => closeButton.current?.focus(), 0);
  };
  const close = () => {
    buffer.resume("event-open");
    setOpened(null);
  };
  const operatorPaused = buffer.pauseReasons.includes("operator");
  const isAll = stream === "$all";
  const stopped = state.kind === "stopped" ? state.error : null;

  return (
    <div class="live">
      <div class="toolbar-row">
        <span class={`live-state live-${state.kind}`} role="status">
          {stateText(state)}
          {buffer.paused ? ` · paused: ${buffer.pauseReasons.map((r) => reasonText[r]).join(", ")}` : ""}
        </span>
        <button
          type="button"
          data-shortcut="pause"
          aria-pressed={operatorPaused}
          onClick={() => {
            if (operatorPaused) buffer.resume("operator");
            else buffer.pause("operator");
            rerender();
          }}
        >
          {operatorPaused ? "Resume" : "Pause"}
        </button>
        {buffer.newCount > 0 ? (
          <button
            type="button"
            class="primary new-events"
            onClick={() => {
              buffer.resumeAll();
              setOpened(null);
              window.getSelection()?.removeAllRanges();
              rerender();
            }}
          >
            {formatCount(buffer.newCount)} new {buffer.newCount === 1 ? "event" : "events"}: show
          </button>
        ) : null}
        <span class="muted">
          Keeps the last {rowsMax} events
          {buffer.dropped > 0 ? ` (${formatCount(buffer.dropped)} older ones dropped)` : ""}.
        </span>
      </div>
      {stopped !== null ? (
        <ErrorNotice error={new ApiError(stopped.code, stopped.message, 0)} action="The live tail stopped" />
      ) : null}
      <div class="live-layout">
        <div
          class="live-scroller"
          ref={scroller}
          tabIndex={0}
          role="region"
          aria-label={label}
          onScroll={onScroll}
        >
          <table class="data">
            <caption class="offscreen">{label}</caption>
            <thead>
              <tr>
                <th scope="col" class="num">
                  {isAll ? "Position" : "Revision"}
                </th>
                {isAll ? <th scope="col">Stream</th> : null}
                <th scope="col">Type</th>
                <th scope="col">Created</th>
                <th scope="col">Data</th>
              </tr>
            </thead>
            <tbody>
              {buffer.rows.map((event) => (
                <tr
                  key={isAll ? event.position : event.revision}
                  class={opened === event ? "selected" : undefined}
                >
                  <td class="num">
                    <button
                      type="button"
                      class="link"
                      onClick={() => open(event)}
                      aria-label={`Open event ${isAll ? `at position ${event.position}` : `revision ${event.revision}`}`}
                    >
                      {isAll ? event.position : event.revision}
                    </button>
                  </td>
                  {isAll ? (
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
                  ) : null}
                  <td class="mono">{event.event_type}</td>
                  <td>
                    <Time iso={event.created_at} />
                  </td>
                  <td class="mono preview">{payloadPreview(event)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {buffer.rows.length === 0 ? <p class="empty">Waiting for events…</p> : null}
        </div>
        {opened !== null ? (
          <aside
            class="event-panel"
            aria-labelledby="opened-event-heading"
            onKeyDown={(event) => {
              if (event.key === "Escape") close();
            }}
          >
            <div class="payload-head">
              <h2 id="opened-event-heading">
                {isAll ? `Position ${opened.position}` : `Revision ${opened.revision}`}
              </h2>
              <button type="button" ref={closeButton} onClick={close}>
                Close
              </button>
              <Link
                route={{
                  page: "event",
                  streamId: opened.stream_id,
                  revision: opened.revision,
                  tenant: route.tenant,
                }}
              >
                Open its page
              </Link>
            </div>
            <EventDetails event={opened} payloads={null} />
          </aside>
        ) : null}
      </div>
    </div>
  );
}

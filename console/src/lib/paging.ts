/**
 * Paging through a stream, and through cursor-paged lists.
 *
 * A stream page is a window of revisions named by where it starts and which way it reads:
 * `{from, direction, limit}`, all of it in the page's URL. Its links (oldest, older, newer,
 * newest) are computed from the revisions the page shows and the stream's first and last
 * readable revisions, so that:
 * - every link names a concrete revision except "newest" (read backward from the end), and the
 *   newest page, once read, is pinned to the revision it ended at (`pinnedView`): a page stays
 *   put while events are appended, and its URL shows the same events tomorrow;
 * - older and newer pages touch the current one without overlap or gap: older ends just before
 *   the lowest revision shown, newer starts just after the highest;
 * - a link that would show nothing new is null (its button disabled).
 * Rows are always shown in ascending revision order, whichever way the page was read.
 */

export type Direction = "forward" | "backward";

export interface StreamView {
  /** First revision to read; null: the stream's end (backward) or start (forward). */
  from: number | null;
  direction: Direction;
  limit: number;
}

export const pageSizes = [10, 20, 50, 100, 200, 500, 1000] as const;
export const pageSizeDefault = 50;
/** The contract's limit on one read (docs/contract.md "REST routes": `limit` 1..1000). */
export const pageSizeMax = 1000;

/** The stream's readable range, from its info; null when it has no readable event. */
export interface RevisionRange {
  first: number;
  last: number;
}

export interface PageLinks {
  oldest: StreamView | null;
  older: StreamView | null;
  newer: StreamView | null;
  newest: StreamView | null;
}

function parseRevision(text: string | null | undefined): number | null {
  if (text === null || text === undefined || !/^\d{1,16}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

export function clampLimit(value: number | null): number {
  if (value === null || !Number.isInteger(value) || value < 1) return pageSizeDefault;
  return Math.min(value, pageSizeMax);
}

/** A view from the URL's parameters; anything unreadable falls back to the newest page. */
export function parseStreamView(params: { get(name: string): string | null }): StreamView {
  const direction: Direction = params.get("dir") === "forward" ? "forward" : "backward";
  return {
    from: parseRevision(params.get("from")),
    direction,
    limit: clampLimit(parseRevision(params.get("limit"))),
  };
}

/** The URL parameters of a view (the default limit is left out). */
export function streamViewParams(view: StreamView): Record<string, string | null> {
  return {
    from: view.from === null ? null : String(view.from),
    dir: view.direction,
    limit: view.limit === pageSizeDefault ? null : String(view.limit),
  };
}

export function newestView(limit: number): StreamView {
  return { from: null, direction: "backward", limit };
}

export function oldestView(limit: number, range: RevisionRange | null): StreamView {
  return { from: range?.first ?? 0, direction: "forward", limit };
}

/** "Go to revision R": the page that starts at R. */
export function revisionView(revision: number, limit: number): StreamView {
  return { from: revision, direction: "forward", limit };
}

/** The lowest and highest revisions of a page's events, or null for an empty page. */
export function shownRange(revisions: readonly number[]): RevisionRange | null {
  if (revisions.length === 0) return null;
  return { first: Math.min(...revisions), last: Math.max(...revisions) };
}

export function pageLinks(
  view: StreamView,
  shown: RevisionRange | null,
  readable: RevisionRange | null,
): PageLinks {
  const { limit } = view;
  if (readable === null) return { oldest: null, older: null, newer: null, newest: null };
  if (shown === null) {
    // Past either end, or in a hole retention made: both ends are one click away.
    return { oldest: oldestView(limit, readable), older: null, newer: null, newest: newestView(limit) };
  }
  const atStart = shown.first <= readable.first;
  const atEnd = shown.last >= readable.last;
  return {
    oldest: atStart ? null : oldestView(limit, readable),
    older: atStart ? null : { from: shown.first - 1, direction: "backward", limit },
    newer: atEnd ? null : { from: shown.last + 1, direction: "forward", limit },
    newest: atEnd ? null : newestView(limit),
  };
}

/**
 * The view to put in the URL once a page is read: the newest page (from the end) becomes the
 * page that reads back from the highest revision it showed, so the link keeps showing it.
 */
export function pinnedView(view: StreamView, shown: RevisionRange | null): StreamView {
  if (view.from !== null || shown === null) return view;
  return view.direction === "backward"
    ? { from: shown.last, direction: "backward", limit: view.limit }
    : { from: shown.first, direction: "forward", limit: view.limit };
}

/** Rows in ascending revision order, whichever way they were read. */
export function ascending<T extends { revision: number }>(events: readonly T[]): T[] {
  return [...events].sort((a, b) => a.revision - b.revision);
}

/** "revisions 100–149 of 0–2,345": what a page shows, for its heading. */
export function describePage(shown: RevisionRange | null, readable: RevisionRange | null): string {
  if (readable === null) return "no readable events";
  if (shown === null) return `no events here; readable revisions are ${readable.first}–${readable.last}`;
  const span =
    shown.first === shown.last ? `revision ${shown.first}` : `revisions ${shown.first}–${shown.last}`;
  return `${span} of ${readable.first}–${readable.last}`;
}

/**
 * Where each cursor-paged list page came from, so "previous" works on lists whose cursors only
 * go forward. Bounded: past `entriesMax` pages the oldest are forgotten (previous then goes to
 * the first page).
 */
export class CursorTrail {
  private readonly previousOf = new Map<string, string | null>();

  constructor(private readonly entriesMax = 500) {}

  /** Records that the page at `next` was reached from the page at `current` (null: the first). */
  record(current: string | null, next: string): void {
    this.previousOf.delete(next);
    this.previousOf.set(next, current);
    while (this.previousOf.size > this.entriesMax) {
      const oldest = this.previousOf.keys().next();
      if (oldest.done === true) break;
      this.previousOf.delete(oldest.value);
    }
  }

  /**
   * The cursor of the page before `cursor`: null for the first page (also when the page was
   * reached by a link rather than from here); undefined when `cursor` is the first page.
   */
  previous(cursor: string | null): string | null | undefined {
    if (cursor === null) return undefined;
    return this.previousOf.has(cursor) ? (this.previousOf.get(cursor) ?? null) : null;
  }
}

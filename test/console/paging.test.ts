import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ascending,
  CursorTrail,
  describePage,
  newestView,
  pageLinks,
  parseStreamView,
  pinnedView,
  shownRange,
  streamViewParams,
  type StreamView,
} from "../../console/src/lib/paging.js";

const limit = 50;
const readable = { first: 0, last: 129 };

test("the newest page links to older and oldest only", () => {
  const links = pageLinks(newestView(limit), { first: 80, last: 129 }, readable);
  assert.deepEqual(links.older, { from: 79, direction: "backward", limit });
  assert.deepEqual(links.oldest, { from: 0, direction: "forward", limit });
  assert.equal(links.newer, null);
  assert.equal(links.newest, null);
});

test("older and newer pages touch the current one without overlap or gap", () => {
  const view: StreamView = { from: 79, direction: "backward", limit };
  const links = pageLinks(view, { first: 30, last: 79 }, readable);
  assert.deepEqual(links.older, { from: 29, direction: "backward", limit });
  assert.deepEqual(links.newer, { from: 80, direction: "forward", limit });
  assert.deepEqual(links.newest, newestView(limit));
});

test("the oldest page has no older link, and retention's first readable revision is the start", () => {
  const links = pageLinks(
    { from: 10, direction: "forward", limit },
    { first: 10, last: 59 },
    { first: 10, last: 129 },
  );
  assert.equal(links.older, null);
  assert.equal(links.oldest, null);
  assert.deepEqual(links.newer, { from: 60, direction: "forward", limit });
});

test("an empty page past the end links to both ends; an empty stream links nowhere", () => {
  const links = pageLinks({ from: 500, direction: "forward", limit }, null, readable);
  assert.deepEqual(links.oldest, { from: 0, direction: "forward", limit });
  assert.deepEqual(links.newest, newestView(limit));
  assert.equal(links.older, null);
  assert.equal(links.newer, null);
  assert.deepEqual(pageLinks(newestView(limit), null, null), {
    oldest: null,
    older: null,
    newer: null,
    newest: null,
  });
});

test("the newest page is pinned to where it ended, so its link stays put", () => {
  assert.deepEqual(pinnedView(newestView(limit), { first: 80, last: 129 }), {
    from: 129,
    direction: "backward",
    limit,
  });
  const concrete: StreamView = { from: 79, direction: "backward", limit };
  assert.equal(pinnedView(concrete, { first: 30, last: 79 }), concrete);
  assert.deepEqual(pinnedView(newestView(limit), null), newestView(limit));
});

test("views go to URL parameters and back; bad parameters fall back to the newest page", () => {
  const views: StreamView[] = [
    newestView(50),
    { from: 0, direction: "forward", limit: 10 },
    { from: 123, direction: "backward", limit: 1000 },
  ];
  for (const view of views) {
    const params = streamViewParams(view);
    assert.deepEqual(parseStreamView({ get: (name) => params[name] ?? null }), view);
  }
  const bad: Record<string, string> = { from: "-3", dir: "sideways", limit: "5000" };
  assert.deepEqual(parseStreamView({ get: (name) => bad[name] ?? null }), {
    from: null,
    direction: "backward",
    limit: 1000,
  });
  const none: Record<string, string> = { limit: "0" };
  assert.deepEqual(parseStreamView({ get: (name) => none[name] ?? null }), newestView(50));
});

test("rows are shown in ascending revision order whichever way they were read", () => {
  assert.deepEqual(
    ascending([{ revision: 3 }, { revision: 1 }, { revision: 2 }]).map((e) => e.revision),
    [1, 2, 3],
  );
  assert.deepEqual(shownRange([5, 3, 9]), { first: 3, last: 9 });
  assert.equal(shownRange([]), null);
});

test("a page says what it shows", () => {
  assert.equal(describePage({ first: 80, last: 129 }, readable), "revisions 80–129 of 0–129");
  assert.equal(describePage({ first: 7, last: 7 }, readable), "revision 7 of 0–129");
  assert.equal(describePage(null, null), "no readable events");
});

test("the cursor trail remembers where each list page came from, within its bound", () => {
  const trail = new CursorTrail(3);
  assert.equal(trail.previous(null), undefined);
  trail.record(null, "c1");
  trail.record("c1", "c2");
  assert.equal(trail.previous("c2"), "c1");
  assert.equal(trail.previous("c1"), null);
  assert.equal(trail.previous("unknown"), null);
  trail.record("c2", "c3");
  trail.record("c3", "c4");
  // c1's entry was the oldest and is forgotten: previous goes to the first page.
  assert.equal(trail.previous("c4"), "c3");
  assert.equal(trail.previous("c1"), null);
});

/**
 * `$all` backwards and filtered: direction, from_position (inclusive both ways), the four filter
 * criteria alone and combined, the skip bound (pages with fewer events than their limit, even
 * none, whose next_position still moves past what they looked at), and tenant isolation.
 */
import assert from "node:assert/strict";
import type { EventRecord, ReadDirection } from "../../contract/bodies.js";
import { noFilter, type EventFilter } from "../../contract/event-filter.js";
import type { StorageEngine } from "../engine.js";
import type { CaseContext } from "./suite.js";
import { appendEvents, newEvents, readTenantFully, rejectsWith } from "./harness.js";

interface FullRead {
  events: EventRecord[];
  pages: number;
  emptyPages: number;
}

/** Every event of a tenant the filter matches, page by page, checking each page's next_position. */
async function readAllFully(
  engine: StorageEngine,
  tenantId: string,
  options: {
    direction?: ReadDirection;
    filter?: Partial<EventFilter>;
    limit?: number;
    skip_max?: number;
  } = {},
): Promise<FullRead> {
  const direction = options.direction ?? "forward";
  const filter = { ...noFilter, ...options.filter };
  const events: EventRecord[] = [];
  let from: number | null = null;
  let emptyPages = 0;
  for (let pages = 1; ; pages++) {
    assert.ok(pages < 10_000, "readAll paging ends");
    const page = await engine.readAll({
      tenant_id: tenantId,
      direction,
      from_position: from,
      limit: options.limit ?? 1000,
      filter,
      ...(options.skip_max === undefined ? {} : { skip_max: options.skip_max }),
    });
    events.push(...page.events);
    if (page.events.length === 0) emptyPages++;
    assert.equal(page.is_end, page.next_position === null, "is_end exactly when next_position is null");
    if (page.is_end) return { events, pages, emptyPages };
    const next = page.next_position!;
    const last = page.events[page.events.length - 1];
    if (last !== undefined) {
      assert.ok(
        direction === "forward" ? next > last.position : next < last.position,
        "next_position is past the page",
      );
    }
    if (from !== null)
      assert.ok(direction === "forward" ? next > from : next < from, "next_position moves on");
    from = next;
  }
}

const positions = (events: EventRecord[]): number[] => events.map((e) => e.position);

/** 40 events of acme over streams orders-*, users-*, order-audit, with types of two families. */
async function appendMix(engine: StorageEngine): Promise<void> {
  const streams = ["orders-1", "users-1", "orders-2", "order-audit", "users-2"];
  for (let i = 0; i < 40; i++) {
    const type = i % 3 === 0 ? "OrderPlaced" : i % 3 === 1 ? "OrderShipped" : "UserRenamed";
    await appendEvents(
      engine,
      "acme",
      streams[i % streams.length]!,
      newEvents(1, () => ({ event_type: type })),
    );
    if (i % 4 === 0) {
      await appendEvents(
        engine,
        "globex",
        streams[i % streams.length]!,
        newEvents(1, () => ({ event_type: type })),
      );
    }
  }
}

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function readAllFilterCases({ test }: CaseContext): void {
  test("readAll backward from the end gives the tenant's events newest first, paging to the first", async (store) => {
    const { engine } = store;
    await appendMix(engine);
    const forward = await readTenantFully(engine, "acme");
    for (const limit of [1, 7, 1000]) {
      const backward = await readAllFully(engine, "acme", { direction: "backward", limit });
      assert.deepEqual(positions(backward.events), positions(forward).reverse(), `limit ${limit}`);
      assert.deepEqual(backward.events, [...forward].reverse());
    }
    const first = await engine.readAll({
      tenant_id: "acme",
      direction: "backward",
      from_position: null,
      limit: 3,
    });
    assert.deepEqual(positions(first.events), positions(forward.slice(-3)).reverse());
    assert.equal(first.is_end, false);
    assert.ok(first.next_position! < first.events[2]!.position);
    assert.ok(
      first.next_position! >= forward[forward.length - 4]!.position,
      "the next page starts at the next event",
    );
  });

  test("readAll backward from a position is inclusive; past the end starts at the last event", async (store) => {
    const { engine } = store;
    await appendMix(engine);
    const all = await readTenantFully(engine, "acme");
    const at = all[10]!.position;
    const page = await engine.readAll({
      tenant_id: "acme",
      direction: "backward",
      from_position: at,
      limit: 3,
    });
    assert.deepEqual(
      positions(page.events),
      [all[10]!, all[9]!, all[8]!].map((e) => e.position),
    );
    const past = await engine.readAll({
      tenant_id: "acme",
      direction: "backward",
      from_position: all[all.length - 1]!.position + 1000,
      limit: 2,
    });
    assert.deepEqual(positions(past.events), positions(all.slice(-2)).reverse());
    const belowFirst = await engine.readAll({
      tenant_id: "acme",
      direction: "backward",
      from_position: Math.max(0, all[0]!.position - 1),
      limit: 5,
    });
    if (all[0]!.position > 0) assert.deepEqual(belowFirst.events, []);
    const toFirst = await engine.readAll({
      tenant_id: "acme",
      direction: "backward",
      from_position: all[1]!.position,
      limit: 5,
    });
    assert.deepEqual(positions(toFirst.events), [all[1]!.position, all[0]!.position]);
    assert.equal(toFirst.is_end, true);
    const none = await engine.readAll({
      tenant_id: "nobody",
      direction: "backward",
      from_position: null,
      limit: 5,
    });
    assert.deepEqual(none, { events: [], next_position: null, is_end: true });
  });

  test("each $all filter kind gives exactly the matching events, forward and backward", async (store) => {
    const { engine } = store;
    await appendMix(engine);
    const all = await readTenantFully(engine, "acme");
    const cases: [Partial<EventFilter>, (e: EventRecord) => boolean][] = [
      [{ stream_prefix: ["orders-"] }, (e) => e.stream_id.startsWith("orders-")],
      [{ stream_prefix: ["users-", "order-"] }, (e) => /^(users-|order-)/.test(e.stream_id)],
      [{ event_type_prefix: ["Order"] }, (e) => e.event_type.startsWith("Order")],
      [
        { event_type_prefix: ["UserR", "OrderS"] },
        (e) => e.event_type === "UserRenamed" || e.event_type === "OrderShipped",
      ],
      [{ stream_regex: "-[12]$" }, (e) => /-[12]$/.test(e.stream_id)],
      [{ stream_regex: "audit" }, (e) => e.stream_id.includes("audit")],
      [{ event_type_regex: "^Order(Placed|Shipped)$" }, (e) => e.event_type.startsWith("Order")],
      [{ event_type_regex: "Renamed" }, (e) => e.event_type === "UserRenamed"],
      [{ stream_prefix: ["x"] }, () => false],
    ];
    for (const [filter, wanted] of cases) {
      const expected = all.filter(wanted);
      const forward = await readAllFully(engine, "acme", { filter, limit: 4 });
      assert.deepEqual(forward.events, expected, JSON.stringify(filter));
      const backward = await readAllFully(engine, "acme", { filter, limit: 3, direction: "backward" });
      assert.deepEqual(backward.events, [...expected].reverse(), `${JSON.stringify(filter)} backward`);
    }
  });

  test("$all filters combine: an event passes when it meets every criterion given", async (store) => {
    const { engine } = store;
    await appendMix(engine);
    const all = await readTenantFully(engine, "acme");
    const filter: Partial<EventFilter> = {
      stream_prefix: ["orders-", "users-"],
      event_type_prefix: ["Order"],
      stream_regex: "1$",
      event_type_regex: "Placed|Renamed",
    };
    const expected = all.filter(
      (e) =>
        (e.stream_id.startsWith("orders-") || e.stream_id.startsWith("users-")) &&
        e.event_type.startsWith("Order") &&
        e.stream_id.endsWith("1") &&
        /Placed|Renamed/.test(e.event_type),
    );
    assert.ok(expected.length > 0, "the case has matches");
    for (const direction of ["forward", "backward"] as const) {
      const got = await readAllFully(engine, "acme", { filter, limit: 2, direction });
      assert.deepEqual(got.events, direction === "forward" ? expected : [...expected].reverse());
    }
  });

  test("a sparse $all filter pages with at most skip_max skipped events: empty pages whose next_position advances", async (store) => {
    const { engine } = store;
    for (let i = 0; i < 30; i++) {
      await appendEvents(engine, "acme", i === 3 || i === 25 ? `rare-${i}` : `common-${i % 4}`, newEvents(1));
    }
    const all = await readTenantFully(engine, "acme");
    const expected = all.filter((e) => e.stream_id.startsWith("rare-"));
    for (const direction of ["forward", "backward"] as const) {
      const got = await readAllFully(engine, "acme", {
        filter: { stream_prefix: ["rare-"] },
        limit: 10,
        skip_max: 4,
        direction,
      });
      assert.deepEqual(got.events, direction === "forward" ? expected : [...expected].reverse());
      // 28 events to skip, at most 4 a page: at least 7 pages, most of them empty.
      assert.ok(got.pages >= 7, `${direction}: ${got.pages} pages`);
      assert.ok(got.emptyPages >= 4, `${direction}: ${got.emptyPages} empty pages`);
    }
    // At the end, the page says where a forward read resumes: past the events it passed over.
    const tail = await engine.readAll({
      tenant_id: "acme",
      from_position: all[26]!.position,
      limit: 10,
      filter: { ...noFilter, stream_prefix: ["rare-"] },
    });
    assert.deepEqual(tail.events, []);
    assert.equal(tail.is_end, true);
    assert.equal(tail.resume_position, all[29]!.position + 1);
    // The first page looks at four events, none matching, and stops at the fifth.
    const first = await engine.readAll({
      tenant_id: "acme",
      from_position: null,
      limit: 10,
      filter: { ...noFilter, stream_regex: "^rare-25$" },
      skip_max: 4,
    });
    assert.deepEqual(first.events, []);
    assert.equal(first.is_end, false);
    assert.ok(first.next_position! > all[3]!.position && first.next_position! <= all[4]!.position);
    // skip_max 0: a page ends at the first event it does not take.
    const strict = await engine.readAll({
      tenant_id: "acme",
      from_position: null,
      limit: 10,
      filter: { ...noFilter, stream_prefix: ["common-"] },
      skip_max: 0,
    });
    assert.deepEqual(positions(strict.events), positions(all.slice(0, 3)));
    assert.ok(strict.next_position! > all[2]!.position && strict.next_position! <= all[3]!.position);
  });

  test("a filtered readAll never gives another tenant's events, nor events retention hides", async (store) => {
    const { engine } = store;
    await appendMix(engine);
    await engine.setRetention("acme", "orders-1", {
      max_age_seconds: null,
      max_count: 2,
      truncate_before: null,
    });
    const all = await readTenantFully(engine, "acme");
    for (const filter of [{ stream_prefix: ["orders-"] }, { event_type_regex: "." }]) {
      const got = await readAllFully(engine, "acme", { filter, limit: 5, skip_max: 3 });
      assert.ok(got.events.every((e) => all.some((a) => a.position === e.position)));
      assert.equal(got.events.filter((e) => e.stream_id === "orders-1").length, 2);
      const globex = await readAllFully(engine, "globex", { filter, limit: 5 });
      assert.ok(globex.events.length > 0);
      assert.ok(globex.events.every((e) => !all.some((a) => a.position === e.position)));
    }
    const nobody = await readAllFully(engine, "nobody", { filter: { stream_prefix: ["orders-"] } });
    assert.deepEqual(nobody.events, []);
  });

  test("readAll refuses a bad filter with INVALID_ARGUMENT naming the field; a hostile pattern runs in linear time", async (store) => {
    const { engine } = store;
    const longId = `${"a".repeat(190)}!`;
    await appendEvents(
      engine,
      "acme",
      longId,
      newEvents(2, () => ({ event_type: `${"a".repeat(150)}!` })),
    );
    const read = (filter: Partial<EventFilter>) =>
      engine.readAll({
        tenant_id: "acme",
        from_position: null,
        limit: 10,
        filter: { ...noFilter, ...filter },
      });
    for (const [filter, field] of [
      [{ stream_regex: "(a" }, "stream_regex"],
      [{ event_type_regex: "(?=a)b" }, "event_type_regex"],
      [{ stream_regex: "" }, "stream_regex"],
      [{ stream_prefix: [""] }, "stream_prefix"],
      [{ event_type_prefix: Array.from({ length: 101 }, (_, i) => `t${i}`) }, "event_type_prefix"],
    ] as const) {
      const error = await rejectsWith(read(filter), "INVALID_ARGUMENT");
      assert.equal(error.details.field, field);
    }
    // A backtracking engine takes about 2^190 steps on these; RE2 answers at once.
    for (const filter of [
      { stream_regex: "(a+)+$" },
      { event_type_regex: "^(a|a)*$" },
      { stream_regex: "(a*)*b" },
    ]) {
      const page = await read(filter);
      assert.deepEqual(page.events, []);
      assert.equal(page.is_end, true);
    }
    const page = await read({ stream_regex: "(a+)+!$" });
    assert.equal(page.events.length, 2);
  });
}

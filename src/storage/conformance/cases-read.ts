/**
 * Reading: a stream forward and backward with paging, a tenant's events in global order,
 * stream info, stream listings, and tenant isolation.
 */
import assert from "node:assert/strict";
import type { StorageEngine } from "../engine.js";
import type { CaseContext } from "./suite.js";
import {
  appendEvents,
  appended,
  assertIsoMillisUtc,
  assertStrictlyIncreasing,
  listStreamsFully,
  newEvents,
  readStreamFully,
  readTenantFully,
  rejectsWith,
} from "./harness.js";

async function read(
  engine: StorageEngine,
  streamId: string,
  direction: "forward" | "backward",
  from: number | null,
  limit: number,
) {
  const page = await engine.readStream({
    tenant_id: "acme",
    stream_id: streamId,
    direction,
    from_revision: from,
    limit,
  });
  return {
    revisions: page.events.map((e) => e.revision),
    next_revision: page.next_revision,
    is_end: page.is_end,
    page,
  };
}

/** Bytes a page budget counts for an event: its data and metadata, UTF-8. */
function payloadBytes(event: { data: string; metadata: string }): number {
  return Buffer.byteLength(event.data) + Buffer.byteLength(event.metadata);
}

/**
 * The pages a reader gets over events of these sizes (in read order): each takes events while
 * it holds fewer than `limit` and the next one keeps it within `bytesMax`, and at least one.
 */
function expectedPages(sizes: number[], limit: number, bytesMax: number): number[][] {
  const pages: number[][] = [];
  let i = 0;
  while (i < sizes.length) {
    const page: number[] = [];
    let bytes = 0;
    while (i < sizes.length && page.length < limit && (page.length === 0 || bytes + sizes[i]! <= bytesMax)) {
      bytes += sizes[i]!;
      page.push(i++);
    }
    pages.push(page);
  }
  return pages;
}

/** Events whose data and metadata add up to these sizes (with two-byte characters among them). */
function eventsOfSizes(sizes: number[]) {
  return newEvents(sizes.length, (i) => {
    const size = sizes[i]!;
    assert.ok(size >= 10, "the smallest event here is 10 bytes");
    // {"s":"é…x…"} is 8 bytes of framing; é is two bytes in UTF-8 and one UTF-16 unit.
    const wide = Math.floor((size - 10) / 4);
    const data = `{"s":"${"é".repeat(wide)}${"x".repeat(size - 10 - wide * 2)}"}`;
    return { data, metadata: "{}" };
  });
}

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function readCases({ test }: CaseContext): void {
  test("a read page stops before its data and metadata pass bytes_max, always with one event, and pages on", async (store) => {
    const { engine } = store;
    const sizes = [100, 120, 90, 450, 30, 30, 30, 200, 189, 10, 300, 64];
    const events = eventsOfSizes(sizes);
    assert.deepEqual(events.map(payloadBytes), sizes);
    await appendEvents(engine, "acme", "s", events.slice(0, 5));
    await appendEvents(engine, "acme", "s", events.slice(5));
    for (const [limit, bytesMax] of [
      [1000, 300],
      [2, 300],
      [1000, 1],
      [1000, 450],
      [3, 100_000],
    ] as const) {
      for (const direction of ["forward", "backward"] as const) {
        const order =
          direction === "forward" ? sizes.map((_, i) => i) : sizes.map((_, i) => sizes.length - 1 - i);
        const want = expectedPages(
          order.map((r) => sizes[r]!),
          limit,
          bytesMax,
        ).map((page) => page.map((i) => order[i]!));
        const got: number[][] = [];
        let from: number | null = null;
        for (;;) {
          const page = await engine.readStream({
            tenant_id: "acme",
            stream_id: "s",
            direction,
            from_revision: from,
            limit,
            bytes_max: bytesMax,
          });
          got.push(page.events.map((e) => e.revision));
          for (const e of page.events) assert.deepEqual(appended(e), events[e.revision]);
          assert.equal(page.is_end, page.next_revision === null);
          if (page.is_end) break;
          assert.ok(got.length <= sizes.length, "paging ends");
          from = page.next_revision;
        }
        assert.deepEqual(got, want, `${direction}, limit ${limit}, bytes_max ${bytesMax}`);
      }
    }
    await rejectsWith(
      engine.readStream({
        tenant_id: "acme",
        stream_id: "s",
        direction: "forward",
        from_revision: null,
        limit: 10,
        bytes_max: 0,
      }),
      "INVALID_ARGUMENT",
    );
  });

  test("a readAll page stops before its data and metadata pass bytes_max, always with one event, and pages on", async (store) => {
    const { engine } = store;
    const sizes = [100, 120, 90, 450, 30, 30, 30, 200, 189, 10, 300, 64];
    const events = eventsOfSizes(sizes);
    for (const [i, event] of events.entries()) {
      await appendEvents(engine, "acme", `s-${i % 3}`, [event]);
      await appendEvents(engine, "globex", "big", eventsOfSizes([500]));
    }
    for (const [limit, bytesMax] of [
      [1000, 300],
      [2, 300],
      [1000, 1],
      [1, 1],
      [3, 100_000],
    ] as const) {
      const want = expectedPages(sizes, limit, bytesMax);
      const got: number[][] = [];
      let from = 0;
      for (;;) {
        const page = await engine.readAll({
          tenant_id: "acme",
          from_position: from,
          limit,
          bytes_max: bytesMax,
        });
        got.push(page.events.map((e) => events.findIndex((x) => x.event_id === e.event_id)));
        assert.equal(page.is_end, page.next_position === null);
        if (page.is_end) break;
        assert.ok(got.length <= sizes.length, "paging ends");
        assert.ok(page.next_position! > page.events[page.events.length - 1]!.position);
        from = page.next_position!;
      }
      assert.deepEqual(got, want, `limit ${limit}, bytes_max ${bytesMax}`);
    }
  });

  test("reading forward pages through a stream with next_revision until is_end", async (store) => {
    const { engine } = store;
    const events = newEvents(10);
    await appendEvents(engine, "acme", "s", events.slice(0, 4));
    await appendEvents(engine, "acme", "s", events.slice(4));
    const first = await read(engine, "s", "forward", null, 3);
    assert.equal(first.page.stream_id, "s");
    assert.equal(first.page.direction, "forward");
    assert.deepEqual(first.revisions, [0, 1, 2]);
    assert.equal(first.next_revision, 3);
    assert.equal(first.is_end, false);
    assert.deepEqual(first.page.events.map(appended), events.slice(0, 3));
    const second = await read(engine, "s", "forward", 3, 3);
    assert.deepEqual([second.revisions, second.next_revision, second.is_end], [[3, 4, 5], 6, false]);
    const third = await read(engine, "s", "forward", 6, 3);
    assert.deepEqual([third.revisions, third.next_revision, third.is_end], [[6, 7, 8], 9, false]);
    const last = await read(engine, "s", "forward", 9, 3);
    assert.deepEqual([last.revisions, last.next_revision, last.is_end], [[9], null, true]);
  });

  test("a forward page that ends on the stream's last event is the end", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(6));
    const page = await read(engine, "s", "forward", 3, 3);
    assert.deepEqual([page.revisions, page.next_revision, page.is_end], [[3, 4, 5], null, true]);
    const whole = await read(engine, "s", "forward", null, 1000);
    assert.deepEqual([whole.revisions.length, whole.next_revision, whole.is_end], [6, null, true]);
  });

  test("reading backward starts at the last revision and pages down to revision 0", async (store) => {
    const { engine } = store;
    const events = newEvents(7);
    await appendEvents(engine, "acme", "s", events);
    const first = await read(engine, "s", "backward", null, 3);
    assert.equal(first.page.direction, "backward");
    assert.deepEqual([first.revisions, first.next_revision, first.is_end], [[6, 5, 4], 3, false]);
    assert.deepEqual(first.page.events.map(appended), [events[6], events[5], events[4]]);
    const second = await read(engine, "s", "backward", 3, 3);
    assert.deepEqual([second.revisions, second.next_revision, second.is_end], [[3, 2, 1], 0, false]);
    const last = await read(engine, "s", "backward", 0, 3);
    assert.deepEqual([last.revisions, last.next_revision, last.is_end], [[0], null, true]);
    const exact = await read(engine, "s", "backward", 2, 3);
    assert.deepEqual([exact.revisions, exact.next_revision, exact.is_end], [[2, 1, 0], null, true]);
  });

  test("reading from a given revision starts there in either direction", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(8));
    assert.deepEqual((await read(engine, "s", "forward", 4, 2)).revisions, [4, 5]);
    assert.deepEqual((await read(engine, "s", "backward", 4, 2)).revisions, [4, 3]);
    assert.deepEqual((await read(engine, "s", "forward", 7, 2)).revisions, [7]);
    assert.deepEqual((await read(engine, "s", "backward", 0, 2)).revisions, [0]);
  });

  test("reading forward past the last revision gives no events and the end", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(3));
    const page = await read(engine, "s", "forward", 3, 10);
    assert.deepEqual([page.revisions, page.next_revision, page.is_end], [[], null, true]);
    const far = await read(engine, "s", "forward", 1000, 10);
    assert.deepEqual([far.revisions, far.next_revision, far.is_end], [[], null, true]);
  });

  test("reading a stream that does not exist fails with STREAM_NOT_FOUND", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "globex", "s", newEvents(1));
    for (const direction of ["forward", "backward"] as const) {
      const error = await rejectsWith(
        engine.readStream({ tenant_id: "acme", stream_id: "s", direction, from_revision: null, limit: 10 }),
        "STREAM_NOT_FOUND",
      );
      assert.equal(error.details.stream_id, "s");
    }
  });

  test("readAll gives the tenant's events in global order, paging with next_position, and no other tenant's", async (store) => {
    const { engine } = store;
    const expected = [];
    for (let i = 0; i < 12; i++) {
      const batch = newEvents(1 + (i % 3));
      await appendEvents(engine, "acme", `s-${i % 4}`, batch);
      await appendEvents(engine, "globex", `s-${i % 4}`, newEvents(1));
      expected.push(...batch);
    }
    for (const pageSize of [1, 5, 1000]) {
      const events = await readTenantFully(engine, "acme", pageSize);
      assert.deepEqual(events.map(appended), expected);
      assertStrictlyIncreasing(
        events.map((e) => e.position),
        "readAll positions",
      );
    }
    const all = await readTenantFully(engine, "acme");
    const page = await engine.readAll({ tenant_id: "acme", from_position: 0, limit: 5 });
    assert.equal(page.events.length, 5);
    assert.equal(page.is_end, false);
    assert.ok(page.next_position !== null && page.next_position > page.events[4]!.position);
    assert.ok(page.next_position <= all[5]!.position, "next_position does not skip the next event");
    // from_position is inclusive.
    const from = await engine.readAll({ tenant_id: "acme", from_position: all[7]!.position, limit: 2 });
    assert.deepEqual(from.events, all.slice(7, 9));
    const globex = await readTenantFully(engine, "globex");
    assert.equal(globex.length, 12);
    const acmeIds = new Set(all.map((e) => e.event_id));
    assert.ok(globex.every((e) => !acmeIds.has(e.event_id)));
  });

  test("readAll of a tenant without events is empty and at its end", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "globex", "s", newEvents(3));
    const page = await engine.readAll({ tenant_id: "acme", from_position: 0, limit: 10 });
    assert.deepEqual(page, { events: [], next_position: null, is_end: true });
    const past = await engine.readAll({
      tenant_id: "globex",
      from_position: (await engine.status()).last_position + 1,
      limit: 10,
    });
    assert.deepEqual(past, { events: [], next_position: null, is_end: true });
  });

  test("getStreamInfo describes a stream, and is null for a stream that never existed", async (store, clock) => {
    const { engine } = store;
    const createdAt = clock.iso();
    await appendEvents(engine, "acme", "s", newEvents(2));
    clock.advanceSeconds(60);
    const updatedAt = clock.iso();
    await appendEvents(engine, "acme", "s", newEvents(1));
    const info = await engine.getStreamInfo("acme", "s");
    assert.ok(info);
    assert.equal(info.stream_id, "s");
    assert.equal(info.tenant_id, "acme");
    assert.equal(info.event_count, 3);
    assert.equal(info.first_revision, 0);
    assert.equal(info.last_revision, 2);
    assert.ok(Number.isSafeInteger(info.bytes) && info.bytes > 0, "bytes is a positive integer");
    assertIsoMillisUtc(info.created_at, "created_at");
    assertIsoMillisUtc(info.updated_at, "updated_at");
    assert.equal(info.created_at, createdAt, "created_at is the time of the first append");
    assert.equal(info.updated_at, updatedAt, "updated_at is the time of the last append");
    assert.equal(info.deleted, false);
    assert.deepEqual(info.retention, { max_age_seconds: null, max_count: null, truncate_before: null });
    assert.equal(await engine.getStreamInfo("acme", "missing"), null);
    assert.equal(await engine.getStreamInfo("globex", "s"), null);
    const reopened = await store.reopen();
    assert.deepEqual(await reopened.getStreamInfo("acme", "s"), info);
  });

  test("a stream's bytes grow with the data appended", async (store) => {
    const { engine } = store;
    await appendEvents(
      engine,
      "acme",
      "small",
      newEvents(1, () => ({ data: '{"a":1}' })),
    );
    await appendEvents(
      engine,
      "acme",
      "big",
      newEvents(1, () => ({ data: JSON.stringify({ a: "x".repeat(10_000) }) })),
    );
    const small = (await engine.getStreamInfo("acme", "small"))!.bytes;
    const big = (await engine.getStreamInfo("acme", "big"))!.bytes;
    assert.ok(big - small >= 9_900, `a 10 kB event takes about 10 kB more (${small} vs ${big})`);
  });

  test("listStreams lists a tenant's streams by prefix with cursor paging, each exactly once", async (store) => {
    const { engine } = store;
    const acme: string[] = [];
    for (let i = 0; i < 15; i++) acme.push(`orders-${String(i).padStart(2, "0")}`);
    for (let i = 0; i < 10; i++) acme.push(`users-${i}`);
    for (const [i, id] of acme.entries()) await appendEvents(engine, "acme", id, newEvents(1 + (i % 2)));
    for (let i = 0; i < 5; i++) await appendEvents(engine, "globex", `orders-g${i}`, newEvents(1));

    for (const pageSize of [1, 7, 25, 1000]) {
      const listed = await listStreamsFully(engine, "acme", null, pageSize);
      assert.deepEqual(listed.map((s) => s.stream_id).sort(), [...acme].sort(), `page size ${pageSize}`);
      assert.ok(listed.every((s) => s.tenant_id === "acme"));
    }
    const orders = await listStreamsFully(engine, "acme", "orders-", 4);
    assert.deepEqual(
      orders.map((s) => s.stream_id).sort(),
      acme.filter((id) => id.startsWith("orders-")).sort(),
    );
    assert.deepEqual(await listStreamsFully(engine, "acme", "nothing-", 4), []);
    const everyone = await listStreamsFully(engine, null, null, 6);
    assert.equal(everyone.length, 30);
    assert.equal(new Set(everyone.map((s) => `${s.tenant_id}/${s.stream_id}`)).size, 30);
    const everyOrder = await listStreamsFully(engine, null, "orders-", 6);
    assert.equal(everyOrder.length, 20);

    const summary = (await listStreamsFully(engine, "acme", "orders-01", 10))[0];
    const info = await engine.getStreamInfo("acme", "orders-01");
    assert.deepEqual(summary, {
      stream_id: "orders-01",
      tenant_id: "acme",
      event_count: info!.event_count,
      last_revision: info!.last_revision,
      bytes: info!.bytes,
      updated_at: info!.updated_at,
      deleted: false,
    });
  });

  test("a listing cursor stays valid while streams are added", async (store) => {
    const { engine } = store;
    for (let i = 0; i < 10; i++) await appendEvents(engine, "acme", `s-${i}`, newEvents(1));
    const first = await engine.listStreams({ tenant_id: "acme", prefix: null, limit: 4, cursor: null });
    await appendEvents(engine, "acme", "s-new", newEvents(1));
    const seen = first.streams.map((s) => s.stream_id);
    let cursor = first.next_cursor;
    while (cursor !== null) {
      const page = await engine.listStreams({ tenant_id: "acme", prefix: null, limit: 4, cursor });
      seen.push(...page.streams.map((s) => s.stream_id));
      cursor = page.next_cursor;
    }
    assert.equal(new Set(seen).size, seen.length, "no stream is listed twice");
    for (let i = 0; i < 10; i++) assert.ok(seen.includes(`s-${i}`), `s-${i} is listed`);
  });

  test("the same stream id in two tenants names two independent streams", async (store) => {
    const { engine } = store;
    const acmeEvents = newEvents(3);
    const globexEvents = newEvents(1);
    await appendEvents(engine, "acme", "orders-1", acmeEvents, "no_stream");
    const globexResult = await appendEvents(engine, "globex", "orders-1", globexEvents, "no_stream");
    assert.equal(globexResult.first_revision, 0, "globex's stream starts at 0 despite acme's");
    assert.deepEqual((await readStreamFully(engine, "acme", "orders-1")).map(appended), acmeEvents);
    assert.deepEqual((await readStreamFully(engine, "globex", "orders-1")).map(appended), globexEvents);
    assert.equal((await engine.getStreamInfo("acme", "orders-1"))?.event_count, 3);
    assert.equal((await engine.getStreamInfo("globex", "orders-1"))?.event_count, 1);
    await engine.setRetention("acme", "orders-1", {
      max_age_seconds: null,
      max_count: 1,
      truncate_before: null,
    });
    await engine.deleteStream("globex", "orders-1");
    assert.equal((await readStreamFully(engine, "acme", "orders-1")).length, 1);
    assert.equal((await engine.getStreamInfo("acme", "orders-1"))?.deleted, false);
    assert.deepEqual((await engine.getStreamInfo("globex", "orders-1"))?.retention, {
      max_age_seconds: null,
      max_count: null,
      truncate_before: null,
    });
    await rejectsWith(
      engine.readStream({
        tenant_id: "globex",
        stream_id: "orders-1",
        direction: "forward",
        from_revision: null,
        limit: 5,
      }),
      "STREAM_NOT_FOUND",
    );
    // An event id is scoped by stream: the same id in another tenant's stream is a new event.
    const again = await appendEvents(engine, "initech", "orders-1", [acmeEvents[0]!], "no_stream");
    assert.equal(again.first_revision, 0);
    assert.equal((await readStreamFully(engine, "initech", "orders-1")).length, 1);
  });
}

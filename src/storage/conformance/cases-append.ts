/**
 * Append: expected revisions, atomic batches, idempotency on event_id, gapless revisions,
 * global positions, and data kept byte for byte.
 */
import assert from "node:assert/strict";
import type { CaseContext } from "./suite.js";
import {
  appendEvents,
  appended,
  assertIsoMillisUtc,
  assertStrictlyIncreasing,
  newEvent,
  newEvents,
  readStreamFully,
  readTenantFully,
  rejectsWith,
} from "./harness.js";

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function appendCases({ test, harness }: CaseContext): void {
  test("the first append to a new stream gets revision 0 and later appends continue without gaps", async (store) => {
    const { engine } = store;
    const one = await appendEvents(engine, "acme", "orders-1", newEvents(1));
    assert.deepEqual(
      {
        stream_id: one.stream_id,
        first_revision: one.first_revision,
        last_revision: one.last_revision,
        count: one.count,
      },
      { stream_id: "orders-1", first_revision: 0, last_revision: 0, count: 1 },
    );
    assert.ok(
      Number.isSafeInteger(one.position) && one.position >= 0,
      "a position is a non-negative integer",
    );
    const three = await appendEvents(engine, "acme", "orders-1", newEvents(3));
    assert.equal(three.stream_id, "orders-1");
    assert.equal(three.first_revision, 1);
    assert.equal(three.last_revision, 3);
    assert.equal(three.count, 3);
    const last = await appendEvents(engine, "acme", "orders-1", newEvents(1));
    assert.equal(last.first_revision, 4);
    assert.equal(last.last_revision, 4);
    const events = await readStreamFully(engine, "acme", "orders-1");
    assert.deepEqual(
      events.map((e) => e.revision),
      [0, 1, 2, 3, 4],
    );
    assert.ok(events.every((e) => e.stream_id === "orders-1"));
  });

  test("expected revision no_stream appends to a new stream and refuses an existing one with its revision", async (store) => {
    const { engine } = store;
    const first = await appendEvents(engine, "acme", "s", newEvents(2), "no_stream");
    assert.equal(first.first_revision, 0);
    assert.equal(first.last_revision, 1);
    const error = await rejectsWith(
      appendEvents(engine, "acme", "s", newEvents(1), "no_stream"),
      "WRONG_EXPECTED_REVISION",
    );
    assert.deepEqual(error.details, { stream_id: "s", expected: "no_stream", actual: 1 });
    assert.equal((await engine.getStreamInfo("acme", "s"))?.last_revision, 1, "nothing was written");
  });

  test("expected revision stream_exists refuses a new stream without creating it and appends to an existing one", async (store) => {
    const { engine } = store;
    const error = await rejectsWith(
      appendEvents(engine, "acme", "s", newEvents(1), "stream_exists"),
      "WRONG_EXPECTED_REVISION",
    );
    assert.deepEqual(error.details, { stream_id: "s", expected: "stream_exists", actual: null });
    assert.equal(await engine.getStreamInfo("acme", "s"), null, "the refused append created no stream");
    await appendEvents(engine, "acme", "s", newEvents(1));
    const result = await appendEvents(engine, "acme", "s", newEvents(2), "stream_exists");
    assert.equal(result.first_revision, 1);
    assert.equal(result.last_revision, 2);
  });

  test("an exact expected revision appends only when it is the revision of the stream's last event", async (store) => {
    const { engine } = store;
    const onNew = await rejectsWith(
      appendEvents(engine, "acme", "s", newEvents(1), 0),
      "WRONG_EXPECTED_REVISION",
    );
    assert.deepEqual(onNew.details, { stream_id: "s", expected: 0, actual: null });
    await appendEvents(engine, "acme", "s", newEvents(2), "no_stream");
    const behind = await rejectsWith(
      appendEvents(engine, "acme", "s", newEvents(1), 0),
      "WRONG_EXPECTED_REVISION",
    );
    assert.deepEqual(behind.details, { stream_id: "s", expected: 0, actual: 1 });
    const ahead = await rejectsWith(
      appendEvents(engine, "acme", "s", newEvents(1), 2),
      "WRONG_EXPECTED_REVISION",
    );
    assert.deepEqual(ahead.details, { stream_id: "s", expected: 2, actual: 1 });
    const ok = await appendEvents(engine, "acme", "s", newEvents(3), 1);
    assert.equal(ok.first_revision, 2);
    assert.equal(ok.last_revision, 4);
    const next = await appendEvents(engine, "acme", "s", newEvents(1), 4);
    assert.equal(next.first_revision, 5);
  });

  test("expected revision any appends to new and existing streams alike", async (store) => {
    const { engine } = store;
    assert.equal((await appendEvents(engine, "acme", "s", newEvents(1), "any")).first_revision, 0);
    assert.equal((await appendEvents(engine, "acme", "s", newEvents(1), "any")).first_revision, 1);
  });

  test("a refused batch writes none of its events", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(2));
    const before = await engine.status();
    const beforeInfo = await engine.getStreamInfo("acme", "s");
    const batch = newEvents(5);
    await rejectsWith(appendEvents(engine, "acme", "s", batch, 7), "WRONG_EXPECTED_REVISION");
    await rejectsWith(
      appendEvents(engine, "acme", "other", batch, "stream_exists"),
      "WRONG_EXPECTED_REVISION",
    );
    assert.deepEqual(await engine.getStreamInfo("acme", "s"), beforeInfo);
    assert.equal(await engine.getStreamInfo("acme", "other"), null);
    const after = await engine.status();
    assert.equal(after.events_total, before.events_total);
    assert.equal(after.last_position, before.last_position);
    assert.equal((await readTenantFully(engine, "acme")).length, 2);
    // The refused ids are not taken: the same batch appends normally afterwards.
    const result = await appendEvents(engine, "acme", "s", batch, 1);
    assert.equal(result.first_revision, 2);
    assert.equal(result.count, 5);
  });

  test("the append result gives the position of the batch's last event and a batch's positions increase", async (store) => {
    const { engine } = store;
    const batch = newEvents(4);
    const result = await appendEvents(engine, "acme", "s", batch);
    const events = await readStreamFully(engine, "acme", "s");
    assert.deepEqual(events.map(appended), batch);
    assert.equal(events[3]!.position, result.position);
    assertStrictlyIncreasing(
      events.map((e) => e.position),
      "positions within a batch",
    );
  });

  test("positions strictly increase in acknowledgement order across streams and tenants", async (store) => {
    const { engine } = store;
    const positions: number[] = [];
    const targets = [
      ["acme", "a"],
      ["globex", "a"],
      ["acme", "b"],
      ["acme", "a"],
      ["globex", "c"],
      ["initech", "a"],
      ["acme", "b"],
    ] as const;
    for (const [tenant, stream] of targets) {
      const result = await appendEvents(engine, tenant, stream, newEvents(2));
      positions.push(result.position);
    }
    assertStrictlyIncreasing(positions, "positions of successive appends");
    const status = await engine.status();
    assert.equal(status.last_position, positions.at(-1));
  });

  test("appending an event id already in the stream returns the original result and writes nothing", async (store) => {
    const { engine } = store;
    const event = newEvent();
    const original = await appendEvents(engine, "acme", "s", [event], "no_stream");
    const second = await appendEvents(engine, "acme", "s", newEvents(1), 0);
    const before = await engine.status();
    // The retry carries the same expected revision as the original request: a client retrying
    // after a lost answer sends exactly what it sent before.
    assert.deepEqual(await appendEvents(engine, "acme", "s", [event], "no_stream"), original);
    assert.deepEqual(await appendEvents(engine, "acme", "s", [event], "any"), original);
    const events = await readStreamFully(engine, "acme", "s");
    assert.deepEqual(
      events.map((e) => e.event_id),
      [event.event_id, events[1]!.event_id],
    );
    assert.equal(events.length, 2);
    assert.equal(events[1]!.position, second.position);
    const after = await engine.status();
    assert.equal(after.events_total, before.events_total);
    assert.equal(after.last_position, before.last_position);
  });

  test("a retried batch returns the original result and writes nothing twice", async (store) => {
    const { engine } = store;
    const batch = newEvents(3);
    const original = await appendEvents(engine, "acme", "s", batch, "no_stream");
    await appendEvents(engine, "acme", "s", newEvents(2));
    assert.deepEqual(await appendEvents(engine, "acme", "s", batch, "no_stream"), original);
    assert.equal((await readStreamFully(engine, "acme", "s")).length, 5);
    assert.equal((await engine.getStreamInfo("acme", "s"))?.last_revision, 4);
  });

  test("an append whose event ids are only partly in the stream is refused and writes nothing", async (store) => {
    const { engine } = store;
    const batch = newEvents(3);
    await appendEvents(engine, "acme", "s", batch);
    const before = await engine.getStreamInfo("acme", "s");
    const overlapping = [batch[2]!, ...newEvents(2)];
    const error = await rejectsWith(
      appendEvents(engine, "acme", "s", overlapping),
      "WRONG_EXPECTED_REVISION",
    );
    assert.equal(error.details.stream_id, "s");
    const reordered = [batch[1]!, batch[0]!];
    await rejectsWith(appendEvents(engine, "acme", "s", reordered), "WRONG_EXPECTED_REVISION");
    assert.deepEqual(await engine.getStreamInfo("acme", "s"), before);
    assert.deepEqual((await readStreamFully(engine, "acme", "s")).map(appended), batch);
  });

  test("ids an append marks as freshly made are kept like any other: a later append of them is a repeat", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(2));
    const batch = newEvents(3);
    const marked = { tenant_id: "acme", stream_id: "s", events: batch, expected_revision: "any" as const };
    const original = await engine.append({ ...marked, event_ids_fresh: true });
    // The same ids again, as a client that read them back would send them: the original result.
    assert.deepEqual(await appendEvents(engine, "acme", "s", batch), original);
    await rejectsWith(
      appendEvents(engine, "acme", "s", [batch[1]!, ...newEvents(1)]),
      "WRONG_EXPECTED_REVISION",
    );
    assert.equal((await readStreamFully(engine, "acme", "s")).length, 5);
  });

  test("idempotency on event id holds after a reopen", async (store) => {
    const batch = newEvents(3);
    const original = await appendEvents(store.engine, "acme", "s", batch, "no_stream");
    await appendEvents(store.engine, "acme", "s", newEvents(1));
    const engine = await store.reopen();
    assert.deepEqual(await appendEvents(engine, "acme", "s", batch, "no_stream"), original);
    assert.equal((await readStreamFully(engine, "acme", "s")).length, 4);
  });

  test(
    "data, metadata and event type come back byte for byte as appended",
    async (store) => {
      const { engine } = store;
      const samples = [
        "{}",
        '{ "spaced" :  1 ,\n\t"tabs": [ 1 , 2 ] }',
        '{"b":1,"a":2,"b2":{"z":[],"y":{}}}',
        '{"numbers":[1.50,1e3,-0,0.1,12345678901234567890]}',
        '{"text":"h\u00e9llo w\u00f6rld \u4e16\u754c \ud83c\udf0d","escaped":"\\u00e9\\n\\"q\\"\\\\"}',
        JSON.stringify({ deep: nest(40) }),
        JSON.stringify({ big: "x".repeat(300_000), list: Array.from({ length: 2000 }, (_, i) => i) }),
      ];
      const events = samples.map((data, i) =>
        newEvent({
          data,
          metadata: samples[(i + 1) % samples.length]!,
          event_type: i % 2 === 0 ? `type-${i}` : `t\u00ffpe-\u4e16-${i}`,
        }),
      );
      for (const event of events) await appendEvents(engine, "acme", "bytes", [event]);
      const read = await readStreamFully(engine, "acme", "bytes");
      assert.deepEqual(read.map(appended), events);
      const reopened = await store.reopen();
      assert.deepEqual((await readStreamFully(reopened, "acme", "bytes")).map(appended), events);
      assert.deepEqual((await readTenantFully(reopened, "acme")).map(appended), events);
    },
    { fullLimits: true },
  );

  test("created_at is RFC 3339 with milliseconds in UTC, from the engine's clock", async (store, clock) => {
    clock.ms = Date.UTC(2026, 1, 3, 4, 5, 6, 789);
    await appendEvents(store.engine, "acme", "s", newEvents(2));
    clock.advanceSeconds(1.5);
    await appendEvents(store.engine, "acme", "s", newEvents(1));
    const events = await readStreamFully(store.engine, "acme", "s");
    for (const event of events) assertIsoMillisUtc(event.created_at, "created_at");
    assert.deepEqual(
      events.map((e) => e.created_at),
      ["2026-02-03T04:05:06.789Z", "2026-02-03T04:05:06.789Z", "2026-02-03T04:05:08.289Z"],
    );
  });

  test("without an injected clock created_at is the current time", async () => {
    const engine = await harness.create();
    try {
      const before = Date.now();
      await appendEvents(engine, "acme", "s", newEvents(1));
      const after = Date.now();
      const [event] = await readStreamFully(engine, "acme", "s");
      assertIsoMillisUtc(event!.created_at, "created_at");
      const at = Date.parse(event!.created_at);
      assert.ok(at >= before && at <= after, `created_at ${event!.created_at} is the time of the append`);
    } finally {
      await engine.close();
    }
  });

  test("appended events survive a reopen unchanged", async (store) => {
    for (let i = 0; i < 20; i++) {
      await appendEvents(store.engine, i % 2 === 0 ? "acme" : "globex", `s-${i % 5}`, newEvents(1 + (i % 3)));
    }
    const before = {
      acme: await readTenantFully(store.engine, "acme"),
      globex: await readTenantFully(store.engine, "globex"),
      status: await store.engine.status(),
    };
    const engine = await store.reopen();
    assert.deepEqual(await readTenantFully(engine, "acme"), before.acme);
    assert.deepEqual(await readTenantFully(engine, "globex"), before.globex);
    const status = await engine.status();
    assert.equal(status.events_total, before.status.events_total);
    assert.equal(status.streams_total, before.status.streams_total);
    assert.equal(status.last_position, before.status.last_position);
    // Appends continue after the reopen with the next revision and a higher position.
    const next = await appendEvents(engine, "acme", "s-0", newEvents(1));
    const streamBefore = before.acme.filter((e) => e.stream_id === "s-0");
    assert.equal(next.first_revision, streamBefore.at(-1)!.revision + 1);
    assert.ok(next.position > before.status.last_position);
  });
}

function nest(depth: number): unknown {
  return depth === 0 ? { leaf: true } : { level: depth, child: nest(depth - 1), list: [depth] };
}

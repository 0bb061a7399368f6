/**
 * onAppend: one notice per durable append, carrying the revisions and positions the events
 * really got; what a notice names is readable when it arrives; unsubscribing stops notices.
 */
import assert from "node:assert/strict";
import type { EventRecord } from "../../contract/bodies.js";
import type { AppendNotice } from "../engine.js";
import type { CaseContext } from "./suite.js";
import { appendEvents, eventually, newEvents, readStreamFully, settle } from "./harness.js";

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function noticeCases({ test }: CaseContext): void {
  test("each durable append is announced with its tenant, stream, revisions and positions", async (store) => {
    const { engine } = store;
    const notices: AppendNotice[] = [];
    const readsOnNotice: Promise<EventRecord[]>[] = [];
    const unsubscribe = engine.onAppend((notice) => {
      notices.push(notice);
      // What a notice names must already be readable: a subscriber reads it right away.
      readsOnNotice.push(
        engine
          .readStream({
            tenant_id: notice.tenant_id,
            stream_id: notice.stream_id,
            direction: "forward",
            from_revision: notice.first_revision,
            limit: notice.last_revision - notice.first_revision + 1,
          })
          .then((page) => page.events),
      );
    });
    await appendEvents(engine, "acme", "a", newEvents(1));
    await appendEvents(engine, "acme", "a", newEvents(3));
    await appendEvents(engine, "globex", "a", newEvents(2));
    await eventually(() => notices.length >= 3, "three notices");
    await settle();
    unsubscribe();
    const expected = [];
    for (const [tenant, count] of [
      ["acme", 4],
      ["globex", 2],
    ] as const) {
      const events = await readStreamFully(engine, tenant, "a");
      assert.equal(events.length, count);
      expected.push(events);
    }
    const [acme, globex] = expected as [EventRecord[], EventRecord[]];
    assert.deepEqual(notices, [
      {
        tenant_id: "acme",
        stream_id: "a",
        first_revision: 0,
        last_revision: 0,
        first_position: acme[0]!.position,
        last_position: acme[0]!.position,
      },
      {
        tenant_id: "acme",
        stream_id: "a",
        first_revision: 1,
        last_revision: 3,
        first_position: acme[1]!.position,
        last_position: acme[3]!.position,
      },
      {
        tenant_id: "globex",
        stream_id: "a",
        first_revision: 0,
        last_revision: 1,
        first_position: globex[0]!.position,
        last_position: globex[1]!.position,
      },
    ]);
    const readBack = await Promise.all(readsOnNotice);
    assert.deepEqual(readBack, [acme.slice(0, 1), acme.slice(1, 4), globex]);
  });

  test("an unsubscribed listener hears of no later append, while others still do", async (store) => {
    const { engine } = store;
    const first: AppendNotice[] = [];
    const second: AppendNotice[] = [];
    const stopFirst = engine.onAppend((n) => first.push(n));
    const stopSecond = engine.onAppend((n) => second.push(n));
    await appendEvents(engine, "acme", "a", newEvents(1));
    await eventually(() => first.length === 1 && second.length === 1, "the first notice");
    stopFirst();
    await appendEvents(engine, "acme", "a", newEvents(1));
    await eventually(() => second.length === 2, "the second notice");
    stopSecond();
    await appendEvents(engine, "acme", "a", newEvents(1));
    await settle();
    assert.equal(first.length, 1);
    assert.equal(second.length, 2);
  });

  test("refused and idempotent appends are not announced", async (store) => {
    const { engine } = store;
    const batch = newEvents(2);
    await appendEvents(engine, "acme", "a", batch, "no_stream");
    await settle();
    const notices: AppendNotice[] = [];
    const stop = engine.onAppend((n) => notices.push(n));
    await appendEvents(engine, "acme", "a", newEvents(1), 5).catch(() => undefined);
    await appendEvents(engine, "acme", "a", batch, "no_stream");
    await settle();
    stop();
    assert.deepEqual(notices, []);
  });

  test("every one of many concurrent appends is announced exactly once", async (store) => {
    const { engine } = store;
    const notices: AppendNotice[] = [];
    const stop = engine.onAppend((n) => notices.push(n));
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        appendEvents(engine, "acme", `s-${i % 6}`, newEvents(1 + (i % 2))),
      ),
    );
    await eventually(() => notices.length >= 60, "sixty notices");
    await settle();
    stop();
    assert.equal(notices.length, 60);
    const byLast = new Map(notices.map((n) => [n.last_position, n]));
    for (const result of results) {
      const notice = byLast.get(result.position);
      assert.ok(notice, "each append has its notice");
      assert.equal(notice.stream_id, result.stream_id);
      assert.equal(notice.first_revision, result.first_revision);
      assert.equal(notice.last_revision, result.last_revision);
    }
  });
}

/**
 * Concurrency: optimistic concurrency has exactly one winner per revision, concurrent appends
 * across streams are all acknowledged with unique positions, and a reader following the
 * global order never sees an event appear below a position it has already passed.
 */
import assert from "node:assert/strict";
import { EssError } from "../../errors.js";
import type { AppendResult, EventRecord } from "../../contract/bodies.js";
import type { CaseContext } from "./suite.js";
import {
  appendEvents,
  appended,
  assertStrictlyIncreasing,
  newEvents,
  readStreamFully,
  readTenantFully,
} from "./harness.js";

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function concurrencyCases({ test }: CaseContext): void {
  test("concurrent appends with the same expected revision have exactly one winner", async (store) => {
    const { engine } = store;
    const creators = await Promise.allSettled(
      Array.from({ length: 10 }, () => appendEvents(engine, "acme", "s", newEvents(1), "no_stream")),
    );
    assert.equal(creators.filter((o) => o.status === "fulfilled").length, 1, "exactly one creator wins");
    for (const outcome of creators) {
      if (outcome.status === "rejected") {
        const error: unknown = outcome.reason;
        assert.ok(error instanceof EssError && error.code === "WRONG_EXPECTED_REVISION", String(error));
      }
    }
    // Rounds on exact revisions: each round all contenders expect the current last revision.
    let last = (await engine.getStreamInfo("acme", "s"))!.last_revision!;
    for (let round = 0; round < 8; round++) {
      const contenders = Array.from({ length: 10 }, () => newEvents(1 + (round % 3)));
      const outcomes = await Promise.allSettled(
        contenders.map((events) => appendEvents(engine, "acme", "s", events, last)),
      );
      const won = outcomes.flatMap((o, i) =>
        o.status === "fulfilled" ? [{ result: o.value, events: contenders[i]! }] : [],
      );
      assert.equal(won.length, 1, `exactly one contender wins round ${round}`);
      const { result, events } = won[0]!;
      assert.equal(result.first_revision, last + 1);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") {
          const error: unknown = outcome.reason;
          assert.ok(error instanceof EssError && error.code === "WRONG_EXPECTED_REVISION", String(error));
          assert.equal(error.details.actual, result.last_revision, "the loser is told the winner's revision");
        }
      }
      const read = await engine.readStream({
        tenant_id: "acme",
        stream_id: "s",
        direction: "forward",
        from_revision: last + 1,
        limit: 1000,
      });
      assert.deepEqual(read.events.map(appended), events, "only the winner's events are written");
      last = result.last_revision;
    }
    const all = await readStreamFully(engine, "acme", "s");
    assert.deepEqual(
      all.map((e) => e.revision),
      all.map((_, i) => i),
      "revisions stay gapless",
    );
  });

  test("concurrent appends across many streams are all acknowledged with unique positions", async (store) => {
    const { engine } = store;
    const requests = Array.from({ length: 200 }, (_, i) => ({
      tenant: i % 5 === 0 ? "globex" : "acme",
      stream: `s-${i % 20}`,
      events: newEvents(i % 4 === 0 ? 3 : 1),
    }));
    const results: AppendResult[] = await Promise.all(
      requests.map((r) => appendEvents(engine, r.tenant, r.stream, r.events)),
    );
    const positions = results.map((r) => r.position);
    assert.equal(new Set(positions).size, positions.length, "positions are unique");
    for (const tenant of ["acme", "globex"]) {
      const events = await readTenantFully(engine, tenant);
      const expectedCount = requests
        .filter((r) => r.tenant === tenant)
        .reduce((n, r) => n + r.events.length, 0);
      assert.equal(events.length, expectedCount);
      assertStrictlyIncreasing(
        events.map((e) => e.position),
        "global positions",
      );
      const streams = new Set(events.map((e) => e.stream_id));
      for (const stream of streams) {
        const streamEvents = await readStreamFully(engine, tenant, stream);
        assert.deepEqual(
          streamEvents.map((e) => e.revision),
          streamEvents.map((_, i) => i),
        );
        assertStrictlyIncreasing(
          streamEvents.map((e) => e.position),
          "positions along a stream",
        );
      }
    }
    for (const [i, result] of results.entries()) {
      const request = requests[i]!;
      const read = await engine.readStream({
        tenant_id: request.tenant,
        stream_id: request.stream,
        direction: "forward",
        from_revision: result.first_revision,
        limit: result.count,
      });
      assert.deepEqual(read.events.map(appended), request.events, "each batch sits whole at its revisions");
      assert.equal(read.events.at(-1)!.position, result.position);
    }
  });

  test("a reader following the global order never sees an event appear below a position it has passed", async (store) => {
    const { engine } = store;
    let writing = true;
    const seen: EventRecord[] = [];
    const reader = (async () => {
      let from = 0;
      while (writing || from <= (await engine.status()).last_position) {
        const page = await engine.readAll({ tenant_id: "acme", from_position: from, limit: 50 });
        seen.push(...page.events);
        if (page.events.length > 0) from = page.events.at(-1)!.position + 1;
        if (page.is_end) await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; i < 15; i++) await appendEvents(engine, "acme", `w-${w}`, newEvents(1 + (i % 3)));
    });
    await Promise.all(writers);
    writing = false;
    await reader;
    const all = await readTenantFully(engine, "acme");
    assert.deepEqual(
      seen,
      all,
      "the follower saw every event once, in order, with nothing appearing behind it",
    );
  });

  test("the same batch sent several times at once is written once", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(1));
    const batch = newEvents(3);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => appendEvents(engine, "acme", "s", batch, 0)),
    );
    for (const result of results) assert.deepEqual(result, results[0]);
    const events = await readStreamFully(engine, "acme", "s");
    assert.equal(events.length, 4);
    assert.deepEqual(events.slice(1).map(appended), batch);
  });
}

/**
 * Lifecycle: close() finishes the appends already in flight (they resolve and are durable),
 * and a closed engine refuses new work instead of losing it.
 */
import assert from "node:assert/strict";
import type { AppendResult } from "../../contract/bodies.js";
import type { CaseContext } from "./suite.js";
import { appendEvents, appended, newEvents, readStreamFully, rejectsWith } from "./harness.js";

export function lifecycleCases({ test }: CaseContext): void {
  test("close waits for in-flight appends, which are then durable", async (store) => {
    const { engine } = store;
    const batches = Array.from({ length: 100 }, (_, i) => newEvents(1 + (i % 3)));
    const pending: Promise<AppendResult>[] = batches.map((events, i) =>
      appendEvents(engine, "acme", `s-${i % 4}`, events),
    );
    const closing = engine.close();
    store.markClosed();
    const outcomes = await Promise.allSettled(pending);
    await closing;
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "fulfilled", "an append started before close() completes");
    }
    const reopened = await store.reopen();
    for (let s = 0; s < 4; s++) {
      const expected = batches.filter((_, i) => i % 4 === s).flat();
      const events = await readStreamFully(reopened, "acme", `s-${s}`);
      assert.deepEqual(
        [...events.map(appended)].sort((a, b) => a.event_id.localeCompare(b.event_id)),
        [...expected].sort((a, b) => a.event_id.localeCompare(b.event_id)),
      );
    }
  });

  test("an append to a closed engine is refused with UNAVAILABLE", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(1));
    await engine.close();
    store.markClosed();
    await rejectsWith(appendEvents(engine, "acme", "s", newEvents(1)), "UNAVAILABLE");
    const reopened = await store.reopen();
    assert.equal((await readStreamFully(reopened, "acme", "s")).length, 1);
  });

  test("a freshly opened engine is writable and a reopened empty store is still empty", async (store) => {
    assert.equal(store.engine.isWritable(), true);
    const engine = await store.reopen();
    assert.equal(engine.isWritable(), true);
    const status = await engine.status();
    assert.equal(status.events_total, 0);
    assert.equal(status.streams_total, 0);
  });
}

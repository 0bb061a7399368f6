/**
 * Retention (max_count, truncate_before, max_age_seconds) and soft delete: they remove a
 * prefix of a stream from reads at once, the remaining events keep their revisions and
 * positions, and all of it survives a reopen.
 */
import assert from "node:assert/strict";
import type { EventRecord, Retention } from "../../contract/bodies.js";
import type { StorageEngine } from "../engine.js";
import type { CaseContext } from "./suite.js";
import { appendEvents, newEvents, readStreamFully, readTenantFully, rejectsWith } from "./harness.js";

const none: Retention = { max_age_seconds: null, max_count: null, truncate_before: null };

async function readBackward(
  engine: StorageEngine,
  tenantId: string,
  streamId: string,
): Promise<EventRecord[]> {
  const page = await engine.readStream({
    tenant_id: tenantId,
    stream_id: streamId,
    direction: "backward",
    from_revision: null,
    limit: 1000,
  });
  assert.equal(page.is_end, true);
  assert.equal(page.next_revision, null);
  return page.events;
}

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function retentionCases({ test }: CaseContext): void {
  test("max_count keeps only the newest events readable, at once, with unchanged revisions and positions", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(10));
    await appendEvents(engine, "acme", "other", newEvents(2));
    const all = await readStreamFully(engine, "acme", "s");
    const info = await engine.setRetention("acme", "s", { ...none, max_count: 3 });
    assert.deepEqual(info.retention, { ...none, max_count: 3 });
    assert.equal(info.event_count, 3);
    assert.equal(info.first_revision, 7);
    assert.equal(info.last_revision, 9);
    assert.deepEqual(await engine.getStreamInfo("acme", "s"), info);
    assert.deepEqual(await readStreamFully(engine, "acme", "s"), all.slice(7));
    assert.deepEqual(await readBackward(engine, "acme", "s"), all.slice(7).reverse());
    const tenant = await readTenantFully(engine, "acme");
    assert.deepEqual(
      tenant.filter((e) => e.stream_id === "s"),
      all.slice(7),
      "readAll leaves out what retention hides",
    );
    assert.equal(tenant.filter((e) => e.stream_id === "other").length, 2);
    const more = await appendEvents(engine, "acme", "s", newEvents(2));
    assert.equal(more.first_revision, 10);
    assert.deepEqual(
      (await readStreamFully(engine, "acme", "s")).map((e) => e.revision),
      [9, 10, 11],
    );
  });

  test("truncate_before hides the revisions below it", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(10));
    const all = await readStreamFully(engine, "acme", "s");
    const info = await engine.setRetention("acme", "s", { ...none, truncate_before: 4 });
    assert.deepEqual(info.retention, { ...none, truncate_before: 4 });
    assert.equal(info.event_count, 6);
    assert.equal(info.first_revision, 4);
    assert.deepEqual(await readStreamFully(engine, "acme", "s"), all.slice(4));
    const fromHidden = await engine.readStream({
      tenant_id: "acme",
      stream_id: "s",
      direction: "forward",
      from_revision: 1,
      limit: 2,
    });
    assert.deepEqual(
      fromHidden.events.map((e) => e.revision),
      [4, 5],
      "a forward read from a hidden revision starts at the first readable one",
    );
    const backward = await engine.readStream({
      tenant_id: "acme",
      stream_id: "s",
      direction: "backward",
      from_revision: 5,
      limit: 10,
    });
    assert.deepEqual(
      [backward.events.map((e) => e.revision), backward.next_revision, backward.is_end],
      [[5, 4], null, true],
    );
  });

  test("truncate_before past the last revision hides every event, and later appends from there on are readable", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(5));
    const info = await engine.setRetention("acme", "s", { ...none, truncate_before: 8 });
    assert.equal(info.event_count, 0);
    assert.equal(info.first_revision, null);
    assert.equal(info.last_revision, 4);
    assert.deepEqual(await readStreamFully(engine, "acme", "s"), []);
    const summary = (await engine.listStreams({ tenant_id: "acme", prefix: "s", limit: 10, cursor: null }))
      .streams[0];
    assert.equal(summary?.event_count, 0);
    await appendEvents(engine, "acme", "s", newEvents(4));
    assert.deepEqual(
      (await readStreamFully(engine, "acme", "s")).map((e) => e.revision),
      [8],
    );
    const after = await engine.getStreamInfo("acme", "s");
    assert.equal(after?.event_count, 1);
    assert.equal(after?.first_revision, 8);
  });

  test("max_age_seconds hides events older than the limit by the engine's clock", async (store, clock) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(3));
    clock.advanceSeconds(100);
    await appendEvents(engine, "acme", "s", newEvents(2));
    const all = await readStreamFully(engine, "acme", "s");
    clock.advanceSeconds(10);
    const info = await engine.setRetention("acme", "s", { ...none, max_age_seconds: 50 });
    assert.equal(info.event_count, 2);
    assert.equal(info.first_revision, 3);
    assert.deepEqual(await readStreamFully(engine, "acme", "s"), all.slice(3));
    // Time passing alone hides more, with no write in between.
    clock.advanceSeconds(100);
    assert.deepEqual(await readStreamFully(engine, "acme", "s"), []);
    const empty = await engine.getStreamInfo("acme", "s");
    assert.equal(empty?.event_count, 0);
    assert.equal(empty?.first_revision, null);
    assert.equal(empty?.last_revision, 4, "last_revision still names the last event ever appended");
    assert.equal(empty?.deleted, false);
    assert.deepEqual(await readTenantFully(engine, "acme"), []);
    const next = await appendEvents(engine, "acme", "s", newEvents(1), 4);
    assert.equal(next.first_revision, 5);
    assert.deepEqual(
      (await readStreamFully(engine, "acme", "s")).map((e) => e.revision),
      [5],
    );
  });

  test("the strictest of several retention rules wins", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(10));
    await engine.setRetention("acme", "s", { max_age_seconds: 3600, max_count: 5, truncate_before: 3 });
    assert.deepEqual(
      (await readStreamFully(engine, "acme", "s")).map((e) => e.revision),
      [5, 6, 7, 8, 9],
    );
    await engine.setRetention("acme", "s", { max_age_seconds: 3600, max_count: 5, truncate_before: 8 });
    assert.deepEqual(
      (await readStreamFully(engine, "acme", "s")).map((e) => e.revision),
      [8, 9],
    );
  });

  test("retention survives a reopen", async (store, clock) => {
    await appendEvents(store.engine, "acme", "count", newEvents(6));
    await appendEvents(store.engine, "acme", "truncate", newEvents(6));
    await appendEvents(store.engine, "acme", "age", newEvents(2));
    clock.advanceSeconds(1000);
    await appendEvents(store.engine, "acme", "age", newEvents(2));
    await store.engine.setRetention("acme", "count", { ...none, max_count: 2 });
    await store.engine.setRetention("acme", "truncate", { ...none, truncate_before: 5 });
    await store.engine.setRetention("acme", "age", { ...none, max_age_seconds: 500 });
    const before = await readTenantFully(store.engine, "acme");
    const infos = await Promise.all(
      ["count", "truncate", "age"].map((s) => store.engine.getStreamInfo("acme", s)),
    );
    const engine = await store.reopen();
    assert.deepEqual(await readTenantFully(engine, "acme"), before);
    assert.deepEqual(
      await Promise.all(["count", "truncate", "age"].map((s) => engine.getStreamInfo("acme", s))),
      infos,
    );
    assert.deepEqual(
      (await readStreamFully(engine, "acme", "count")).map((e) => e.revision),
      [4, 5],
    );
  });

  test("setting retention on a stream that does not exist fails with STREAM_NOT_FOUND", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "globex", "s", newEvents(1));
    const error = await rejectsWith(
      engine.setRetention("acme", "s", { ...none, max_count: 1 }),
      "STREAM_NOT_FOUND",
    );
    assert.equal(error.details.stream_id, "s");
    assert.equal(await engine.getStreamInfo("acme", "s"), null);
  });

  test("a soft delete hides the stream from reads at once and its info answers with deleted true", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(3));
    await appendEvents(engine, "acme", "kept", newEvents(1));
    const before = await engine.getStreamInfo("acme", "s");
    const info = await engine.deleteStream("acme", "s");
    assert.equal(info.deleted, true);
    assert.equal(info.stream_id, "s");
    assert.equal(info.tenant_id, "acme");
    assert.equal(info.event_count, 0);
    assert.equal(info.first_revision, null);
    assert.equal(info.last_revision, 2);
    assert.equal(info.bytes, before!.bytes, "bytes stay held until a scavenge");
    assert.deepEqual(await engine.getStreamInfo("acme", "s"), info);
    for (const direction of ["forward", "backward"] as const) {
      await rejectsWith(
        engine.readStream({ tenant_id: "acme", stream_id: "s", direction, from_revision: null, limit: 10 }),
        "STREAM_NOT_FOUND",
      );
    }
    const tenant = await readTenantFully(engine, "acme");
    assert.deepEqual(
      tenant.map((e) => e.stream_id),
      ["kept"],
      "readAll leaves out a deleted stream's events",
    );
    assert.deepEqual(await engine.deleteStream("acme", "s"), info, "deleting twice answers the same");
  });

  test("deleting a stream that does not exist fails with STREAM_NOT_FOUND", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "globex", "s", newEvents(1));
    const error = await rejectsWith(engine.deleteStream("acme", "s"), "STREAM_NOT_FOUND");
    assert.equal(error.details.stream_id, "s");
    assert.equal(await engine.getStreamInfo("acme", "s"), null);
  });

  test("appending to a deleted stream continues its revisions and only the new events are readable", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(3));
    const deleted = await engine.deleteStream("acme", "s");
    const fresh = newEvents(2);
    const result = await appendEvents(engine, "acme", "s", fresh);
    assert.equal(result.first_revision, 3);
    assert.equal(result.last_revision, 4);
    const events = await readStreamFully(engine, "acme", "s");
    assert.deepEqual(
      events.map((e) => [e.revision, e.event_id]),
      [
        [3, fresh[0]!.event_id],
        [4, fresh[1]!.event_id],
      ],
    );
    const info = await engine.getStreamInfo("acme", "s");
    assert.equal(info?.deleted, false);
    assert.equal(info?.event_count, 2);
    assert.equal(info?.first_revision, 3);
    assert.equal(info?.last_revision, 4);
    assert.equal(info?.created_at, deleted.created_at);
    assert.deepEqual(
      (await readTenantFully(engine, "acme")).map((e) => e.revision),
      [3, 4],
    );
    const reopened = await store.reopen();
    assert.deepEqual(await readStreamFully(reopened, "acme", "s"), events);
  });

  test("a deleted stream counts as no stream for expected revisions, and its last revision still matches", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(3));
    await engine.deleteStream("acme", "s");
    const error = await rejectsWith(
      appendEvents(engine, "acme", "s", newEvents(1), "stream_exists"),
      "WRONG_EXPECTED_REVISION",
    );
    assert.deepEqual(error.details, { stream_id: "s", expected: "stream_exists", actual: 2 });
    const revived = await appendEvents(engine, "acme", "s", newEvents(1), "no_stream");
    assert.equal(revived.first_revision, 3, "no_stream on a deleted stream continues its revisions");
    await rejectsWith(
      appendEvents(engine, "acme", "s", newEvents(1), "no_stream"),
      "WRONG_EXPECTED_REVISION",
    );
    await appendEvents(engine, "acme", "t", newEvents(2));
    await engine.deleteStream("acme", "t");
    await rejectsWith(appendEvents(engine, "acme", "t", newEvents(1), 0), "WRONG_EXPECTED_REVISION");
    const exact = await appendEvents(engine, "acme", "t", newEvents(1), 1);
    assert.equal(
      exact.first_revision,
      2,
      "an exact revision compares with the deleted stream's last revision",
    );
  });

  test("a soft delete survives a reopen", async (store) => {
    await appendEvents(store.engine, "acme", "s", newEvents(3));
    const info = await store.engine.deleteStream("acme", "s");
    const engine = await store.reopen();
    assert.deepEqual(await engine.getStreamInfo("acme", "s"), info);
    await rejectsWith(
      engine.readStream({
        tenant_id: "acme",
        stream_id: "s",
        direction: "forward",
        from_revision: null,
        limit: 10,
      }),
      "STREAM_NOT_FOUND",
    );
    assert.equal((await appendEvents(engine, "acme", "s", newEvents(1))).first_revision, 3);
  });

  test("a listing still shows a deleted stream, flagged deleted", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "gone", newEvents(2));
    await appendEvents(engine, "acme", "kept", newEvents(1));
    await engine.deleteStream("acme", "gone");
    const page = await engine.listStreams({ tenant_id: "acme", prefix: null, limit: 10, cursor: null });
    const gone = page.streams.find((s) => s.stream_id === "gone");
    assert.ok(gone, "the deleted stream is listed");
    assert.equal(gone.deleted, true);
    assert.equal(gone.event_count, 0);
    assert.equal(page.streams.find((s) => s.stream_id === "kept")?.deleted, false);
  });
}

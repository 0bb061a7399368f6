/**
 * Deletes with an expected revision, tombstones, and the stream metadata document
 * (docs/contract.md, "Deletes and tombstones" and "Stream metadata"): a tombstone bars the
 * name for good, across reopens and scavenges; the document has a revision with optimistic
 * concurrency, and its `$maxAge`, `$maxCount` and `$tb` keys are the stream's retention.
 */
import assert from "node:assert/strict";
import type { Retention } from "../../contract/bodies.js";
import { limits } from "../../limits.js";
import type { StorageEngine } from "../engine.js";
import type { CaseContext } from "./suite.js";
import { appendEvents, newEvents, readStreamFully, readTenantFully, rejectsWith } from "./harness.js";

const none: Retention = { max_age_seconds: null, max_count: null, truncate_before: null };

/** A forward read of a stream of acme, from its start. */
function readFrom(engine: StorageEngine, streamId: string, direction: "forward" | "backward" = "forward") {
  return engine.readStream({
    tenant_id: "acme",
    stream_id: streamId,
    direction,
    from_revision: null,
    limit: 10,
  });
}

/** Every way of using a tombstoned stream is refused with STREAM_TOMBSTONED. */
async function assertBarred(engine: StorageEngine, streamId: string): Promise<void> {
  await rejectsWith(readFrom(engine, streamId), "STREAM_TOMBSTONED");
  await rejectsWith(readFrom(engine, streamId, "backward"), "STREAM_TOMBSTONED");
  for (const expected of ["any", "no_stream", "stream_exists", 0] as const) {
    await rejectsWith(appendEvents(engine, "acme", streamId, newEvents(1), expected), "STREAM_TOMBSTONED");
  }
  await rejectsWith(engine.deleteStream("acme", streamId), "STREAM_TOMBSTONED");
  await rejectsWith(
    engine.deleteStream("acme", streamId, { expected_revision: "any", tombstone: true }),
    "STREAM_TOMBSTONED",
  );
  await rejectsWith(engine.setRetention("acme", streamId, { ...none, max_count: 1 }), "STREAM_TOMBSTONED");
  await rejectsWith(engine.getStreamMetadata("acme", streamId), "STREAM_TOMBSTONED");
  await rejectsWith(
    engine.setStreamMetadata({
      tenant_id: "acme",
      stream_id: streamId,
      metadata: {},
      expected_metadata_revision: "any",
    }),
    "STREAM_TOMBSTONED",
  );
  const info = await engine.getStreamInfo("acme", streamId);
  assert.equal(info?.tombstoned, true);
  assert.equal(info?.deleted, true);
  assert.equal(info?.event_count, 0);
}

function setMetadata(
  engine: StorageEngine,
  streamId: string,
  metadata: Record<string, unknown>,
  expected: "any" | "no_stream" | number = "any",
) {
  return engine.setStreamMetadata({
    tenant_id: "acme",
    stream_id: streamId,
    metadata,
    expected_metadata_revision: expected,
  });
}

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function tombstoneMetadataCases({ test }: CaseContext): void {
  test("a delete checks expected_revision by the append's rules", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(3));
    const soft = (expected: "any" | "no_stream" | "stream_exists" | number) =>
      engine.deleteStream("acme", "s", { expected_revision: expected, tombstone: false });
    const wrong = await rejectsWith(soft("no_stream"), "WRONG_EXPECTED_REVISION");
    assert.equal(wrong.details.actual, 2);
    assert.equal((await rejectsWith(soft(1), "WRONG_EXPECTED_REVISION")).details.actual, 2);
    assert.equal((await readStreamFully(engine, "acme", "s")).length, 3, "a refused delete changes nothing");
    const deleted = await soft(2);
    assert.equal(deleted.deleted, true);
    assert.equal(deleted.tombstoned, false);
    // A soft-deleted stream counts as no stream, as for an append.
    await rejectsWith(soft("stream_exists"), "WRONG_EXPECTED_REVISION");
    assert.deepEqual(await soft("no_stream"), deleted, "deleting again answers the same");
    assert.deepEqual(await soft("any"), deleted);
    await rejectsWith(readFrom(engine, "s"), "STREAM_NOT_FOUND");
    // A stream that never existed: its expected revision is checked first.
    await rejectsWith(
      engine.deleteStream("acme", "nope", { expected_revision: "stream_exists", tombstone: false }),
      "WRONG_EXPECTED_REVISION",
    );
    await rejectsWith(
      engine.deleteStream("acme", "nope", { expected_revision: "any", tombstone: false }),
      "STREAM_NOT_FOUND",
    );
  });

  test("a tombstone bars reads, appends, deletes and metadata of the stream for good", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "t", newEvents(2));
    await appendEvents(engine, "acme", "other", newEvents(1));
    await rejectsWith(
      engine.deleteStream("acme", "t", { expected_revision: 0, tombstone: true }),
      "WRONG_EXPECTED_REVISION",
    );
    const info = await engine.deleteStream("acme", "t", { expected_revision: 1, tombstone: true });
    assert.equal(info.tombstoned, true);
    assert.equal(info.deleted, true);
    assert.equal(info.last_revision, 1);
    await assertBarred(engine, "t");
    assert.deepEqual(
      (await readTenantFully(engine, "acme")).map((e) => e.stream_id),
      ["other"],
      "readAll leaves its events out",
    );
    assert.equal((await engine.getTenantUsage("acme"))?.streams, 1);
    const listed = await engine.listStreams({ tenant_id: "acme", prefix: null, limit: 10, cursor: null });
    assert.deepEqual(
      listed.streams.map((s) => [s.stream_id, s.deleted]),
      [
        ["other", false],
        ["t", true],
      ],
    );
  });

  test("a tombstone of a name never used bars it", async (store) => {
    const { engine } = store;
    await rejectsWith(
      engine.deleteStream("acme", "fresh", { expected_revision: "stream_exists", tombstone: true }),
      "WRONG_EXPECTED_REVISION",
    );
    const info = await engine.deleteStream("acme", "fresh", {
      expected_revision: "no_stream",
      tombstone: true,
    });
    assert.equal(info.tombstoned, true);
    assert.equal(info.last_revision, null);
    await assertBarred(engine, "fresh");
    const listed = await engine.listStreams({ tenant_id: "acme", prefix: null, limit: 10, cursor: null });
    assert.deepEqual(listed.streams, [], "a stream with no event is not listed");
  });

  test("a tombstone survives reopens and scavenges; scavenge removes its events", async (store) => {
    // Padded, and followed by more, so the tombstoned events sit where a scavenge reaches them
    // (the log engine rewrites sealed segments only).
    const padded = (count: number) =>
      newEvents(count, (i) => ({ data: JSON.stringify({ i, pad: "p".repeat(1000) }) }));
    for (let round = 0; round < 4; round++) await appendEvents(store.engine, "acme", "t", padded(10));
    await store.engine.deleteStream("acme", "t", { expected_revision: 39, tombstone: true });
    for (let round = 0; round < 6; round++) await appendEvents(store.engine, "acme", "keep", padded(10));
    let engine = await store.reopen();
    await assertBarred(engine, "t");
    const result = await engine.scavenge({ dry_run: false });
    assert.equal(result.events_removed, 40);
    await assertBarred(engine, "t");
    engine = await store.reopen();
    await assertBarred(engine, "t");
    assert.equal((await engine.scavenge({ dry_run: false })).events_removed, 0);
    engine = await store.reopen();
    await assertBarred(engine, "t");
    assert.equal((await readStreamFully(engine, "acme", "keep")).length, 60);
    assert.equal((await engine.verify()).ok, true);
  });

  test("the metadata document has a revision from 0, and optimistic concurrency on it", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(1));
    assert.deepEqual(await engine.getStreamMetadata("acme", "s"), {
      stream_id: "s",
      metadata_revision: null,
      metadata: {},
    });
    const document = { owner: { name: "zoë", tags: ["a", 1, null, true] }, $acl: { $r: "x" }, n: 1.5 };
    await rejectsWith(setMetadata(engine, "s", document, 0), "WRONG_EXPECTED_REVISION");
    const first = await setMetadata(engine, "s", document, "no_stream");
    assert.deepEqual(first, { stream_id: "s", metadata_revision: 0, metadata: document });
    await rejectsWith(setMetadata(engine, "s", {}, "no_stream"), "WRONG_EXPECTED_REVISION");
    const stale = await rejectsWith(setMetadata(engine, "s", {}, 5), "WRONG_EXPECTED_REVISION");
    assert.equal(stale.details.actual, 0);
    const second = await setMetadata(engine, "s", { other: "x" }, 0);
    assert.deepEqual(second, { stream_id: "s", metadata_revision: 1, metadata: { other: "x" } });
    assert.equal((await setMetadata(engine, "s", { other: "y" })).metadata_revision, 2);
    assert.deepEqual(await engine.getStreamMetadata("acme", "s"), {
      stream_id: "s",
      metadata_revision: 2,
      metadata: { other: "y" },
    });
    const reopened = await store.reopen();
    assert.deepEqual(await reopened.getStreamMetadata("acme", "s"), {
      stream_id: "s",
      metadata_revision: 2,
      metadata: { other: "y" },
    });
  });

  test("retention and the metadata document are one truth", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(10));
    await setMetadata(engine, "s", { owner: "x", $maxCount: 3 });
    let info = await engine.getStreamInfo("acme", "s");
    assert.deepEqual(info?.retention, { ...none, max_count: 3 });
    assert.deepEqual(
      (await readStreamFully(engine, "acme", "s")).map((e) => e.revision),
      [7, 8, 9],
    );
    info = await engine.setRetention("acme", "s", { ...none, truncate_before: 8, max_age_seconds: 3600 });
    assert.deepEqual(info.retention, { ...none, truncate_before: 8, max_age_seconds: 3600 });
    const after = await engine.getStreamMetadata("acme", "s");
    assert.equal(after.metadata_revision, 1, "setting retention is a change of the document");
    assert.deepEqual(after.metadata, { owner: "x", $maxAge: 3600, $tb: 8 });
    await setMetadata(engine, "s", { owner: "y" });
    assert.deepEqual(
      (await engine.getStreamInfo("acme", "s"))?.retention,
      none,
      "absent keys unset retention",
    );
    assert.equal((await readStreamFully(engine, "acme", "s")).length, 10);
    await engine.setRetention("acme", "s", { ...none, max_count: 2 });
    const reopened = await store.reopen();
    assert.deepEqual(await reopened.getStreamMetadata("acme", "s"), {
      stream_id: "s",
      metadata_revision: 3,
      metadata: { owner: "y", $maxCount: 2 },
    });
    assert.deepEqual((await reopened.getStreamInfo("acme", "s"))?.retention, { ...none, max_count: 2 });
    assert.equal((await readStreamFully(reopened, "acme", "s")).length, 2);
  });

  test("metadata of a stream with no event: set, not a stream yet, and followed by its first events", async (store) => {
    const { engine } = store;
    await setMetadata(engine, "later", { $maxCount: 2, k: 1 }, "no_stream");
    assert.equal(await engine.getStreamInfo("globex", "later"), null, "only its own tenant's");
    await setMetadata(engine, "later", { $maxCount: 2, k: 1 }, 0);
    assert.equal(await engine.getStreamInfo("acme", "later"), null);
    assert.equal(await engine.getTenantUsage("acme"), null, "a tenant with no event has no usage");
    assert.deepEqual(
      (await engine.listStreams({ tenant_id: null, prefix: null, limit: 10, cursor: null })).streams,
      [],
    );
    await rejectsWith(readFrom(engine, "later"), "STREAM_NOT_FOUND");
    await rejectsWith(engine.setRetention("acme", "later", none), "STREAM_NOT_FOUND");
    await rejectsWith(engine.deleteStream("acme", "later"), "STREAM_NOT_FOUND");
    // An append of a failing expected revision leaves the document in place.
    await rejectsWith(appendEvents(engine, "acme", "later", newEvents(1), 3), "WRONG_EXPECTED_REVISION");
    await appendEvents(engine, "acme", "later", newEvents(5), "no_stream");
    const info = await engine.getStreamInfo("acme", "later");
    assert.deepEqual(info?.retention, { ...none, max_count: 2 });
    assert.equal(info?.event_count, 2);
    assert.equal((await engine.getTenantUsage("acme"))?.streams, 1);
    const reopened = await store.reopen();
    assert.deepEqual(await reopened.getStreamMetadata("acme", "later"), {
      stream_id: "later",
      metadata_revision: 1,
      metadata: { $maxCount: 2, k: 1 },
    });
    assert.equal((await readStreamFully(reopened, "acme", "later")).length, 2);
    await setMetadata(reopened, "only-metadata", { k: 1 });
    await reopened.deleteStream("acme", "only-tombstone", { expected_revision: "any", tombstone: true });
    assert.equal((await reopened.verify()).ok, true, "streams with no event are a consistent store");
  });

  test("the metadata document survives a soft delete and can still be set", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(3));
    await setMetadata(engine, "s", { owner: "x", $tb: 1 });
    await engine.deleteStream("acme", "s");
    assert.deepEqual(await engine.getStreamMetadata("acme", "s"), {
      stream_id: "s",
      metadata_revision: 0,
      metadata: { owner: "x", $tb: 1 },
    });
    assert.equal((await setMetadata(engine, "s", { owner: "y" }, 0)).metadata_revision, 1);
    await rejectsWith(engine.setRetention("acme", "s", none), "STREAM_NOT_FOUND");
    await appendEvents(engine, "acme", "s", newEvents(2));
    assert.deepEqual(
      (await readStreamFully(engine, "acme", "s")).map((e) => e.revision),
      [3, 4],
    );
    const reopened = await store.reopen();
    assert.deepEqual((await reopened.getStreamMetadata("acme", "s")).metadata, { owner: "y" });
  });

  test("a metadata document that breaks a rule is refused, naming the field, and nothing changes", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "s", newEvents(1));
    await setMetadata(engine, "s", { keep: true });
    const bad: [unknown, string][] = [
      [[], "metadata"],
      ["text", "metadata"],
      [null, "metadata"],
      [{ $maxAge: "10" }, "metadata.$maxAge"],
      [{ $maxAge: 0 }, "metadata.$maxAge"],
      [{ $maxCount: -1 }, "metadata.$maxCount"],
      [{ $maxCount: null }, "metadata.$maxCount"],
      [{ $tb: 1.5 }, "metadata.$tb"],
      [{ big: "x".repeat(limits.streamMetadataBytesMax) }, "metadata"],
    ];
    for (const [metadata, field] of bad) {
      const error = await rejectsWith(
        setMetadata(engine, "s", metadata as Record<string, unknown>),
        "INVALID_ARGUMENT",
      );
      assert.equal(error.details.field, field, JSON.stringify(metadata).slice(0, 40));
    }
    await rejectsWith(
      engine.setStreamMetadata({
        tenant_id: "acme",
        stream_id: "s",
        metadata: {},
        expected_metadata_revision: -1,
      }),
      "INVALID_ARGUMENT",
    );
    await rejectsWith(
      engine.deleteStream("acme", "s", {
        expected_revision: "sometime" as unknown as number,
        tombstone: true,
      }),
      "INVALID_ARGUMENT",
    );
    assert.deepEqual(await engine.getStreamMetadata("acme", "s"), {
      stream_id: "s",
      metadata_revision: 0,
      metadata: { keep: true },
    });
    assert.equal((await engine.getStreamInfo("acme", "s"))?.tombstoned, false);
  });
}

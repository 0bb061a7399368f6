/**
 * The event-id check against ids whose fingerprints share the lane the resident set stores:
 * they are told apart (by the high lane: the set's shard, the index files' second column) in
 * the active segment, in sealed ones, after a restart before and after the set is filled, and
 * after scavenge rewrote the segment.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import type { AppendResult } from "../../../src/contract/bodies.js";
import { readWholeStream } from "../../helpers/crash-harness.js";
import { captureLogger, events, fingerprint, lowLaneCollisions, makeTempDir, removeDir } from "./helpers.js";

const segmentBytesMax = 16 * 1024;

function appendId(engine: LogEngine, streamId: string, eventId: string): Promise<AppendResult> {
  return engine.append({
    tenant_id: "acme",
    stream_id: streamId,
    events: [{ event_id: eventId, event_type: "Happened", data: `{"id":"${eventId}"}`, metadata: "{}" }],
    expected_revision: "any",
  });
}

async function fingerprintsLoaded(engine: LogEngine): Promise<void> {
  while (!engine.index.fingerprintsReady) await new Promise((resolve) => setTimeout(resolve, 5));
}

test("ids whose fingerprints share the stored lane are told apart, and each is found again after restart, after the fill and after scavenge", async () => {
  // Two ids of one stream whose low lanes collide and whose high lanes pick other shards.
  const [a, b] = lowLaneCollisions("acme", "order-1", 300_000).find(
    ([x, y]) => fingerprint("acme", "order-1", x)[1] >>> 22 !== fingerprint("acme", "order-1", y)[1] >>> 22,
  )!;
  assert.equal(fingerprint("acme", "order-1", a)[0], fingerprint("acme", "order-1", b)[0]);
  const dir = makeTempDir("ess-id-lanes-");
  const open = (): Promise<LogEngine> =>
    openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
  try {
    let engine = await open();
    await fingerprintsLoaded(engine);
    // A stream to delete in the first segment, so that scavenge rewrites it.
    await engine.append({
      tenant_id: "acme",
      stream_id: "gone",
      events: events(5),
      expected_revision: "any",
    });
    const first = await appendId(engine, "order-1", a);
    assert.equal(first.first_revision, 0);
    // In the active segment still: b is new, a is a repeat.
    const other = await appendId(engine, "order-1", "00000000-0000-4000-8000-00000000ffff");
    assert.equal(other.first_revision, 1);
    for (let i = 0; i < 100; i++)
      await engine.append({
        tenant_id: "acme",
        stream_id: `s-${i % 3}`,
        events: events(3),
        expected_revision: "any",
      });
    assert.ok((await engine.status()).segments!.filter((s) => s.sealed).length >= 2, "a's segment is sealed");
    const second = await appendId(engine, "order-1", b);
    assert.equal(second.first_revision, 2, "b is not taken for a");
    assert.equal(engine.index.idCheckFalseHits, 0, "the set told b from a: no lookup for nothing");

    /** a and b again: each a repeat answering its own revision; the stream keeps 3 events. */
    const bothFound = async (when: string): Promise<void> => {
      assert.equal((await appendId(engine, "order-1", a)).first_revision, 0, `${when}: a`);
      assert.equal((await appendId(engine, "order-1", b)).first_revision, 2, `${when}: b`);
      const stored = await readWholeStream(engine, "acme", "order-1");
      assert.deepEqual(
        stored.map((e) => e.event_id),
        [a, "00000000-0000-4000-8000-00000000ffff", b],
        when,
      );
    };
    await bothFound("running");
    await engine.close();

    engine = await open();
    assert.equal(engine.index.fingerprintsReady, false, "right after start-up the set is not filled yet");
    await bothFound("after a restart, before the set is filled");
    await fingerprintsLoaded(engine);
    await bothFound("after the set is filled");

    await engine.deleteStream("acme", "gone");
    const scavenged = await engine.scavenge({ dry_run: false });
    assert.ok(scavenged.segments_rewritten >= 1, "scavenge rewrote a's segment");
    await bothFound("after scavenge");
    await engine.close();

    engine = await open();
    await fingerprintsLoaded(engine);
    await bothFound("after scavenge and a restart");
    assert.equal(engine.index.idCheckFalseHits, 0);
    assert.equal((await engine.verify()).ok, true);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

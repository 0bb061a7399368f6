/**
 * Status, verify and scavenge. A dry run changes nothing and predicts a real run exactly;
 * a real run removes only what retention and soft delete already hide, keeps every other
 * event readable with the same revision and position, and leaves verify clean.
 */
import assert from "node:assert/strict";
import { limits } from "../../limits.js";
import type { EventRecord, ScavengeResult, StreamInfo } from "../../contract/bodies.js";
import type { MaintenanceProgress, StorageEngine, VerifyProgress } from "../engine.js";
import type { CaseContext } from "./suite.js";
import {
  type ManualClock,
  appendEvents,
  assertIsoMillisUtc,
  listStreamsFully,
  newEvent,
  newEvents,
  readTenantFully,
  rejectsWith,
} from "./harness.js";

/** A kilobyte of data per event, so a store with small segments seals many of them. */
function paddedEvents(count: number) {
  return newEvents(count, (i) => ({ data: JSON.stringify({ i, pad: "p".repeat(1000) }) }));
}

/**
 * Streams with work for a scavenge: `keep` (all readable), `count` (max_count 5 of 40),
 * `gone` (deleted, 40), `cut` (truncate_before 10 of 20), then more appends so that what is
 * hidden is no longer at the head of the store. 85 events are hidden in total.
 */
async function storeWithGarbage(engine: StorageEngine): Promise<number> {
  for (let round = 0; round < 4; round++) {
    await appendEvents(engine, "acme", "count", paddedEvents(10));
    await appendEvents(engine, "acme", "gone", paddedEvents(10));
    await appendEvents(engine, "acme", "cut", paddedEvents(5));
    await appendEvents(engine, "globex", "keep", paddedEvents(5));
  }
  await engine.setRetention("acme", "count", { max_age_seconds: null, max_count: 5, truncate_before: null });
  await engine.deleteStream("acme", "gone");
  await engine.setRetention("acme", "cut", { max_age_seconds: null, max_count: null, truncate_before: 10 });
  for (let round = 0; round < 6; round++) await appendEvents(engine, "globex", "keep", paddedEvents(10));
  return 85;
}

/** `aged` (40 events, 1000 s old, max_age 500 s) then `fresh` (40 events); returns 40. */
async function storeWithAgedEvents(engine: StorageEngine, clock: ManualClock): Promise<number> {
  for (let round = 0; round < 4; round++) await appendEvents(engine, "acme", "aged", paddedEvents(10));
  clock.advanceSeconds(1000);
  await engine.setRetention("acme", "aged", { max_age_seconds: 500, max_count: null, truncate_before: null });
  for (let round = 0; round < 4; round++) await appendEvents(engine, "acme", "fresh", paddedEvents(10));
  return 40;
}

interface Snapshot {
  acme: EventRecord[];
  globex: EventRecord[];
  infos: (StreamInfo | null)[];
  streams_total: number;
  last_position: number;
}

async function snapshot(engine: StorageEngine): Promise<Snapshot> {
  const status = await engine.status();
  return {
    acme: await readTenantFully(engine, "acme"),
    globex: await readTenantFully(engine, "globex"),
    infos: await Promise.all(
      [
        ["acme", "count"],
        ["acme", "gone"],
        ["acme", "cut"],
        ["globex", "keep"],
      ].map(([tenant, stream]) => engine.getStreamInfo(tenant!, stream!)),
    ),
    streams_total: status.streams_total,
    last_position: status.last_position,
  };
}

function withoutBytes(snap: Snapshot) {
  return { ...snap, infos: snap.infos.map((info) => ({ ...info, bytes: 0 })) };
}

/** Progress reports start at 0, never go back or past their total, and end at their total. */
function assertProgressRuns(reports: MaintenanceProgress[], what: string): void {
  assert.ok(reports.length >= 1, `${what} reports progress`);
  assert.equal(reports[0]!.done, 0, `${what} reports done 0 when its work begins`);
  const unit = reports[0]!.unit;
  for (const [i, report] of reports.entries()) {
    assert.equal(report.unit, unit, `${what} keeps one unit`);
    assert.ok(report.done <= report.total, `${what}: done ${report.done} is within total ${report.total}`);
    if (i > 0) assert.ok(report.done >= reports[i - 1]!.done, `${what}: done never goes back`);
  }
  const last = reports[reports.length - 1]!;
  assert.equal(last.done, last.total, `${what} ends at its total`);
}

function prediction(result: ScavengeResult) {
  return {
    events_removed: result.events_removed,
    bytes_reclaimed: result.bytes_reclaimed,
    segments_rewritten: result.segments_rewritten,
    streams_affected: result.streams_affected,
  };
}

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function maintenanceCases({ test }: CaseContext): void {
  test("status reports the engine kind, totals and the last position", async (store) => {
    const { engine } = store;
    const empty = await engine.status();
    assert.equal(empty.engine, engine.kind);
    assert.equal(empty.events_total, 0);
    assert.equal(empty.streams_total, 0);
    assert.equal(empty.last_scavenge, null);
    await appendEvents(engine, "acme", "a", newEvents(2));
    await appendEvents(engine, "globex", "a", newEvents(3));
    const last = await appendEvents(engine, "acme", "b", newEvents(1));
    const status = await engine.status();
    assert.equal(status.engine, engine.kind);
    assert.equal(status.events_total, 6);
    assert.equal(status.streams_total, 3);
    assert.ok(
      status.bytes_total >=
        (await listStreamsFully(engine, null, null, 1000)).reduce((s, x) => s + x.bytes, 0),
    );
    assert.equal(status.last_position, last.position);
    assert.equal(status.last_scavenge, null);
    assert.ok(engine.isWritable());
  });

  test("status streams_total counts the streams that are not deleted, as tenant usage does", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "a", newEvents(1));
    await appendEvents(engine, "acme", "b", newEvents(1));
    await appendEvents(engine, "globex", "a", newEvents(1));
    await engine.deleteStream("acme", "b");
    assert.equal((await engine.status()).streams_total, 2);
    assert.equal((await engine.getTenantUsage("acme"))?.streams, 1);
    await appendEvents(engine, "acme", "b", newEvents(1));
    assert.equal((await engine.status()).streams_total, 3, "a revived stream counts again");
    const reopened = await store.reopen();
    await reopened.deleteStream("globex", "a");
    assert.equal((await reopened.status()).streams_total, 2);
  });

  test("the last real scavenge is still reported after a reopen, and a dry run does not replace it", async (store) => {
    await storeWithGarbage(store.engine);
    const real = await store.engine.scavenge({ dry_run: false });
    const reported = (await store.engine.status()).last_scavenge;
    assert.ok(reported);
    assert.deepEqual(prediction(reported), prediction(real));
    let engine = await store.reopen();
    assert.deepEqual((await engine.status()).last_scavenge, reported, "the same result and time");
    await engine.scavenge({ dry_run: true });
    assert.deepEqual((await engine.status()).last_scavenge, reported, "a dry run is not a scavenge");
    // A run that finds nothing to remove is the last scavenge too.
    const empty = await engine.scavenge({ dry_run: false });
    assert.equal(empty.events_removed, 0);
    const second = (await engine.status()).last_scavenge;
    assert.ok(second);
    assert.deepEqual(prediction(second), prediction(empty));
    engine = await store.reopen();
    assert.deepEqual((await engine.status()).last_scavenge, second);
  });

  test("verify reports a healthy store as ok", async (store) => {
    const { engine } = store;
    const quiet = await engine.verify();
    assert.equal(quiet.ok, true);
    assert.deepEqual(quiet.errors, []);
    for (let i = 0; i < 30; i++)
      await appendEvents(engine, i % 2 ? "acme" : "globex", `s-${i % 7}`, paddedEvents(3));
    const progress: { bytes_checked: number; bytes_total: number }[] = [];
    const result = await engine.verify((p) => progress.push(p));
    assert.equal(result.ok, true);
    assert.deepEqual(result.errors, []);
    assert.ok(result.duration_ms >= 0);
    assert.ok(result.records_checked > 0, "verify checked records");
    for (const p of progress) assert.ok(p.bytes_checked <= p.bytes_total, "progress never passes the total");
    const reopened = await store.reopen();
    assert.equal((await reopened.verify()).ok, true);
  });

  test("verify and scavenge report progress from 0 to their total, after a scavenge is admitted", async (store) => {
    const { engine } = store;
    await storeWithGarbage(engine);
    const verified: VerifyProgress[] = [];
    const verify = await engine.verify((p) => verified.push(p));
    assertProgressRuns(
      verified.map((p) => ({ done: p.bytes_checked, total: p.bytes_total, unit: "bytes" })),
      "verify",
    );
    assert.ok(verified[verified.length - 1]!.bytes_total > 0, "verify has bytes to check");
    assert.equal(verified[verified.length - 1]!.bytes_checked, verify.bytes_checked);
    for (const dryRun of [true, false]) {
      const what = dryRun ? "a dry run" : "a real run";
      const seen: ("admitted" | MaintenanceProgress)[] = [];
      const result = await engine.scavenge({
        dry_run: dryRun,
        onAdmitted: () => seen.push("admitted"),
        onProgress: (p) => seen.push({ ...p }),
      });
      assert.equal(seen[0], "admitted", `${what} is admitted before it reports progress`);
      assert.equal(seen.filter((s) => s === "admitted").length, 1, `${what} is admitted once`);
      const reports = seen.filter((s): s is MaintenanceProgress => s !== "admitted");
      assertProgressRuns(reports, what);
      assert.ok(reports[reports.length - 1]!.total > 0, `${what} has work to count`);
      assert.ok(result.events_removed > 0);
    }
  });

  test("a dry run lists the streams it takes events from, largest first, adding up to its totals", async (store) => {
    const { engine } = store;
    await storeWithGarbage(engine);
    const dry = await engine.scavenge({ dry_run: true });
    const streams = dry.streams;
    assert.ok(streams, "a dry run lists its streams");
    assert.equal(streams.length, dry.streams_affected);
    assert.equal(
      streams.reduce((sum, s) => sum + s.events_removed, 0),
      dry.events_removed,
    );
    assert.equal(
      streams.reduce((sum, s) => sum + s.bytes_reclaimed, 0),
      dry.bytes_reclaimed,
    );
    // acme/count hides 35 events, acme/gone 40, acme/cut 10; globex/keep hides none.
    const hiddenOf = new Map([
      ["acme/count", 35],
      ["acme/gone", 40],
      ["acme/cut", 10],
    ]);
    for (const [i, s] of streams.entries()) {
      const hidden = hiddenOf.get(`${s.tenant_id}/${s.stream_id}`);
      assert.ok(hidden !== undefined, `${s.tenant_id}/${s.stream_id} hides events`);
      assert.ok(
        s.events_removed >= 1 && s.events_removed <= hidden,
        `${s.stream_id} loses hidden events only`,
      );
      assert.ok(s.bytes_reclaimed > 0);
      if (i > 0) assert.ok(s.bytes_reclaimed <= streams[i - 1]!.bytes_reclaimed, "largest first");
    }
    const real = await engine.scavenge({ dry_run: false });
    assert.equal(real.streams, undefined, "a real run's result lists no streams");
    assert.deepEqual((await engine.scavenge({ dry_run: true })).streams, [], "none are left to list");
  });

  test("a dry run lists at most scavengeStreamsListedMax streams: the largest ones", async (store) => {
    const { engine } = store;
    const listedMax = limits.scavengeStreamsListedMax;
    const streamCount = listedMax + 50;
    // Stream k's one event is k bytes of padding larger than stream k-1's: no two are as large.
    for (let first = 0; first < streamCount; first += 50) {
      const ks = Array.from({ length: Math.min(50, streamCount - first) }, (_, i) => first + i);
      await Promise.all(
        ks.map((k) =>
          appendEvents(engine, "acme", `s-${k}`, [
            newEvent({ data: JSON.stringify({ pad: "p".repeat(k) }) }),
          ]),
        ),
      );
      await Promise.all(ks.map((k) => engine.deleteStream("acme", `s-${k}`)));
    }
    // Filler, so that every deleted event sits in storage a scavenge may rewrite.
    for (let round = 0; round < 4; round++) await appendEvents(engine, "globex", "keep", paddedEvents(10));
    const dry = await engine.scavenge({ dry_run: true });
    assert.equal(dry.streams_affected, streamCount, "every deleted stream is counted");
    assert.equal(dry.events_removed, streamCount);
    assert.deepEqual(
      dry.streams?.map((s) => s.stream_id),
      Array.from({ length: listedMax }, (_, i) => `s-${streamCount - 1 - i}`),
      "the largest streams, largest first",
    );
  });

  test("a dry-run scavenge changes nothing and reports what a real run removes", async (store) => {
    const { engine } = store;
    const hidden = await storeWithGarbage(engine);
    const before = await snapshot(engine);
    const statusBefore = await engine.status();
    const dry = await engine.scavenge({ dry_run: true });
    assert.equal(dry.dry_run, true);
    assert.ok(dry.events_removed > 0, "there is something to remove");
    assert.ok(dry.events_removed <= hidden, "only hidden events are counted");
    assert.ok(dry.bytes_reclaimed > 0);
    assert.ok(dry.streams_affected >= 1 && dry.streams_affected <= 3);
    assert.deepEqual(await snapshot(engine), before, "a dry run changes nothing");
    const statusAfterDry = await engine.status();
    assert.equal(statusAfterDry.events_total, statusBefore.events_total);
    assert.equal(statusAfterDry.bytes_total, statusBefore.bytes_total);
    assert.deepEqual(
      prediction(await engine.scavenge({ dry_run: true })),
      prediction(dry),
      "a dry run is repeatable",
    );

    const real = await engine.scavenge({ dry_run: false });
    assert.equal(real.dry_run, false);
    assert.deepEqual(prediction(real), prediction(dry), "the real run removes what the dry run reported");
    const after = await snapshot(engine);
    assert.deepEqual(withoutBytes(after), withoutBytes(before), "every readable event is unchanged");
    const statusAfter = await engine.status();
    assert.equal(
      statusAfter.events_total,
      statusBefore.events_total - real.events_removed,
      "events_total counts stored events",
    );
    const again = await engine.scavenge({ dry_run: true });
    assert.equal(again.events_removed, 0, "nothing removable is left");
    assert.equal(again.bytes_reclaimed, 0);
  });

  test("a real scavenge keeps the remaining events, their revisions, positions and stream state", async (store) => {
    await storeWithGarbage(store.engine);
    const before = await snapshot(store.engine);
    const usageBefore = (await store.engine.getTenantUsage("acme"))!;
    const bytesBefore = usageBefore.bytes;
    const real = await store.engine.scavenge({ dry_run: false });
    assert.ok(real.events_removed > 0);
    const after = await snapshot(store.engine);
    assert.deepEqual(withoutBytes(after), withoutBytes(before));
    const bytesAfter = (await store.engine.getTenantUsage("acme"))!.bytes;
    assert.ok(
      bytesAfter < bytesBefore,
      `tenant bytes drop after a scavenge (${bytesBefore} -> ${bytesAfter})`,
    );
    // All removable events belong to acme: its stored events drop by exactly what was removed.
    assert.equal(
      (await store.engine.getTenantUsage("acme"))!.events,
      usageBefore.events - real.events_removed,
    );
    for (const [i, info] of after.infos.entries()) {
      assert.ok(
        info!.bytes <= before.infos[i]!.bytes,
        `stream ${info!.stream_id} holds no more bytes than before`,
      );
    }
    assert.equal((await store.engine.verify()).ok, true);
    const status = await store.engine.status();
    assert.ok(status.last_scavenge);
    assert.deepEqual(prediction(status.last_scavenge), prediction(real));
    assert.equal(status.last_scavenge.dry_run, false);
    assertIsoMillisUtc(status.last_scavenge.finished_at, "finished_at");

    // A fully scavenged deleted stream still knows its revisions.
    const result = await appendEvents(store.engine, "acme", "gone", newEvents(1));
    assert.equal(result.first_revision, 40);
    assert.ok(result.position > before.last_position);
    const engine = await store.reopen();
    const reopened = await snapshot(engine);
    assert.deepEqual(reopened.globex, before.globex, "a reopen after a scavenge reads the same events");
    assert.deepEqual(
      reopened.acme.filter((e) => e.stream_id !== "gone"),
      before.acme,
    );
    assert.equal((await engine.verify()).ok, true);
    assert.equal((await engine.scavenge({ dry_run: true })).events_removed, 0);
  });

  test("a scavenge of a store with nothing hidden removes nothing", async (store) => {
    const { engine } = store;
    const empty = await engine.scavenge({ dry_run: false });
    assert.deepEqual(prediction(empty), {
      events_removed: 0,
      bytes_reclaimed: 0,
      segments_rewritten: 0,
      streams_affected: 0,
    });
    for (let i = 0; i < 6; i++) await appendEvents(engine, "acme", `s-${i % 2}`, paddedEvents(10));
    const before = await readTenantFully(engine, "acme");
    assert.equal((await engine.scavenge({ dry_run: true })).events_removed, 0);
    assert.equal((await engine.scavenge({ dry_run: false })).events_removed, 0);
    assert.deepEqual(await readTenantFully(engine, "acme"), before);
    assert.equal((await engine.verify()).ok, true);
  });

  test("a scavenge removes events hidden by max_age_seconds as the clock moves", async (store, clock) => {
    const removable = await storeWithAgedEvents(store.engine, clock);
    const dry = await store.engine.scavenge({ dry_run: true });
    assert.ok(dry.events_removed > 0 && dry.events_removed <= removable);
    const before = await readTenantFully(store.engine, "acme");
    const real = await store.engine.scavenge({ dry_run: false });
    assert.deepEqual(prediction(real), prediction(dry));
    assert.deepEqual(await readTenantFully(store.engine, "acme"), before);
    assert.deepEqual(
      before.map((e) => e.stream_id),
      Array.from({ length: 40 }, () => "fresh"),
      "only the fresh events are readable",
    );
    const engine = await store.reopen();
    assert.deepEqual(await readTenantFully(engine, "acme"), before);
    assert.equal((await engine.verify()).ok, true);
    const next = await appendEvents(engine, "acme", "aged", newEvents(1));
    assert.equal(next.first_revision, 40, "revisions continue after the aged events were removed");
  });

  test("a second real scavenge while one runs fails with SCAVENGE_IN_PROGRESS", async (store) => {
    const { engine } = store;
    await storeWithGarbage(engine);
    const admitted: string[] = [];
    const first = engine.scavenge({ dry_run: false, onAdmitted: () => admitted.push("first") });
    const second = engine.scavenge({ dry_run: false, onAdmitted: () => admitted.push("second") });
    const [firstOutcome, secondOutcome] = await Promise.allSettled([first, second]);
    assert.equal(firstOutcome.status, "fulfilled");
    assert.equal(secondOutcome.status, "rejected");
    await rejectsWith(second, "SCAVENGE_IN_PROGRESS");
    assert.deepEqual(admitted, ["first"], "a refused run is never admitted");
    assert.equal((await engine.verify()).ok, true);
    // Once the run is over, another may start.
    await engine.scavenge({ dry_run: false });
  });

  test("appends and reads go on while a scavenge runs", async (store) => {
    const { engine } = store;
    await storeWithGarbage(engine);
    const before = await readTenantFully(engine, "globex");
    const scavenge = engine.scavenge({ dry_run: false });
    const appends = [];
    for (let i = 0; i < 20; i++)
      appends.push(appendEvents(engine, "globex", `live-${i % 3}`, paddedEvents(2)));
    const reads = [readTenantFully(engine, "globex"), readTenantFully(engine, "acme")];
    const [results, readResults] = await Promise.all([Promise.all(appends), Promise.all(reads), scavenge]);
    const readGlobex = readResults[0]!;
    assert.deepEqual(readGlobex.slice(0, before.length), before, "reads during a scavenge see every event");
    const after = await readTenantFully(engine, "globex");
    assert.deepEqual(after.slice(0, before.length), before);
    const positions = new Set(after.map((e) => e.position));
    for (const result of results)
      assert.ok(positions.has(result.position), "each acknowledged append is readable");
    assert.equal(after.length, before.length + 40);
    assert.equal((await engine.verify()).ok, true);
  });
}

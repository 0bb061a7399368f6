/**
 * The log writer's pipeline (src/storage/log/sync-pipeline.ts): groups written while an fdatasync
 * is in flight on the thread pool. Every test puts all syncs on the pool
 * (inlineFsyncMicrosMax: 0) and holds a sync in flight with the holdFsync fault hook, on real
 * files.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { openLogEngine, type LogEngine, type LogFaults } from "../../../src/storage/log/index.js";
import { isEssError } from "../../../src/errors.js";
import type { AppendNotice, EventToAppend } from "../../../src/storage/engine.js";
import { captureLogger, events, makeTempDir, removeDir } from "./helpers.js";

function errno(code: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`${code}: injected`);
  e.code = code;
  return e;
}

/** Lets the writer loop run: it takes what waits at the end of a turn and writes it. */
async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether an event id's bytes are in a segment file (written, durable or not). */
function onDisk(dir: string, eventId: string): boolean {
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".log"))
    .some((n) => fs.readFileSync(path.join(dir, n)).includes(Buffer.from(eventId, "latin1")));
}

/** A gate for the holdFsync hook: hold() makes the next syncs wait until release(). */
function syncGate(): {
  faults: LogFaults;
  hold: () => void;
  release: () => void;
  failNext: (on: boolean) => void;
} {
  let held: Promise<void> | null = null;
  let open: () => void = () => undefined;
  let failing = false;
  return {
    faults: {
      fsync: () => (failing ? errno("EIO") : null),
      holdFsync: () => held,
    },
    hold: () => {
      held = new Promise<void>((resolve) => (open = resolve));
    },
    release: () => {
      held = null;
      open();
    },
    failNext: (on) => {
      failing = on;
    },
  };
}

/** Tracks whether a promise settled yet, without letting a rejection go unhandled. */
function track<T>(p: Promise<T>): { settled: () => boolean; outcome: Promise<PromiseSettledResult<T>> } {
  let done = false;
  const outcome = Promise.allSettled([p]).then(([r]) => {
    done = true;
    return r;
  });
  return { settled: () => done, outcome };
}

function append(
  engine: LogEngine,
  stream: string,
  evs: EventToAppend[],
  expected: "any" | "no_stream" | number,
) {
  return engine.append({ tenant_id: "t", stream_id: stream, events: evs, expected_revision: expected });
}

test("a failed fdatasync fails the group written behind it too, and neither becomes readable", async () => {
  const dir = makeTempDir();
  try {
    const gate = syncGate();
    const { lines, logger } = captureLogger();
    let engine = await openLogEngine({ dataDir: dir, faults: gate.faults, logger, inlineFsyncMicrosMax: 0 });
    const heard: AppendNotice[] = [];
    engine.onAppend((n) => heard.push(n));
    await append(engine, "s", events(2), "any");

    // Group 1's fdatasync fails, and is held in flight while groups 2 and 3 are written.
    gate.hold();
    gate.failNext(true);
    const first = track(append(engine, "s", events(1), 1));
    await turns();
    gate.failNext(false); // a sync started for the groups behind would now succeed
    const behindEvents = events(1);
    const behind = track(append(engine, "s", behindEvents, 2)); // planned on group 1's revision 2
    const other = track(append(engine, "other", events(3), "no_stream"));
    await turns();
    assert.ok(
      onDisk(dir, behindEvents[0]!.event_id),
      "the group behind was written while the sync was in flight",
    );
    assert.equal(behind.settled(), false, "and waits for a sync of its own");
    gate.release();

    for (const t of [first, behind, other]) {
      const r = await t.outcome;
      assert.equal(r.status, "rejected");
      assert.ok(isEssError(r.reason) && r.reason.code === "UNAVAILABLE", String(r.reason));
      assert.match(r.reason.message, /EIO/);
    }
    assert.equal(engine.isWritable(), false);
    assert.equal(lines.filter((l) => l.msg.startsWith("fdatasync failed")).length, 1);
    assert.equal((await engine.getStreamInfo("t", "s"))!.event_count, 2, "no state claims the failed groups");
    assert.equal(await engine.getStreamInfo("t", "other"), null);
    assert.equal((await engine.readAll({ tenant_id: "t", from_position: 0, limit: 100 })).events.length, 2);
    assert.equal(heard.length, 1, "subscribers heard only the acknowledged append");
    await assert.rejects(
      append(engine, "s", events(1), "any"),
      (e) => isEssError(e) && e.code === "UNAVAILABLE",
    );
    await engine.close();

    engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    assert.equal((await engine.verify()).ok, true);
    const count = (await engine.getStreamInfo("t", "s"))!.event_count;
    assert.ok(count >= 2 && count <= 4, "unacknowledged batches are whole or absent after a reopen");
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("groups written during an fdatasync are planned on the groups in flight, answered in order after the next sync", async () => {
  const dir = makeTempDir();
  try {
    const gate = syncGate();
    const engine = await openLogEngine({
      dataDir: dir,
      faults: gate.faults,
      logger: captureLogger().logger,
      inlineFsyncMicrosMax: 0,
    });
    const order: string[] = [];
    const named = <T>(name: string, p: Promise<T>): Promise<T> =>
      p.then((v) => {
        order.push(name);
        return v;
      });
    const statsBefore = (await engine.status()).writer!;

    gate.hold();
    const aEvents = events(2);
    const a = named("a", append(engine, "s", aEvents, "no_stream"));
    await turns();
    // One group behind a: b expects a's last revision; c repeats a; d expects what a replaced.
    const b = named("b", append(engine, "s", events(1), 1));
    const c = named("c", append(engine, "s", aEvents, "no_stream"));
    const d = track(append(engine, "s", events(1), "no_stream"));
    const e = named("e", append(engine, "s2", events(1), "any"));
    await turns();
    // A repeat alone writes nothing, but rests on group 1: it is answered after it.
    const again = named("again", append(engine, "s", aEvents, "no_stream"));
    await turns();
    assert.deepEqual(order, [], "nothing is answered before its sync");
    assert.equal(await engine.getStreamInfo("t", "s"), null, "nor readable");
    gate.release();

    const [ra, rb, rc, re, rAgain] = await Promise.all([a, b, c, e, again]);
    const rd = await d.outcome;
    assert.equal(rd.status, "rejected");
    assert.ok(isEssError(rd.reason) && rd.reason.code === "WRONG_EXPECTED_REVISION");
    assert.deepEqual([ra.first_revision, ra.last_revision, ra.position], [0, 1, 2]);
    assert.deepEqual([rb.first_revision, rb.position], [2, 3]);
    assert.deepEqual(rc, ra, "the repeat of an append in flight gets its result");
    assert.deepEqual(rAgain, ra);
    assert.equal(re.position, 4);
    assert.equal(order[0], "a", "group 1 is answered first");
    const statsAfter = (await engine.status()).writer!;
    assert.equal(
      statsAfter.fsyncs - statsBefore.fsyncs,
      2,
      "one sync for group 1, one for the group behind it",
    );
    const read = await engine.readAll({ tenant_id: "t", from_position: 0, limit: 100 });
    assert.deepEqual(
      read.events.map((ev) => ev.position),
      [1, 2, 3, 4],
    );
    assert.equal((await engine.verify()).ok, true);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("a failed write behind an fdatasync in flight fails alone: the group ahead stays, no position is lost", async () => {
  const dir = makeTempDir();
  try {
    const gate = syncGate();
    let diskFull = false;
    const faults: LogFaults = {
      ...gate.faults,
      write: ({ bytes }) =>
        diskFull ? { error: errno("ENOSPC"), partialBytes: Math.floor(bytes / 2) } : null,
    };
    let engine = await openLogEngine({
      dataDir: dir,
      faults,
      logger: captureLogger().logger,
      inlineFsyncMicrosMax: 0,
    });
    gate.hold();
    const ahead = append(engine, "s", events(2), "any");
    await turns();
    diskFull = true;
    const refused = track(append(engine, "s", events(2), "any"));
    // Not a fixed number of turns: the write may first wait for a zero write of the room ahead
    // (segment-store.ts), on the thread pool.
    const r = await refused.outcome;
    diskFull = false;
    gate.release();
    assert.equal((await ahead).position, 2);
    assert.ok(r.status === "rejected" && isEssError(r.reason) && /ENOSPC/.test(r.reason.message));
    assert.equal(engine.isWritable(), true);
    const next = await append(engine, "s", events(1), 1);
    assert.deepEqual([next.first_revision, next.position], [2, 3]);
    await engine.close();
    engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    assert.equal((await engine.verify()).ok, true);
    const read = await engine.readAll({ tenant_id: "t", from_position: 0, limit: 100 });
    assert.deepEqual(
      read.events.map((ev) => ev.revision),
      [0, 1, 2],
      "the cut kept the bytes of the group ahead",
    );
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("under concurrency with syncs on the thread pool and segment rolls, positions and revisions have no gaps and read back in order", async () => {
  const dir = makeTempDir();
  try {
    const options = { dataDir: dir, logger: captureLogger().logger, segmentBytesMax: 64 * 1024 };
    let engine = await openLogEngine({ ...options, inlineFsyncMicrosMax: 0 });
    const results: { stream: string; first: number; last: number; position: number; count: number }[] = [];
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; i < 40; i++) {
        const stream = `s-${(w * 7 + i) % 12}`;
        const count = 1 + ((w + i) % 3);
        const r = await append(engine, stream, events(count), "any");
        results.push({ stream, first: r.first_revision, last: r.last_revision, position: r.position, count });
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
    const total = results.reduce((n, r) => n + r.count, 0);
    const positions = results.flatMap((r) =>
      Array.from({ length: r.count }, (_, k) => r.position - r.count + 1 + k),
    );
    assert.deepEqual(
      positions.sort((x, y) => x - y),
      Array.from({ length: total }, (_, k) => k + 1),
      "positions are dense and each used once",
    );
    const byStream = new Map<string, number[]>();
    for (const r of results)
      for (let rev = r.first; rev <= r.last; rev++)
        byStream.set(r.stream, [...(byStream.get(r.stream) ?? []), rev]);
    for (const [, revs] of byStream) {
      assert.deepEqual(
        revs.sort((x, y) => x - y),
        Array.from({ length: revs.length }, (_, k) => k),
      );
    }
    assert.ok(fs.readdirSync(dir).filter((n) => n.endsWith(".log")).length >= 3, "segments rolled");
    const readAll = async (): Promise<number[]> => {
      const got: number[] = [];
      let from = 0;
      for (;;) {
        const page = await engine.readAll({ tenant_id: "t", from_position: from, limit: 500 });
        got.push(...page.events.map((e) => e.position));
        if (page.events.length < 500) return got;
        from = page.events.at(-1)!.position + 1;
      }
    };
    assert.deepEqual(
      await readAll(),
      Array.from({ length: total }, (_, k) => k + 1),
    );
    assert.equal((await engine.verify()).ok, true);
    await engine.close();
    engine = await openLogEngine(options);
    assert.deepEqual(
      await readAll(),
      Array.from({ length: total }, (_, k) => k + 1),
      "and after a reopen",
    );
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

/**
 * The active segment keeps room ahead of its end, written with zeros and synced in the
 * background (an fdatasync into blocks the file already has commits no allocation); sealed
 * segments and a closed engine's files end at their data. A zero write never lands over the
 * engine's bytes nor after a cut, and a failing one only stops the filling.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { openLogEngine, type LogEngine, type LogFaults } from "../../../src/storage/log/index.js";
import type { EventToAppend } from "../../../src/storage/engine.js";
import { captureLogger, event, events, makeTempDir, removeDir } from "./helpers.js";

const MiB = 1024 * 1024;

function errno(code: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`${code}: injected`);
  e.code = code;
  return e;
}

/** Bytes of disk blocks the file holds. */
function allocatedBytes(file: string): number {
  return fs.statSync(file).blocks * 512;
}

/** Waits until `cond` holds (the filler works in the background), failing after `ms`. */
async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting: ${what}`);
    await sleep(10);
  }
}

/** A gate for the holdFill hook: zero writes wait while it is held. */
function fillGate(): { faults: LogFaults; holds: () => number; release: () => void } {
  let open: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (open = resolve));
  let holds = 0;
  let released = false;
  return {
    faults: {
      holdFill: () => {
        if (released) return null;
        holds++;
        return held;
      },
    },
    holds: () => holds,
    release: () => {
      released = true;
      open();
    },
  };
}

async function appendOne(engine: LogEngine, stream: string): Promise<void> {
  await engine.append({ tenant_id: "t", stream_id: stream, events: events(1), expected_revision: "any" });
}

test("the active segment's room is written blocks while open; sealed segments and a closed log end at their data", async () => {
  const dir = makeTempDir("ess-room-");
  try {
    const segmentBytesMax = 16 * 1024;
    const engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    for (let i = 0; i < 300; i++) await appendOne(engine, `s-${i % 7}`);
    const segments = (await engine.status()).segments!;
    assert.ok(segments.length >= 3, "the small segments were sealed several times");
    for (const s of segments.slice(0, -1)) {
      assert.equal(fs.statSync(path.join(dir, s.name)).size, s.bytes, `sealed ${s.name} ends at its data`);
    }
    const active = segments.at(-1)!;
    const file = path.join(dir, active.name);
    assert.equal(fs.statSync(file).size, segmentBytesMax, "the active segment's file reaches its size limit");
    await until(() => allocatedBytes(file) >= segmentBytesMax, "the room up to the size limit is allocated");
    assert.equal(
      (await engine.status()).segments!.at(-1)!.bytes,
      active.bytes,
      "the durable size is unchanged",
    );
    await engine.close();
    assert.equal(fs.statSync(file).size, active.bytes, "close cuts the room");

    const again = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    const all = await again.readAll({ tenant_id: "t", from_position: 0, limit: 1000 });
    assert.equal(all.events.length, 300);
    assert.equal((await again.verify()).ok, true);
    await again.close();
  } finally {
    removeDir(dir);
  }
});

test("zeros are written and synced megabytes ahead of a full-size active segment's data", async () => {
  const dir = makeTempDir("ess-room-");
  try {
    const engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    for (let i = 0; i < 50; i++) await appendOne(engine, `s-${i % 5}`);
    const active = (await engine.status()).segments!.at(-1)!;
    const file = path.join(dir, active.name);
    await until(
      () => allocatedBytes(file) >= active.bytes + 4 * MiB,
      "4 MiB of allocated room past the data",
    );
    assert.ok(fs.statSync(file).size >= active.bytes + 4 * MiB, "the file is longer than its data");
    assert.equal(
      (await engine.status()).segments!.at(-1)!.bytes,
      active.bytes,
      "the durable size is unchanged",
    );
    assert.equal((await engine.readAll({ tenant_id: "t", from_position: 0, limit: 100 })).events.length, 50);
    await engine.close();
    assert.equal(fs.statSync(file).size, active.bytes, "close cuts the room");
    assert.ok(allocatedBytes(file) < active.bytes + 64 * 1024, "and frees its blocks");
  } finally {
    removeDir(dir);
  }
});

test("an append over a zero write still in flight waits for it: the zeros never land on the data", async () => {
  const dir = makeTempDir("ess-room-");
  try {
    const gate = fillGate();
    const engine = await openLogEngine({ dataDir: dir, faults: gate.faults, logger: captureLogger().logger });
    await appendOne(engine, "a");
    assert.equal(gate.holds(), 1, "the first zero chunk is held, right after the first append");
    let second = false;
    const pending = engine
      .append({ tenant_id: "t", stream_id: "b", events: [event(7)], expected_revision: "any" })
      .then(() => (second = true));
    await sleep(100);
    assert.equal(second, false, "the append waits for the zeros below it");
    gate.release();
    await pending;
    const all = await engine.readAll({ tenant_id: "t", from_position: 0, limit: 10 });
    assert.deepEqual(
      all.events.map((e) => e.stream_id),
      ["a", "b"],
    );
    assert.equal((await engine.verify()).ok, true, "no zeros over the records");
    await engine.close();
    const again = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
    assert.equal((await again.readAll({ tenant_id: "t", from_position: 0, limit: 10 })).events.length, 2);
    assert.equal((await again.verify()).ok, true);
    await again.close();
  } finally {
    removeDir(dir);
  }
});

test("a segment sealed while a zero write is held ends exactly at its data", async () => {
  const dir = makeTempDir("ess-room-");
  try {
    const segmentBytesMax = 64 * 1024;
    const gate = fillGate();
    const engine = await openLogEngine({
      dataDir: dir,
      segmentBytesMax,
      faults: gate.faults,
      logger: captureLogger().logger,
    });
    const big = (): EventToAppend => event(1, { data: JSON.stringify({ pad: "x".repeat(40 * 1024) }) });
    await engine.append({ tenant_id: "t", stream_id: "a", events: [big()], expected_revision: "any" });
    assert.equal(gate.holds(), 1, "the zeros after the first append are held");
    // Does not fit the rest of the segment: the writer seals it, which waits for the zero write.
    const sealing = engine.append({
      tenant_id: "t",
      stream_id: "b",
      events: [big()],
      expected_revision: "any",
    });
    await sleep(100);
    gate.release();
    await sealing;
    const segments = (await engine.status()).segments!;
    assert.equal(segments.length, 2, "the first segment was sealed");
    const first = segments[0]!;
    assert.equal(fs.statSync(path.join(dir, first.name)).size, first.bytes, "no zeros after the cut");
    await sleep(50);
    assert.equal(fs.statSync(path.join(dir, first.name)).size, first.bytes, "nor later");
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("closing while a zero write is held waits for it, and the file ends at its data", async () => {
  const dir = makeTempDir("ess-room-");
  try {
    const gate = fillGate();
    const engine = await openLogEngine({ dataDir: dir, faults: gate.faults, logger: captureLogger().logger });
    await appendOne(engine, "a");
    assert.equal(gate.holds(), 1);
    const active = (await engine.status()).segments!.at(-1)!;
    let closed = false;
    const closing = engine.close().then(() => (closed = true));
    await sleep(100);
    assert.equal(closed, false, "close waits for the zero write in flight");
    gate.release();
    await closing;
    const file = path.join(dir, active.name);
    assert.equal(fs.statSync(file).size, active.bytes, "the room is cut");
    await sleep(50);
    assert.equal(fs.statSync(file).size, active.bytes, "and stays cut");
  } finally {
    removeDir(dir);
  }
});

for (const step of ["write", "fsync"] as const) {
  test(`a failing zero ${step} (EIO) stops the filling once, and appends go on`, async () => {
    const dir = makeTempDir("ess-room-");
    try {
      let failures = 0;
      const faults: LogFaults = {
        fill: (ctx) => {
          if (ctx.step !== step) return null;
          failures++;
          return errno("EIO");
        },
      };
      const captured = captureLogger();
      const engine = await openLogEngine({ dataDir: dir, faults, logger: captured.logger });
      await Promise.all(Array.from({ length: 40 }, (_, i) => appendOne(engine, `s-${i % 4}`)));
      for (let i = 0; i < 20; i++) await appendOne(engine, "s-0");
      assert.equal(failures, 1, "the filler stopped at its first failure");
      const warned = captured.lines.filter((l) => l.msg.startsWith("stopped writing zeros"));
      assert.equal(warned.length, 1, "said once");
      assert.match(String(warned[0]!.fields.error), /EIO/);
      assert.equal(engine.isWritable(), true);
      assert.equal(
        (await engine.readAll({ tenant_id: "t", from_position: 0, limit: 100 })).events.length,
        60,
      );
      assert.equal((await engine.verify()).ok, true);
      await engine.close();
      const again = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
      assert.equal((await again.readAll({ tenant_id: "t", from_position: 0, limit: 100 })).events.length, 60);
      await again.close();
    } finally {
      removeDir(dir);
    }
  });
}

import assert from "node:assert/strict";
import { test } from "node:test";
import { FsyncPlacement } from "./fsync-placement.js";

/** Runs `groups` groups on a disk whose fdatasync takes `micros`; returns how many ran inline. */
function run(place: FsyncPlacement, groups: number, micros: number): number {
  let inline = 0;
  for (let i = 0; i < groups; i++) {
    if (place.inline()) {
      inline++;
      place.timed(micros);
    }
  }
  return inline;
}

test("a fast disk syncs every group on the event loop", () => {
  const place = new FsyncPlacement(1000);
  assert.equal(run(place, 500, 200), 500);
});

test("a slow disk moves the syncs to the thread pool, timing one group in every probeEvery", () => {
  const place = new FsyncPlacement(1000, 32);
  // The average passes 1 ms within a few slow syncs; from then on only the probes run inline.
  const inline = run(place, 3200, 8000);
  assert.ok(inline >= 100 && inline <= 110, `inline syncs: ${inline}`);
});

test("when the disk is fast again the syncs come back to the event loop", () => {
  const place = new FsyncPlacement(1000, 32);
  run(place, 1000, 8000);
  assert.equal(place.inline(), false);
  // The probes see fast syncs; after enough of them the average is under the limit again.
  run(place, 32 * 40, 100);
  assert.equal(run(place, 100, 100), 100);
});

test("one slow fdatasync among fast ones does not move the syncs off the event loop", () => {
  const place = new FsyncPlacement(1000);
  run(place, 100, 200);
  run(place, 1, 5000);
  assert.equal(run(place, 100, 200), 100);
});

/** Runs `groups` groups on a disk whose fdatasyncs take `pattern` in turn; returns how many ran inline. */
function runPattern(place: FsyncPlacement, groups: number, pattern: number[]): number {
  let inline = 0;
  let i = 0;
  for (let g = 0; g < groups; g++) {
    if (place.inline()) {
      inline++;
      place.timed(pattern[i++ % pattern.length]!);
    }
  }
  return inline;
}

test("a disk with a spike every few syncs keeps syncing on the event loop", () => {
  // As measured on the 2-vCPU VMs: most syncs 0.3-0.5 ms, one in five 2-8 ms.
  const place = new FsyncPlacement(1000);
  assert.equal(runPattern(place, 1000, [400, 350, 6000, 450, 300]), 1000);
});

test("a disk whose syncs are mostly slow moves them to the thread pool, fast ones among them or not", () => {
  const place = new FsyncPlacement(1000, 32);
  const inline = runPattern(place, 3200, [3000, 200, 4000]);
  assert.ok(inline <= 110, `inline syncs: ${inline}`);
});

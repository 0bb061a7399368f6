// The scale benchmark's probes: what it reads from the server's --trace-gc lines and from /proc,
// and the per-tenth table a reader of BENCHMARKS.md sees (changes within each tenth).
import assert from "node:assert/strict";
import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  GcLogTally,
  addGcLines,
  emptyGcTotals,
  parseMeminfo,
  parseProcStat,
  parseVmstat,
} from "../../bench/scale/probes.js";
import { TenthsRecorder, renderProbes } from "../../bench/scale/report.js";

const scavenge =
  "[9902:0x250a4d90]       94 ms: Scavenge 4.1 (4.2) -> 3.7 (5.2) MB, 7.07 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ";
const markCompact =
  "[9893:0x1ec56e70]      640 ms: Mark-Compact 68.3 (92.3) -> 53.8 (88.4) MB, 148.95 / 0.00 ms  (+ 30.3 ms in 23 steps since start of marking, biggest step 28.6 ms, walltime since start of marking 183 ms) (average mu = 1.000, current mu = 1.000) finalize incremental marking via stack guard; GC in old space requested";
const reduce =
  "[1:0x1]   900 ms: Mark-Compact (reduce) 40.0 (50.0) -> 30.5 (45.0) MB, 10.00 / 0.00 ms  (average mu = 0.9, current mu = 0.9) memory reducer; GC in old space requested";

test("--trace-gc lines are summed by kind; other log lines are skipped", () => {
  const totals = emptyGcTotals();
  addGcLines(
    totals,
    [scavenge, '{"level":"info","msg":"listening"}', markCompact, scavenge, reduce].join("\n"),
  );
  assert.equal(totals.scavenges, 2);
  assert.ok(Math.abs(totals.scavengeMs - 14.14) < 1e-9);
  assert.equal(totals.markCompacts, 2);
  assert.ok(Math.abs(totals.markCompactMs - 158.95) < 1e-9);
  assert.ok(Math.abs(totals.incrementalMs - 30.3) < 1e-9);
  assert.equal(totals.heapAfterMarkCompactMb, 30.5);
});

test("the log tally reads only what the log gained, and a line cut in two is counted once", async () => {
  const dir = await mkdtemp(join(os.tmpdir(), "ess-probes-"));
  try {
    const path = join(dir, "ess.log");
    const tally = new GcLogTally(path);
    assert.equal(tally.read().scavenges, 0, "no log yet");
    await writeFile(path, `${scavenge}\n${markCompact.slice(0, 40)}`);
    assert.equal(tally.read().scavenges, 1);
    assert.equal(tally.totals.markCompacts, 0);
    await appendFile(path, `${markCompact.slice(40)}\n${scavenge}\n`);
    const totals = tally.read();
    assert.equal(totals.scavenges, 2);
    assert.equal(totals.markCompacts, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("/proc readings: reclaim counters, page cache, machine CPU", () => {
  const vm = parseVmstat(
    "nr_free_pages 5\nallocstall_dma32 2\nallocstall_normal 3\npgsteal_kswapd 7\npgscan_kswapd 11\npgscan_direct 13\npgmajfault 17\n",
  );
  assert.deepEqual(vm, {
    pgscan_kswapd: 11,
    pgscan_direct: 13,
    pgsteal_kswapd: 7,
    pgsteal_direct: 0,
    allocstall: 5,
    pgmajfault: 17,
    workingset_refault_file: 0,
  });
  const mem = parseMeminfo(
    "MemFree:  100 kB\nBuffers: 1 kB\nCached:   2048 kB\nSwapCached: 0 kB\nDirty: 4 kB\nWriteback: 0 kB\n",
  );
  assert.deepEqual(mem, { cached: 2048 * 1024, dirty: 4096, writeback: 0, free: 102400 });
  assert.deepEqual(parseProcStat("cpu  10 1 5 100 4 2 3 7 0 0\ncpu0 1 2 3\n"), {
    busy: 21,
    idle: 104,
    steal: 7,
  });
});

test("the probe table shows each tenth's change, not the running totals", () => {
  const recorder = new TenthsRecorder(20);
  const gc = (n: number) => ({
    ...emptyGcTotals(),
    scavenges: n,
    scavengeMs: 10 * n,
    heapAfterMarkCompactMb: 30 + n,
  });
  const probe = (n: number) => ({
    gc: gc(n),
    mainThread: { user: 0.001 * n, system: 0 },
    vmstat: null,
    meminfo: null,
  });
  recorder.record(
    2,
    1,
    () => null,
    () => ({ user: 0.002, system: 0 }),
    () => probe(1),
  );
  recorder.record(
    4,
    2,
    () => null,
    () => ({ user: 0.006, system: 0 }),
    () => probe(4),
  );
  const table = renderProbes(recorder.samples);
  const rows = table.filter((line) => /^\| \d/.test(line));
  assert.equal(rows.length, 2);
  // Tenth 1: main thread 1 ms over 2 events (500 µs each), the other threads 1 ms (500); 1 scavenge of 10 ms.
  assert.match(rows[0]!, /^\| 1 \| 500\.0 \(0\.00\) \| 500\.0 \| 1, 10 \|/);
  // Tenth 2: main 3 ms over 2 events, others 1 ms; 3 scavenges of 30 ms in all.
  assert.match(rows[1]!, /^\| 2 \| 1500\.0 \(0\.00\) \| 500\.0 \| 3, 30 \|/);
  assert.deepEqual(renderProbes([]), [], "no probes, no table");
});

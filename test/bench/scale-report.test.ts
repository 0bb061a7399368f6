// The scale benchmark's figures a reader of BENCHMARKS.md relies on: each tenth is marked when the
// load first reaches it, the rate of a tenth is its own events over its own time, and a rerun
// replaces only the generated block of its own section.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  TenthsRecorder,
  cpuMicrosPerEventPerTenth,
  ratesPerTenth,
  renderScale,
  scaleSection,
  writeScaleSection,
  type ScaleResult,
} from "../../bench/scale/report.js";

test("a tenth is recorded once, when the acknowledged events first reach it", () => {
  const recorder = new TenthsRecorder(10_000);
  let rssReads = 0;
  const rss = (): number => {
    rssReads++;
    return 1024 * rssReads;
  };
  assert.deepEqual(recorder.record(999, 1, rss), []);
  assert.equal(rssReads, 0, "no /proc read between tenths");
  assert.deepEqual(recorder.record(1000, 2, rss), [
    {
      tenth: 1,
      events: 1000,
      seconds: 2,
      rssBytes: 1024,
      cpuSeconds: null,
      systemCpuSeconds: null,
      probe: null,
    },
  ]);
  assert.deepEqual(recorder.record(1500, 3, rss), []);
  // One acknowledgement past two tenths records both, with the same reading.
  const both = recorder.record(3200, 4, rss);
  assert.deepEqual(
    both.map((s) => [s.tenth, s.events]),
    [
      [2, 3200],
      [3, 3200],
    ],
  );
  assert.equal(rssReads, 2);
  recorder.record(10_000, 10, rss);
  assert.deepEqual(
    recorder.samples.map((s) => s.tenth),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
  assert.deepEqual(recorder.record(20_000, 11, rss), [], "nothing past the tenth tenth");
});

test("a total that ten does not divide still ends its last tenth at the total", () => {
  const recorder = new TenthsRecorder(15);
  recorder.record(14, 1, () => null);
  assert.equal(recorder.samples.length, 9);
  recorder.record(15, 2, () => null);
  assert.equal(recorder.samples.at(-1)?.tenth, 10);
});

test("each tenth's rate is its events over its own seconds", () => {
  const rates = ratesPerTenth([
    { tenth: 1, events: 1000, seconds: 2, rssBytes: null, cpuSeconds: null, systemCpuSeconds: null },
    { tenth: 2, events: 2500, seconds: 5, rssBytes: null, cpuSeconds: null, systemCpuSeconds: null },
    { tenth: 3, events: 3000, seconds: 5, rssBytes: null, cpuSeconds: null, systemCpuSeconds: null },
  ]);
  assert.deepEqual(rates.slice(0, 2), [500, 500]);
  assert.ok(Number.isNaN(rates[2]), "no time, no rate (rather than infinity)");
});

test("each tenth's server CPU per event is its own CPU time over its own events", () => {
  const recorder = new TenthsRecorder(10_000_000);
  const readings = [
    { user: 2, system: 0.5 },
    { user: 3.5, system: 2 },
  ];
  recorder.record(
    1_000_000,
    10,
    () => null,
    () => readings[0]!,
  );
  recorder.record(
    2_000_000,
    20,
    () => null,
    () => readings[1]!,
  );
  recorder.record(
    3_000_000,
    30,
    () => null,
    () => null,
  );
  assert.deepEqual(cpuMicrosPerEventPerTenth(recorder.samples.slice(0, 2)), [2.5, 3]);
  assert.deepEqual(cpuMicrosPerEventPerTenth(recorder.samples.slice(0, 2), "systemCpuSeconds"), [0.5, 1.5]);
  // A tenth whose reading is missing has no figure.
  const withGap = cpuMicrosPerEventPerTenth(recorder.samples);
  assert.deepEqual(withGap.slice(0, 2), [2.5, 3]);
  assert.ok(Number.isNaN(withGap[2]), "no reading, no figure");
});

function sampleRun(): ScaleResult {
  const tenths = Array.from({ length: 10 }, (_, i) => ({
    tenth: i + 1,
    events: (i + 1) * 100_000,
    seconds: (i + 1) * 2,
    rssBytes: (i + 1) * 100 * 1024 * 1024,
    cpuSeconds: (i + 1) * 0.5,
    systemCpuSeconds: (i + 1) * 0.1,
  }));
  return {
    startedAt: "2026-11-25T22:00:00Z",
    durationSeconds: 60,
    machine: { cpus: 2, cpuModel: "Test CPU", ramBytes: 8 * 1024 ** 3, kernel: "6.0" },
    loadAverageStart: [1, 1, 1],
    loadAverageEnd: [2, 2, 2],
    versions: { ess: "0.1.0 (abc1234)", node: "v20.0.0" },
    settings: { events: 1_000_000, batch: 1000, clients: 4, streams: 10_000, eventBytes: 200 },
    firstStartSeconds: 0.5,
    tenths,
    loadSeconds: 20,
    peakRssBytes: 1100 * 1024 * 1024,
    storage: {
      eventsTotal: 1_000_000,
      streamsTotal: 1000,
      segments: 5,
      indexMemoryBytes: 90_000_000,
      indexFileBytes: 0,
      indexFileBytesAfterStop: 80_000_000,
      logBytes: 300_000_000,
      diskBytes: 400_000_000,
    },
    restarts: [
      {
        kind: "kill -9",
        stopSeconds: 0.01,
        exit: "SIGKILL",
        healthySeconds: 1.5,
        rssBytes: 200 * 1024 * 1024,
        eventsAfter: 1_000_000,
      },
      {
        kind: "clean stop (SIGTERM)",
        stopSeconds: 0.5,
        exit: "exit 0",
        healthySeconds: 1.25,
        rssBytes: 190 * 1024 * 1024,
        eventsAfter: 1_000_000,
      },
    ],
    reads: { count: 2000, limit: 1, p50Ms: 0.8, p99Ms: 3.5, maxMs: 12 },
    rerun: "BENCH_SCALE_EVENTS=1000000 npm run bench:scale",
  };
}

test("the section names the machine and N and gives every figure the benchmark promises", () => {
  const text = renderScale(sampleRun());
  assert.match(text, /2 CPUs \(Test CPU\), 8\.0 GiB RAM/);
  assert.match(text, /node v20\.0\.0/);
  assert.match(text, /2026-11-25T22:00:00Z/);
  assert.match(text, /\*\*N = 1,000,000 events\*\*/);
  assert.match(text, /\*\*50,000 events\/s\*\* on average/);
  // Ten rows, each tenth's own rate, the server's CPU per event in it and the RSS then.
  assert.match(text, /\| 1 \| 100,000 \| 50,000 \| 5\.00 \(1\.00\) \| 2\.00 \| 100 \|/);
  assert.match(text, /\| 10 \| 1,000,000 \| 50,000 \| 5\.00 \(1\.00\) \| 20\.0 \| 1,000 \|/);
  assert.match(text, /index in memory .* \| 86 \| \*\*90\.0\*\* \|/);
  assert.match(text, /data directory on disk \(allocated\) \| 381 \| \*\*400\.0\*\* \|/);
  assert.match(text, /\| kill -9 \| 0\.01 \| SIGKILL \| \*\*1\.50\*\* \| 200 \| 1,000,000 \|/);
  assert.match(text, /\| clean stop \(SIGTERM\) \| 0\.50 \| exit 0 \| \*\*1\.25\*\* \| 190 \| 1,000,000 \|/);
  assert.match(text, /p50 0\.80 ms, p99 3\.50 ms/);
  assert.match(text, /Rerun: `BENCH_SCALE_EVENTS=1000000 npm run bench:scale`/);
});

test("a rerun replaces only the scale block; other sections and notes stay", async () => {
  const dir = await mkdtemp(join(os.tmpdir(), "ess-scale-report-"));
  try {
    const path = join(dir, "BENCHMARKS.md");
    await writeFile(path, "# Benchmarks\n\n## Storage engine\n\nengine numbers\n");
    writeScaleSection(path, "first run");
    const withNotes = `${await readFile(path, "utf8")}\nnotes by hand\n\n## Later\n\nlater\n`;
    assert.ok(
      withNotes.includes(
        `${scaleSection.heading}\n\n${scaleSection.beginMarker}\n\nfirst run\n\n${scaleSection.endMarker}`,
      ),
    );
    await writeFile(path, withNotes);
    writeScaleSection(path, "second run");
    assert.equal(await readFile(path, "utf8"), withNotes.replace("first run", "second run"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

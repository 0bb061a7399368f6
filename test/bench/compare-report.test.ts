// The comparison benchmark's own guarantees that a reader of BENCHMARKS.md relies on: the events
// are the size the table says, and a rerun replaces only its own block of its own section.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { CellResult } from "../../bench/compare/driver.js";
import {
  beginMarker,
  endMarker,
  renderGenerated,
  sectionHeading,
  writeBenchmarksSection,
  type RowResult,
  type RunResult,
} from "../../bench/compare/report.js";
import { LatencyRecorder, eventBytes, makeEventJson } from "../../bench/compare/workload.js";

test("every benchmark event is exactly 200 bytes of valid JSON", () => {
  for (const sequence of [0, 9, 10, 12345, 9_999_999, 123_456_789]) {
    const json = makeEventJson(sequence);
    assert.equal(Buffer.byteLength(json), eventBytes);
    assert.equal(typeof JSON.parse(json), "object");
    // The text JSON.stringify writes for the event's object, padded to eventBytes with its note.
    const base = {
      order_id: `o-${sequence}`,
      customer_id: `c-${sequence % 9973}`,
      amount_cents: (sequence * 7919) % 100000,
      currency: "EUR",
      placed_at: "2026-01-01T00:00:00.000Z",
      note: "",
    };
    base.note = "x".repeat(eventBytes - JSON.stringify(base).length);
    assert.equal(json, JSON.stringify(base));
  }
});

test("percentiles come from the recorded latencies in milliseconds", () => {
  const recorder = new LatencyRecorder(1000);
  for (let i = 1; i <= 100; i++) recorder.record(i * 1000);
  assert.deepEqual(recorder.percentilesMs([50, 99, 100]), [50, 99, 100]);
});

test("writing the comparison leaves every other section and the hand-written notes alone", async () => {
  const dir = await mkdtemp(join(os.tmpdir(), "ess-compare-report-"));
  try {
    const path = join(dir, "BENCHMARKS.md");
    await writeFile(path, "# Benchmarks\n\n## Storage engine\n\nengine numbers\n");
    writeBenchmarksSection(path, "first table");
    const once = await readFile(path, "utf8");
    assert.match(once, /## Storage engine\n\nengine numbers\n/);
    assert.ok(once.includes(`${sectionHeading}\n\n${beginMarker}\n\nfirst table\n\n${endMarker}`));

    const withNotes = `${once}\n### Profile notes\n\nkept\n\n## Later section\n\nlater\n`;
    await writeFile(path, withNotes);
    writeBenchmarksSection(path, "second table");
    const twice = await readFile(path, "utf8");
    assert.equal(twice, withNotes.replace("first table", "second table"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a section written by hand gets the generated block under its heading", async () => {
  const dir = await mkdtemp(join(os.tmpdir(), "ess-compare-report-"));
  try {
    const path = join(dir, "BENCHMARKS.md");
    await writeFile(path, `# Benchmarks\n\n${sectionHeading}\n\nnotes\n`);
    writeBenchmarksSection(path, "table");
    const text = await readFile(path, "utf8");
    assert.ok(text.indexOf(beginMarker) < text.indexOf("notes"));
    assert.equal(text.split(sectionHeading).length, 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

function cell(kind: CellResult["kind"], concurrency: number, opsPerSecond: number, p50Ms = 1): CellResult {
  return {
    kind,
    concurrency,
    ops: opsPerSecond * 5,
    opsTotal: opsPerSecond * 6,
    seconds: 5,
    opsPerSecond,
    p50Ms,
    p99Ms: p50Ms * 4,
    driverCpuPercent: 50,
  };
}

function row(id: string, appendC1: number, read: number, extra: Partial<RowResult> = {}): RowResult {
  return {
    id,
    label: id === "ess-grpc" ? "ess (gRPC)" : "PostgreSQL",
    durable: true,
    durability: "fsync before ack",
    status: "ok",
    cells: [cell("append", 1, appendC1), cell("read", 16, read)],
    diskBytes: 1000,
    eventsStored: 10,
    ...extra,
  };
}

function run(rounds: RowResult[][]): RunResult {
  return {
    startedAt: "2026-11-23T00:00:00Z",
    durationSeconds: 60,
    machine: { cpus: 2, cpuModel: "test CPU", ramBytes: 2 ** 30, kernel: "6.0" },
    loadAverageStart: [0, 0, 0],
    loadAverageEnd: [0, 0, 0],
    versions: { ess: "test" },
    settings: {
      rounds: rounds.length,
      seconds: 5,
      warmupSeconds: 1,
      readStreams: 10,
      appendConcurrency: [1],
    },
    rounds,
    rerun: "npm run bench:compare",
  };
}

test("with several rounds, each cell is the median and each ratio is taken within a round", () => {
  // Round by round ess/PostgreSQL: appends 1.2×, 0.9×, 1.5×; reads 2×, 1.25×, 1.5×. The medians
  // of the cells (1,100 against 1,000) would give 1.10× instead of the median ratio 1.20×.
  const text = renderGenerated(
    run([
      [row("ess-grpc", 1200, 400), row("postgres", 1000, 200)],
      [row("ess-grpc", 900, 500), row("postgres", 1000, 400)],
      [row("ess-grpc", 1100, 600), row("postgres", 733.33, 400)],
    ]),
  );
  assert.match(
    text,
    /\| ess \(gRPC\) \| fsync before ack \| \*\*1,100\*\* \(1\.00 \/ 4\.00\) \| \*\*500\*\*/,
  );
  assert.match(text, /3 rounds/);
  // Appends: behind in one round, so not bold; reads: ahead in every round, so bold.
  assert.ok(
    text.includes("| ess (gRPC) / PostgreSQL | 1.20× (0.90×–1.50×) | **1.50×** (1.25×–2.00×) |"),
    text,
  );
});

test("a row that fails in any round is reported as failed, naming the round", () => {
  const failed = row("ess-grpc", 0, 0, { status: "failed", reason: "driver exited", cells: [] });
  const text = renderGenerated(
    run([
      [row("ess-grpc", 1200, 400), row("postgres", 1000, 200)],
      [failed, row("postgres", 1000, 400)],
    ]),
  );
  assert.match(text, /\| ess \(gRPC\) \| fsync before ack \| failed: round 2: driver exited \|/);
  assert.ok(!text.includes("ess (gRPC) / PostgreSQL"), "no ratio for a row that did not run in every round");
});

// The comparison benchmark's own guarantees that a reader of BENCHMARKS.md relies on: the events
// are the size the table says, and a rerun replaces only its own block of its own section.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  beginMarker,
  endMarker,
  sectionHeading,
  writeBenchmarksSection,
} from "../../bench/compare/report.js";
import { LatencyRecorder, eventBytes, makeEventJson } from "../../bench/compare/workload.js";

test("every benchmark event is exactly 200 bytes of valid JSON", () => {
  for (const sequence of [0, 9, 10, 12345, 9_999_999, 123_456_789]) {
    const json = makeEventJson(sequence);
    assert.equal(Buffer.byteLength(json), eventBytes);
    assert.equal(typeof JSON.parse(json), "object");
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

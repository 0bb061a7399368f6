// The compare and scale benchmarks' disk column: allocated bytes of a data directory, where the
// zeroed room a running ess log engine keeps past its active segment is not counted as data.
import assert from "node:assert/strict";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { diskBytes, essSegmentFile } from "../../bench/compare/processes.js";

test("a segment file's trailing zeros are room, not data; other files count whole", async () => {
  const dir = await mkdtemp(join(os.tmpdir(), "ess-disk-bytes-"));
  try {
    const data = Buffer.alloc(10_000, 7);
    const room = Buffer.alloc(1024 * 1024);
    await writeFile(join(dir, "seg-0000000001.log"), Buffer.concat([data, room]));
    await writeFile(join(dir, "other.bin"), Buffer.concat([data, room]));
    const other = (await stat(join(dir, "other.bin"))).blocks * 512;
    const segment = (await stat(join(dir, "seg-0000000001.log"))).blocks * 512;
    assert.ok(segment > 1024 * 1024, "the zeros were written as real blocks");
    // The segment counts up to its data rounded to a 4 KiB block: 12,288 bytes.
    assert.equal(diskBytes(dir, essSegmentFile), 12_288 + other);
    assert.equal(diskBytes(dir), segment + other);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("only ess segment names are taken for segment files", () => {
  assert.ok(essSegmentFile("seg-0000000042.log"));
  assert.ok(!essSegmentFile("seg-0000000042.idx"));
  assert.ok(!essSegmentFile("checkpoint.log"));
});

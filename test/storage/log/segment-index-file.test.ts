import { test } from "node:test";
import assert from "node:assert/strict";
import { sortedIds } from "../../../src/storage/log/segment-index-file.js";

test("an index file's id column sorts by fingerprint then position, packed or not (segments of 2^21 positions or more)", () => {
  const base = 1_000_000_000;
  const n = 5000;
  const fingerprints = new Uint32Array(n);
  const positions = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    // Many equal fingerprints (ties broken by position), and the extremes of the range.
    fingerprints[i] = i % 7 === 0 ? 0xffffffff : i % 5 === 0 ? 1 : (Math.imul(i, 0x9e3779b1) >>> 0) % 1000;
    positions[i] = base + ((i * 7919) % n);
  }
  const expected = Array.from({ length: n }, (_, i) => [fingerprints[i]!, positions[i]!] as const).sort(
    (a, b) => a[0] - b[0] || a[1] - b[1],
  );
  for (const span of [n, 2 ** 21]) {
    const got = sortedIds({ fingerprints, positions }, base, span);
    assert.equal(got.length, n);
    assert.deepEqual(
      Array.from({ length: n }, (_, i) => [got.fingerprints[i]!, got.positions[i]!]),
      expected.map(([f, p]) => [f, p]),
      `span ${span}`,
    );
  }
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { eventFingerprint, FingerprintSet } from "../../../src/storage/log/fingerprint-set.js";

test("the fingerprint set never forgets a fingerprint as it grows, in any order of adding, and adds each once", () => {
  const values: number[] = [];
  for (let i = 0; i < 200_000; i++) values.push(eventFingerprint("t", `s-${i % 97}`, `id-${i}`));
  for (const order of ["as made", "ascending"] as const) {
    const set = new FingerprintSet();
    const input = order === "ascending" ? [...values].sort((a, b) => a - b) : values;
    for (const v of input) set.add(v);
    for (const v of input) set.add(v);
    assert.equal(set.size, new Set(values).size, `${order}: each fingerprint once`);
    for (const v of values) assert.ok(set.has(v), `${order}: ${v} is there`);
    let strangers = 0;
    for (let i = 0; i < 10_000; i++) if (set.has(eventFingerprint("t", "other", `x-${i}`))) strangers++;
    // 200k of 2^32 values: about 0.005% of strangers collide.
    assert.ok(strangers < 20, `${order}: ${strangers} strangers found`);
  }
});

test("an event's fingerprint depends on its tenant, stream and id, and is never 0", () => {
  const a = eventFingerprint("t", "s", "00000000-0000-4000-8000-000000000001");
  assert.notEqual(a, eventFingerprint("u", "s", "00000000-0000-4000-8000-000000000001"));
  assert.notEqual(a, eventFingerprint("t", "s2", "00000000-0000-4000-8000-000000000001"));
  assert.notEqual(a, eventFingerprint("t", "s", "00000000-0000-4000-8000-000000000002"));
  assert.notEqual(eventFingerprint("ts", "", "x"), eventFingerprint("t", "s", "x"));
  for (let i = 0; i < 10_000; i++) assert.notEqual(eventFingerprint("t", "s", String(i)), 0);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { FingerprintSet } from "../../../src/storage/log/fingerprint-set.js";
import { fingerprint, lowLaneCollisions } from "./helpers.js";

/** The set's shard of a fingerprint: the top 10 bits of its high lane (fingerprint-set.ts). */
function shardOf(high: number): number {
  return high >>> 22;
}

test("the fingerprint set never forgets a fingerprint as it grows, in any order of adding, and adds each once", () => {
  const values: [number, number][] = [];
  for (let i = 0; i < 200_000; i++) values.push(fingerprint("t", `s-${i % 97}`, `id-${i}`));
  for (const order of ["as made", "ascending by the low lane"] as const) {
    const set = new FingerprintSet();
    const input = order === "as made" ? values : [...values].sort((a, b) => a[0] - b[0]);
    for (const [low, high] of input) set.add(low, high);
    for (const [low, high] of input) set.add(low, high);
    const distinct = new Set(values.map(([low, high]) => `${shardOf(high)}:${low}`)).size;
    assert.equal(set.size, distinct, `${order}: each fingerprint once`);
    for (const [low, high] of values) assert.ok(set.has(low, high), `${order}: ${low}/${high} is there`);
    let strangers = 0;
    for (let i = 0; i < 100_000; i++) if (set.has(...fingerprint("t", "other", `x-${i}`))) strangers++;
    // 200k of 2^42 values: a stranger is there with probability 5e-8.
    assert.ok(strangers <= 1, `${order}: ${strangers} strangers found`);
  }
});

test("an event's fingerprint depends on its tenant, stream and id, and its low lane is never 0", () => {
  const a = fingerprint("t", "s", "00000000-0000-4000-8000-000000000001");
  assert.notDeepEqual(a, fingerprint("u", "s", "00000000-0000-4000-8000-000000000001"));
  assert.notDeepEqual(a, fingerprint("t", "s2", "00000000-0000-4000-8000-000000000001"));
  assert.notDeepEqual(a, fingerprint("t", "s", "00000000-0000-4000-8000-000000000002"));
  assert.notDeepEqual(fingerprint("ts", "", "x"), fingerprint("t", "s", "x"));
  assert.deepEqual(a, fingerprint("t", "s", "00000000-0000-4000-8000-000000000001"), "the same each time");
  for (let i = 0; i < 10_000; i++) assert.notEqual(fingerprint("t", "s", String(i))[0], 0);
});

test("ids whose low lanes collide differ in the high lane: the two lanes are independent", () => {
  const pairs = lowLaneCollisions("acme", "order-1", 300_000);
  assert.ok(pairs.length >= 3, `found ${pairs.length} collisions of the low lane`);
  for (const [a, b] of pairs) {
    const [lowA, highA] = fingerprint("acme", "order-1", a);
    const [lowB, highB] = fingerprint("acme", "order-1", b);
    assert.equal(lowA, lowB);
    assert.notEqual(highA, highB, `${a} and ${b} differ in the high lane`);
  }
});

test("fingerprints that share the stored lane are told apart by the shard their high lane picks", () => {
  const set = new FingerprintSet();
  const low = 0x12345678;
  const high = 0xabc00000;
  set.add(low, high);
  assert.equal(set.has(low, high), true);
  // Another shard (the high lane's top 10 bits): not there.
  assert.equal(set.has(low, high ^ 0x80000000), false);
  assert.equal(set.has(low, high ^ 0x00400000), false);
  // The same shard, the high lane differing below its top bits: the set cannot tell (a chance
  // hit, one in 2^42 for a random id), the index files' high lane column can.
  assert.equal(set.has(low, high ^ 0x00200000), true);
  // Both added: both there, counted twice.
  set.add(low, high ^ 0x80000000);
  assert.equal(set.has(low, high ^ 0x80000000), true);
  assert.equal(set.size, 2);
  // Real ids of one stream whose low lanes collide, added one at a time.
  for (const [a, b] of lowLaneCollisions("acme", "order-1", 300_000)) {
    const fa = fingerprint("acme", "order-1", a);
    const fb = fingerprint("acme", "order-1", b);
    if (shardOf(fa[1]) === shardOf(fb[1])) continue;
    const ids = new FingerprintSet();
    ids.add(...fa);
    assert.equal(ids.has(...fb), false, `${b} is not taken for ${a}`);
    ids.add(...fb);
    assert.equal(ids.has(...fa) && ids.has(...fb), true);
  }
});

test("the shards double at different sizes: no stretch of appends pays for the whole set's growth", () => {
  // The shards fill at the same pace; with one load limit for all, they would all double within
  // the same stretch of appends (at 50 million events, a tenth of the load 24% slower).
  const set = new FingerprintSet();
  let x = 0x2545f491;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  const step = 20_000;
  let largestJump = 0;
  for (let added = 0; added < 2_000_000; added += step) {
    const before = set.byteLength;
    for (let i = 0; i < step; i++) set.add(next() || 1, next());
    if (added >= 500_000) largestJump = Math.max(largestJump, (set.byteLength - before) / before);
  }
  // Spread over a doubling (hundreds of thousands of appends here), one step of 20,000 grows the
  // set by a few percent; all shards at once would grow it by tens of percent.
  assert.ok(
    largestJump < 0.1,
    `one step of ${step} appends grew the set by ${(largestJump * 100).toFixed(1)}%`,
  );
  const bytesPerFingerprint = set.byteLength / set.size;
  assert.ok(
    bytesPerFingerprint > 5 && bytesPerFingerprint < 12.5,
    `${bytesPerFingerprint} bytes per fingerprint`,
  );
  x = 0x2545f491;
  for (let i = 0; i < 1000; i++) assert.ok(set.has(next() || 1, next()), "every fingerprint added is there");
});

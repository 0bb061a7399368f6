import assert from "node:assert/strict";
import { test } from "node:test";
import { groupTake } from "./writer-groups.js";

const ops = (count: number, bytes = 300): { bytes: number }[] =>
  Array.from({ length: count }, () => ({ bytes }));

test("a busy writer takes everything queued, up to the byte limit", () => {
  assert.equal(groupTake(ops(64), 1 << 20, false, 16), 64);
  assert.equal(groupTake(ops(10, 100), 350, false, 16), 3);
});

test("an op larger than the byte limit is still taken alone", () => {
  assert.equal(groupTake(ops(3, 500), 350, false, 16), 1);
});

test("an idle writer cuts a group of splitMin or more in half, rounding up", () => {
  assert.equal(groupTake(ops(64), 1 << 20, true, 16), 32);
  assert.equal(groupTake(ops(17), 1 << 20, true, 16), 9);
  assert.equal(groupTake(ops(16), 1 << 20, true, 16), 8);
  assert.equal(groupTake(ops(15), 1 << 20, true, 16), 15);
});

test("the cut applies to what the byte limit lets in", () => {
  assert.equal(groupTake(ops(40, 100), 2000, true, 16), 10);
});

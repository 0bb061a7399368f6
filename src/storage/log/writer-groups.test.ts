import assert from "node:assert/strict";
import { test } from "node:test";
import { groupTake } from "./writer-groups.js";

const ops = (count: number, bytes = 300): { bytes: number }[] =>
  Array.from({ length: count }, () => ({ bytes }));

test("the writer takes everything queued, up to the byte limit", () => {
  assert.deepEqual(groupTake(ops(64), 1 << 20), { count: 64, bytes: 64 * 300 });
  assert.deepEqual(groupTake(ops(10, 100), 350), { count: 3, bytes: 300 });
});

test("an op larger than the byte limit is still taken alone", () => {
  assert.deepEqual(groupTake(ops(3, 500), 350), { count: 1, bytes: 500 });
});

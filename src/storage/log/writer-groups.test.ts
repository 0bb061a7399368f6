import assert from "node:assert/strict";
import { test } from "node:test";
import { groupTake } from "./writer-groups.js";

const ops = (count: number, bytes = 300): { bytes: number }[] =>
  Array.from({ length: count }, () => ({ bytes }));

test("the writer takes everything queued, up to the byte limit", () => {
  assert.equal(groupTake(ops(64), 1 << 20), 64);
  assert.equal(groupTake(ops(10, 100), 350), 3);
});

test("an op larger than the byte limit is still taken alone", () => {
  assert.equal(groupTake(ops(3, 500), 350), 1);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { BurstQueue } from "./burst-queue.js";

/** Resolves after the immediates already scheduled have run: one turn of the event loop later. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Defers `count` tasks that record their number, and returns what ran so far at each turn. */
async function turnsOf(queue: BurstQueue, count: number): Promise<number[][]> {
  const ran: number[] = [];
  for (let i = 0; i < count; i++) queue.defer(() => ran.push(i));
  assert.deepEqual(ran, [], "nothing runs before the end of the turn");
  const turns: number[][] = [];
  let seen = 0;
  while (queue.length > 0 || seen < ran.length) {
    await nextTurn();
    turns.push(ran.slice(seen));
    seen = ran.length;
  }
  return turns;
}

test("a burst below splitMin runs whole at the end of the turn", async () => {
  const turns = await turnsOf(new BurstQueue(8), 7);
  assert.deepEqual(turns, [[0, 1, 2, 3, 4, 5, 6]]);
});

test("a burst of splitMin or more runs in halves, one turn apart, in order", async () => {
  const turns = await turnsOf(new BurstQueue(8), 20);
  // 20 waiting: 10 run; 10 left, still 8 or more: 5 run; 5 left: they all run.
  assert.deepEqual(
    turns.map((t) => t.length),
    [10, 5, 5],
  );
  assert.deepEqual(
    turns.flat(),
    Array.from({ length: 20 }, (_, i) => i),
  );
});

test("tasks deferred while others wait run after them", async () => {
  const queue = new BurstQueue(4);
  const ran: string[] = [];
  for (const name of ["a", "b", "c", "d"]) queue.defer(() => ran.push(name));
  await nextTurn();
  assert.deepEqual(ran, ["a", "b"]);
  queue.defer(() => ran.push("e"));
  await nextTurn();
  // c, d and e wait: 3 is below splitMin, so all of them run, c and d first.
  assert.deepEqual(ran, ["a", "b", "c", "d", "e"]);
  assert.equal(queue.length, 0);
});

test("a queue that never splits runs every deferred task at the end of the same turn", async () => {
  const turns = await turnsOf(new BurstQueue(Number.POSITIVE_INFINITY), 1000);
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.length, 1000);
});

test("a queue that splits from 2 halves what waits each turn, down to one", async () => {
  const turns = await turnsOf(new BurstQueue(2), 16);
  assert.deepEqual(
    turns.map((t) => t.length),
    [8, 4, 2, 1, 1],
  );
});

test("a backlog is gone in about log2 of its size turns", async () => {
  // Each turn runs at least half of what waits: no rate is capped by a count per turn.
  const turns = await turnsOf(new BurstQueue(2), 1000);
  assert.ok(turns.length <= 11, `1000 tasks took ${turns.length} turns`);
  assert.equal(turns.flat().length, 1000);
});

test("a split below 2 is refused", () => {
  assert.throws(() => new BurstQueue(1), RangeError);
});

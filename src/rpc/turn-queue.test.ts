import { test } from "node:test";
import assert from "node:assert/strict";
import { TurnQueue } from "./turn-queue.js";

/** Resolves after the immediates already scheduled have run: one turn of the event loop later. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test("the first task of a turn runs at once; the rest run one per later turn, in order", async () => {
  const queue = new TurnQueue();
  const ran: number[] = [];
  for (let i = 1; i <= 4; i++) queue.run(() => ran.push(i));
  assert.deepEqual(ran, [1]);
  assert.equal(queue.length, 3);
  for (let turn = 2; turn <= 4; turn++) {
    await nextTurn();
    assert.deepEqual(
      ran,
      Array.from({ length: turn }, (_, i) => i + 1),
    );
  }
  assert.equal(queue.length, 0);
});

test("tasks that arrive while others wait go behind them; an idle queue runs the next one at once", async () => {
  const queue = new TurnQueue();
  const ran: string[] = [];
  queue.run(() => ran.push("a"));
  queue.run(() => ran.push("b"));
  queue.run(() => ran.push("c"));
  await nextTurn();
  queue.run(() => ran.push("d"));
  assert.deepEqual(ran, ["a", "b"], "d waits behind c");
  await nextTurn();
  await nextTurn();
  assert.deepEqual(ran, ["a", "b", "c", "d"]);
  // Drained: after a turn with nothing to do, a task runs at once again.
  await nextTurn();
  await nextTurn();
  queue.run(() => ran.push("e"));
  assert.deepEqual(ran, ["a", "b", "c", "d", "e"]);
});

test("a long queue drains completely, in order", async () => {
  const queue = new TurnQueue();
  const ran: number[] = [];
  const count = 3000;
  for (let i = 0; i < count; i++) queue.run(() => ran.push(i));
  while (queue.length > 0) await nextTurn();
  assert.deepEqual(
    ran,
    Array.from({ length: count }, (_, i) => i),
  );
});

// The expiry timer used for token expiry by sessions and subscriptions: it fires only once its
// clock reaches the moment (a timer that wakes early, as one past Node's limit does, re-arms),
// and arming again or clearing replaces the earlier moment.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ExpiryTimer } from "./expiry-timer.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a timer that fires before its clock reaches the moment re-arms, and fires once it has", async () => {
  let clock = 1_000_000;
  const timer = new ExpiryTimer(() => clock);
  let fired = 0;
  timer.arm(clock + 20, () => fired++);
  // The real wait passes, the timer's clock does not: it must not fire.
  await sleep(60);
  assert.equal(fired, 0);
  clock += 20;
  await sleep(60);
  assert.equal(fired, 1);
  await sleep(40);
  assert.equal(fired, 1);
});

test("arming again replaces the earlier moment; clear() stops it", async () => {
  let clock = 0;
  const timer = new ExpiryTimer(() => clock);
  const fired: string[] = [];
  timer.arm(10, () => fired.push("first"));
  timer.arm(10, () => fired.push("second"));
  clock = 10;
  await sleep(50);
  assert.deepEqual(fired, ["second"]);
  timer.arm(20, () => fired.push("cleared"));
  timer.clear();
  clock = 20;
  await sleep(50);
  assert.deepEqual(fired, ["second"]);
});

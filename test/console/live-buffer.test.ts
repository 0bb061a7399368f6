import { test } from "node:test";
import assert from "node:assert/strict";
import { LiveBuffer } from "../../console/src/lib/live-buffer.js";

test("a running tail keeps the newest rows, at most its bound", () => {
  const buffer = new LiveBuffer<number>(3);
  for (let i = 1; i <= 5; i++) buffer.push(i);
  assert.deepEqual(buffer.rows, [3, 4, 5]);
  assert.equal(buffer.dropped, 2);
  assert.equal(buffer.newCount, 0);
});

test("while paused the rows stay as they are and arrivals are counted", () => {
  const buffer = new LiveBuffer<number>(10);
  buffer.push(1);
  assert.equal(buffer.pause("selection"), true);
  buffer.push(2);
  buffer.push(3);
  assert.deepEqual(buffer.rows, [1]);
  assert.equal(buffer.newCount, 2);
  assert.equal(buffer.resume("selection"), true);
  assert.deepEqual(buffer.rows, [1, 2, 3]);
  assert.equal(buffer.newCount, 0);
});

test("the tail resumes only when every reason to pause is gone", () => {
  const buffer = new LiveBuffer<number>(10);
  buffer.pause("scrolled");
  assert.equal(buffer.pause("event-open"), false);
  buffer.push(1);
  assert.equal(buffer.resume("scrolled"), false);
  assert.deepEqual(buffer.rows, []);
  assert.deepEqual(buffer.pauseReasons, ["event-open"]);
  assert.equal(buffer.resume("event-open"), true);
  assert.deepEqual(buffer.rows, [1]);
  assert.equal(buffer.resume("operator"), false);
});

test("waiting events are bounded too, and all are counted", () => {
  const buffer = new LiveBuffer<number>(3);
  buffer.push(0);
  buffer.pause("operator");
  for (let i = 1; i <= 10; i++) buffer.push(i);
  assert.equal(buffer.newCount, 10);
  buffer.resumeAll();
  assert.deepEqual(buffer.rows, [8, 9, 10]);
  assert.equal(buffer.paused, false);
});

test("the bound must be a positive whole number", () => {
  assert.throws(() => new LiveBuffer(0), RangeError);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { PendingRequests } from "./pending-requests.js";

test("entries come back by id in any order, once, and unknown ids give nothing", () => {
  const table = new PendingRequests<{ id: number; name: string }>();
  for (let id = 1; id <= 500; id++) table.add({ id, name: `r${id}` });
  assert.equal(table.size, 500);
  // Answers in another order than the requests, some ids asked twice or never sent.
  for (let id = 500; id >= 1; id -= 2) assert.equal(table.take(id)?.name, `r${id}`);
  assert.equal(table.take(500), undefined);
  assert.equal(table.take(501), undefined);
  assert.equal(table.take(0), undefined);
  assert.equal(table.size, 250);
  for (let id = 1; id < 500; id += 2) assert.equal(table.take(id)?.name, `r${id}`);
  assert.equal(table.size, 0);
});

test("an old id still waiting while far newer ones come and go keeps its entry", () => {
  const table = new PendingRequests<{ id: number }>();
  table.add({ id: 1 });
  for (let id = 2; id < 20_000; id++) {
    table.add({ id });
    assert.equal(table.take(id)?.id, id);
  }
  assert.equal(table.size, 1);
  assert.equal(table.take(1)?.id, 1);
});

test("takeAll returns every waiting entry and empties the table", () => {
  const table = new PendingRequests<{ id: number }>();
  for (const id of [3, 70, 135, 9]) table.add({ id });
  assert.deepEqual(
    table
      .takeAll()
      .map((e) => e.id)
      .sort((a, b) => a - b),
    [3, 9, 70, 135],
  );
  assert.equal(table.size, 0);
  assert.equal(table.take(70), undefined);
});

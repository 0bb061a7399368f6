import { test } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { ConnectionReadBudget, ConnectionReadBudgets, type ReadGrant } from "./connection-read-budget.js";

/** What the budget uses of an HTTP/2 stream: `closed`, `destroyed` and its 'close' event. */
class FakeStream extends EventEmitter {
  closed = false;
  destroyed = false;

  close(): void {
    this.closed = true;
    this.emit("close");
  }
}

function fakeStream(): FakeStream {
  return new FakeStream();
}

/** The end of the current event-loop turn, when waiting reads that got room start. */
function endOfTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A budget of 10 bytes reserving 4 per read, and the grants it gave, by read number. */
function budgetWithReads(reads: number) {
  const budget = new ConnectionReadBudget(10, 4);
  const streams = Array.from({ length: reads }, fakeStream);
  const grants = new Map<number, ReadGrant>();
  streams.forEach((stream, i) => budget.admit(stream, (grant) => grants.set(i, grant)));
  return { budget, streams, grants };
}

test("reads are admitted while the connection holds less than its budget, each reserving a page", () => {
  const { budget, grants } = budgetWithReads(5);
  // 0, 4, 8 bytes held when reads 0, 1 and 2 came: admitted; 12 when read 3 came: it waits.
  assert.deepEqual([...grants.keys()], [0, 1, 2]);
  assert.equal(budget.held, 12);
  assert.equal(budget.waitingCount, 2);
});

test("a read's reservation becomes its answer's weight, and waiting reads go in order as bytes go back", async () => {
  const { budget, streams, grants } = budgetWithReads(5);
  grants.get(0)!.settle(1); // 9 held: read 3 goes at the end of the turn (13 held)
  assert.deepEqual([...grants.keys()], [0, 1, 2]);
  await endOfTurn();
  assert.deepEqual([...grants.keys()], [0, 1, 2, 3]);
  assert.equal(budget.held, 13);
  grants.get(1)!.settle(0); // an error answer: 9 held, read 4 goes
  await endOfTurn();
  assert.deepEqual([...grants.keys()], [0, 1, 2, 3, 4]);
  assert.equal(budget.held, 13);
  for (const stream of streams) stream.close();
  assert.equal(budget.held, 0);
  assert.equal(budget.waitingCount, 0);
});

test("a stream that closes while its read waits leaves the queue and is never run", async () => {
  const { budget, streams, grants } = budgetWithReads(5);
  streams[3]!.close();
  assert.equal(budget.waitingCount, 1);
  streams[0]!.close(); // 8 held: read 4 goes, read 3 never does
  await endOfTurn();
  assert.deepEqual([...grants.keys()], [0, 1, 2, 4]);
  assert.equal(budget.held, 12);
});

test("a waiting read whose stream closes in the turn that gave it room is not run", async () => {
  // A client cancelling its calls: the RST_STREAMs of a running read and a waiting one arrive
  // together; the running one's close gives room back before the waiting one's close is heard.
  const { budget, streams, grants } = budgetWithReads(4);
  streams[0]!.close();
  streams[3]!.close();
  await endOfTurn();
  assert.deepEqual([...grants.keys()], [0, 1, 2]);
  assert.equal(budget.held, 8);
  assert.equal(budget.waitingCount, 0);
});

test("a read settled after its stream closed changes nothing", () => {
  const { budget, streams, grants } = budgetWithReads(1);
  streams[0]!.close();
  grants.get(0)!.settle(3);
  grants.get(0)!.release();
  assert.equal(budget.held, 0);
});

test("a read whose stream has closed by the time there is room is not run", () => {
  const budget = new ConnectionReadBudget(10, 4);
  const closed = fakeStream();
  closed.closed = true;
  let ran = false;
  budget.admit(closed, () => (ran = true));
  assert.equal(ran, false);
  assert.equal(budget.held, 0);
});

test("a connection's budget is shared by its holders and goes once the last lets go", () => {
  const budgets = new ConnectionReadBudgets(10, 4);
  const connection = budgets.hold("127.0.0.1:5000");
  const call = budgets.hold("127.0.0.1:5000");
  assert.equal(call, connection, "one budget per peer");
  assert.notEqual(budgets.hold("127.0.0.1:5001"), connection);
  budgets.release("127.0.0.1:5001");
  budgets.release("127.0.0.1:5000");
  assert.equal(budgets.size, 1);
  budgets.release("127.0.0.1:5000");
  assert.equal(budgets.size, 0);
  assert.notEqual(
    budgets.hold("127.0.0.1:5000"),
    connection,
    "a new connection on the same port starts afresh",
  );
});

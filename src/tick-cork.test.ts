import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { TickCork } from "./tick-cork.js";

/** A writable that records each batch it is handed (one socket write each, for a socket). */
function recorder(): { stream: Writable; batches: string[][] } {
  const batches: string[][] = [];
  const stream = new Writable({
    writev(chunks, callback) {
      batches.push(chunks.map((c) => String(c.chunk)));
      callback();
    },
    write(chunk, _encoding, callback) {
      batches.push([String(chunk)]);
      callback();
    },
  });
  return { stream, batches };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test("the writes of one tick leave as one batch; the next tick's as another", async () => {
  const { stream, batches } = recorder();
  const cork = new TickCork(stream);
  for (const part of ["a", "b", "c"]) {
    cork.hold();
    stream.write(part);
  }
  assert.deepEqual(batches, [], "nothing leaves before the tick ends");
  await nextTurn();
  for (const part of ["d", "e"]) {
    cork.hold();
    stream.write(part);
  }
  await nextTurn();
  assert.deepEqual(batches, [
    ["a", "b", "c"],
    ["d", "e"],
  ]);
});

test("without it, each write leaves on its own (what the cork is for)", async () => {
  const { stream, batches } = recorder();
  for (const part of ["a", "b", "c"]) stream.write(part);
  await nextTurn();
  assert.equal(batches[0]?.length, 1);
});

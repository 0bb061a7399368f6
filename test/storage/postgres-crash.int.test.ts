/**
 * kill -9 crash tests of the postgres engine: the same child and checks as crash.test.ts
 * (test/helpers/crash-harness.ts), on a fresh PostgreSQL database. A killed client must leave
 * every committed append whole and no uncommitted one visible.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runCrashTest } from "../helpers/crash-harness.js";
import { createTestDatabase } from "./postgres-test-database.js";

test("after kill -9 of a postgres client at random moments every acknowledged append is there and no batch is partial or written twice by a retry", async () => {
  const db = await createTestDatabase();
  try {
    const report = await runCrashTest({
      store: { engine: "postgres", url: db.url },
      rounds: 15,
      killAfterMs: [5, 300],
    });
    const midAppend = report.rounds.filter((r) => r.trigger === "first-ack" && r.acks > 0).length;
    assert.equal(midAppend, 9, "9 rounds were killed between appends");
    assert.ok(
      report.acknowledged > 100,
      `the rounds acknowledged a fair number of events (${report.acknowledged})`,
    );
    assert.ok(report.retried >= 5, `unanswered appends were sent again after kills (${report.retried})`);
    assert.ok(report.metaAcks >= 2, `retention changes and deletes were acknowledged (${report.metaAcks})`);
  } finally {
    await db.drop();
  }
});

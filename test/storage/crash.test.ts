/**
 * kill -9 crash tests of the log engine: a real child process appends (single events and
 * batches, over several streams and two tenants, with expected revisions; now and then a
 * retention change or a soft delete; appends a kill left unanswered are sent again) and is killed with
 * SIGKILL at random moments, 25 times over one data directory; after each kill the store is
 * reopened and checked (see test/helpers/crash-harness.ts). Small segments make the kills land
 * around segment rolls too.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { runCrashTest } from "../helpers/crash-harness.js";

test("after kill -9 at random moments every acknowledged append is there, no batch is partial or written twice by a retry, and revisions are gapless", async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "ess-crash-log-"));
  try {
    const report = await runCrashTest({
      store: { engine: "log", dataDir, segmentBytesMax: 64 * 1024 },
      rounds: 25,
      killAfterMs: [5, 300],
    });
    const midAppend = report.rounds.filter((r) => r.trigger === "first-ack" && r.acks > 0).length;
    assert.equal(midAppend, 15, "15 rounds were killed between appends");
    assert.ok(
      report.acknowledged > 200,
      `the rounds acknowledged a fair number of events (${report.acknowledged})`,
    );
    assert.ok(report.retried >= 5, `unanswered appends were sent again after kills (${report.retried})`);
    assert.ok(report.metaAcks >= 5, `retention changes and deletes were acknowledged (${report.metaAcks})`);
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
});

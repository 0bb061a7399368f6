// SCAVENGE_IN_PROGRESS over a real gRPC connection to a whole service (log engine on disk).
// Deterministic, not timing-dependent: the store has several sealed segments of events hidden
// by retention, so the scavenge has real work, and the log engine's test-only
// beforeScavengeSegment hook holds the real run before its second segment until the test
// releases it. While it is held, a second real run and a dry run are sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { EssError } from "../../src/errors.js";
import type { ScavengeResult } from "../../src/contract/bodies.js";
import type { LogEngineOptions } from "../../src/storage/log/log-engine.js";
import { startTestService } from "./service-harness.js";

const segmentBytesMax = 16 * 1024;
const pad = "x".repeat(200);

test("a second real scavenge while one runs is ABORTED with SCAVENGE_IN_PROGRESS, a dry run answers, and the first run completes", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let onPaused!: () => void;
  const paused = new Promise<"paused">((resolve) => (onPaused = () => resolve("paused")));
  const segmentsSeen: string[] = [];
  const engineOptions: Omit<LogEngineOptions, "dataDir"> = {
    segmentBytesMax,
    async beforeScavengeSegment(ctx) {
      segmentsSeen.push(ctx.segment);
      // Hold the run between its first and second segment: it is then certainly going.
      if (ctx.index === 1) {
        onPaused();
        await released;
      }
    },
  };
  const ts = await startTestService({}, engineOptions);
  try {
    const writer = await ts.userContext("scavenge-writer", "acme", "writer");
    // 120 events of ~300 bytes fill more than two 16 KiB segments; max_count 5 hides 115 of them.
    for (let batch = 0; batch < 6; batch++) {
      await ts.client.append(writer, {
        stream_id: "old",
        events: Array.from({ length: 20 }, (_, i) => ({
          event_type: "Old",
          data: { n: batch * 20 + i, pad },
        })),
        expected_revision: "any",
      });
    }
    await ts.client.setRetention(writer, { stream_id: "old", max_count: 5 });
    // Enough filler to seal every segment holding "old", so all 115 hidden events can go.
    for (let batch = 0; batch < 4; batch++) {
      await ts.client.append(writer, {
        stream_id: "filler",
        events: Array.from({ length: 20 }, (_, i) => ({
          event_type: "Filler",
          data: { n: batch * 20 + i, pad },
        })),
        expected_revision: "any",
      });
    }
    const kept = await ts.client.read(writer, { stream_id: "old" });
    assert.deepEqual(
      kept.events.map((e) => e.revision),
      [115, 116, 117, 118, 119],
    );

    const planned = await ts.client.scavenge(ts.admin, { dry_run: true });
    assert.equal(planned.dry_run, true);
    assert.equal(planned.events_removed, 115);
    assert.equal(planned.streams_affected, 1);
    assert.ok(
      planned.segments_rewritten >= 2,
      `needs two segments to pause between: ${planned.segments_rewritten}`,
    );
    assert.ok(planned.bytes_reclaimed > 115 * 200);
    assert.deepEqual(segmentsSeen, [], "a dry run rewrites nothing");

    const running = ts.client.scavenge(ts.admin, { confirm: true });
    // If the hook were never reached (the run finished first), fail instead of waiting forever.
    const first = await Promise.race([paused, running]);
    assert.equal(first, "paused", "the real scavenge reached its second segment and is held there");
    assert.equal(segmentsSeen.length, 2);

    // A second real run, as a raw gRPC call: the status and trailer a gRPC client sees.
    const raw = await new Promise<grpc.ServiceError | null>((resolve) =>
      ts.client.grpc.admin.Scavenge({ confirm: true }, ts.client.metadataFor(ts.admin), (error) =>
        resolve(error),
      ),
    );
    assert.ok(raw !== null, "the second real scavenge must fail");
    assert.equal(raw.code, grpc.status.ABORTED);
    assert.equal(raw.metadata.get("error-code")[0], "SCAVENGE_IN_PROGRESS");
    assert.equal(raw.details, "a scavenge is already running");

    // The same through the RPC client: the EssError the server raised, rebuilt.
    await assert.rejects(
      ts.client.scavenge(ts.admin, { dry_run: false, confirm: true }),
      (error: unknown) => {
        assert.ok(error instanceof EssError, String(error));
        assert.equal(error.code, "SCAVENGE_IN_PROGRESS");
        assert.equal(error.message, "a scavenge is already running");
        return true;
      },
    );

    // A dry run is not refused and does not wait for the run: it answers at once. The running
    // scavenge already claimed (hid) everything it planned, so nothing is left for a further run.
    const during = await ts.client.scavenge(ts.admin, { dry_run: true });
    assert.deepEqual({ ...during, duration_ms: 0 }, {
      dry_run: true,
      events_removed: 0,
      bytes_reclaimed: 0,
      segments_rewritten: 0,
      streams_affected: 0,
      duration_ms: 0,
      streams: [],
    } satisfies ScavengeResult);
    // Appends and reads go on while the run is held.
    const appended = await ts.client.append(writer, {
      stream_id: "during",
      event_type: "During",
      data: { ok: true },
      expected_revision: "no_stream",
    });
    assert.equal(appended.first_revision, 0);
    assert.deepEqual((await ts.client.read(writer, { stream_id: "old" })).events, kept.events);
    assert.equal(segmentsSeen.length, 2, "the held run has not gone on");

    release();
    const result = await running;
    assert.equal(result.dry_run, false);
    assert.equal(result.events_removed, planned.events_removed);
    assert.equal(result.bytes_reclaimed, planned.bytes_reclaimed);
    assert.equal(result.segments_rewritten, planned.segments_rewritten);
    assert.equal(result.streams_affected, planned.streams_affected);
    assert.equal(segmentsSeen.length, planned.segments_rewritten);

    const status = await ts.client.getStorageStatus(ts.admin);
    assert.equal(status.last_scavenge?.events_removed, 115);
    assert.equal(status.last_scavenge?.dry_run, false);
    // The kept events keep their revisions and positions; the store verifies clean.
    assert.deepEqual((await ts.client.read(writer, { stream_id: "old" })).events, kept.events);
    const verify = await ts.client.verify(ts.admin);
    assert.equal(verify.ok, true);
    assert.deepEqual(verify.errors, []);

    // Once the run is over, a real run is accepted again (and has nothing left to remove).
    const after = await ts.client.scavenge(ts.admin, { confirm: true });
    assert.equal(after.dry_run, false);
    assert.equal(after.events_removed, 0);
  } finally {
    // Never leave the run held: stopping the service waits for it.
    release();
    await ts.close();
  }
});

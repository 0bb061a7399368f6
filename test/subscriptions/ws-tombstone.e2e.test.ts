// The WebSocket interface and tombstones, on the real log engine: subscribing to a tombstoned
// stream answers an error message with STREAM_TOMBSTONED, and the connection goes on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLogEngine } from "../../src/storage/log/index.js";
import { startHarness } from "./harness.js";
import { TestClient } from "./ws-client.js";

test("subscribing to a tombstoned stream answers STREAM_TOMBSTONED; other subscriptions go on", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-ws-tombstone-"));
  const h = await startHarness({ engine: await openLogEngine({ dataDir }) });
  try {
    await h.append("acme", "gone", 2);
    await h.append("acme", "kept", 1);
    await h.engine.deleteStream("acme", "gone", { expected_revision: 1, tombstone: true });
    const client = await TestClient.open(h.port, h.token());
    client.subscribe("t", "gone", 0);
    await client.untilMessage("error", "t");
    const error = client.of("error", "t")[0]!.error!;
    assert.equal(error.code, "STREAM_TOMBSTONED");
    assert.match(error.message, /gone/);
    client.subscribe("live", "gone", "end");
    await client.untilMessage("error", "live");
    assert.equal(client.of("error", "live")[0]!.error!.code, "STREAM_TOMBSTONED");
    client.subscribe("k", "kept", 0);
    await client.untilMessage("caught_up", "k");
    assert.equal(client.eventsOf("k").length, 1);
    assert.equal(client.eventsOf("t").length, 0);
    client.close();
  } finally {
    await h.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

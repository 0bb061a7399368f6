/**
 * The active segment keeps sparse room ahead of its end (cheaper fdatasync: the file size does
 * not change with each group); sealed segments and a closed engine's files end at their data.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { openLogEngine } from "../../../src/storage/log/index.js";
import { captureLogger, events, makeTempDir, removeDir } from "./helpers.js";

test("the active segment has sparse room while open; sealed segments and a closed log end at their data", async () => {
  const dir = makeTempDir("ess-room-");
  try {
    const segmentBytesMax = 16 * 1024;
    const engine = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    for (let i = 0; i < 300; i++)
      await engine.append({
        tenant_id: "t",
        stream_id: `s-${i % 7}`,
        events: events(1),
        expected_revision: "any",
      });
    const segments = (await engine.status()).segments!;
    assert.ok(segments.length >= 3, "the small segments were sealed several times");
    for (const s of segments.slice(0, -1)) {
      assert.equal(fs.statSync(path.join(dir, s.name)).size, s.bytes, `sealed ${s.name} ends at its data`);
    }
    const active = segments.at(-1)!;
    const file = fs.statSync(path.join(dir, active.name));
    assert.equal(file.size, segmentBytesMax, "the active segment's file reaches its size limit");
    const dataBlocksBytes = Math.ceil(active.bytes / 4096) * 4096;
    assert.ok(file.blocks * 512 <= dataBlocksBytes + 4096, "the room takes no disk blocks");
    await engine.close();
    assert.equal(fs.statSync(path.join(dir, active.name)).size, active.bytes, "close cuts the room");

    const again = await openLogEngine({ dataDir: dir, segmentBytesMax, logger: captureLogger().logger });
    const all = await again.readAll({ tenant_id: "t", from_position: 0, limit: 1000 });
    assert.equal(all.events.length, 300);
    assert.equal((await again.verify()).ok, true);
    await again.close();
  } finally {
    removeDir(dir);
  }
});

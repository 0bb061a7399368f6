/**
 * Runs the storage conformance suite against the log engine: a fresh temporary directory per
 * store, and 32 KiB segments so that a few hundred events fill several sealed segments and
 * scavenge has real work (cases that need the contract's full sizes get the default size).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openLogEngine, type LogEngineOptions } from "../../src/storage/log/index.js";
import {
  OpenedEngines,
  runConformanceSuite,
  type EngineHarness,
} from "../../src/storage/conformance/suite.js";

const smallSegmentBytes = 32 * 1024;

function logHarness(): EngineHarness {
  const dirs: string[] = [];
  const engines = new OpenedEngines<LogEngineOptions>(openLogEngine);

  return {
    async create(harnessOptions = {}) {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "ess-log-conformance-"));
      dirs.push(dataDir);
      return engines.openWith({
        dataDir,
        now: harnessOptions.now,
        segmentBytesMax: harnessOptions.fullLimits ? undefined : smallSegmentBytes,
      });
    },
    reopen: (closed) => engines.reopen(closed),
    async destroy() {
      await engines.closeAll();
      for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

runConformanceSuite("log engine", logHarness(), {
  pending: {},
});

test("the suite's small segments are sealed several times by a few hundred events", async () => {
  const harness = logHarness();
  try {
    const engine = await harness.create();
    for (let i = 0; i < 20; i++) {
      const events = Array.from({ length: 10 }, () => ({
        event_id: randomUUID(),
        event_type: "padded",
        data: JSON.stringify({ pad: "p".repeat(1000) }),
        metadata: "{}",
      }));
      await engine.append({ tenant_id: "acme", stream_id: `s-${i % 3}`, events, expected_revision: "any" });
    }
    const status = await engine.status();
    const sealed = (status.segments ?? []).filter((s) => s.sealed).length;
    assert.ok(sealed >= 4, `200 events of 1 kB seal at least 4 segments of 32 KiB (sealed ${sealed})`);
    await engine.close();
  } finally {
    await harness.destroy();
  }
});

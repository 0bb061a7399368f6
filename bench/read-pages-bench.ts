/**
 * `node dist/bench/read-pages-bench.js`: CPU time of 1,000-event read pages of the log engine,
 * in-process (no transport), from the block cache: a stream forward (plain records, and the
 * stored-bytes records the operations' reads get), backward, and the tenant's $all. Each event
 * has 200 bytes of `data`. Prints microseconds of CPU (user + system) per page, the median of
 * ROUNDS rounds (each PAGES pages of every kind, interleaved), as JSON. CPU time, not wall time,
 * so that other work on a shared machine weighs less (it still shares the caches).
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openLogEngine } from "../src/storage/log/index.js";
import { createLogger } from "../src/logger.js";
import type { EventToAppend } from "../src/storage/engine.js";

const rounds = Number(process.env.ROUNDS ?? 9);
const pages = Number(process.env.PAGES ?? 200);
const streams = 4;
const perStream = 1000;

const data200 = `{"pad":"${"x".repeat(190)}"}`;

function newEvent(): EventToAppend {
  return { event_id: randomUUID(), event_type: "bench-event", data: data200, metadata: "{}" };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ess-read-bench-"));
  const engine = await openLogEngine({ dataDir: dir, logger: createLogger({}, 100) });
  try {
    for (let s = 0; s < streams; s++) {
      for (let b = 0; b < perStream / 100; b++) {
        const events = Array.from({ length: 100 }, newEvent);
        await engine.append({ tenant_id: "t", stream_id: `s-${s}`, events, expected_revision: "any" });
      }
    }
    const kinds: Record<string, () => Promise<number>> = {
      forward: async () =>
        (
          await engine.readStream({
            tenant_id: "t",
            stream_id: "s-1",
            direction: "forward",
            from_revision: 0,
            limit: 1000,
          })
        ).events.length,
      forward_stored_bytes: async () =>
        (
          await engine.readStream({
            tenant_id: "t",
            stream_id: "s-2",
            direction: "forward",
            from_revision: 0,
            limit: 1000,
            stored_bytes: true,
          })
        ).events.length,
      backward: async () =>
        (
          await engine.readStream({
            tenant_id: "t",
            stream_id: "s-3",
            direction: "backward",
            from_revision: null,
            limit: 1000,
          })
        ).events.length,
      all: async () =>
        (await engine.readAll({ tenant_id: "t", from_position: 1, limit: 1000 })).events.length,
    };
    const samples: Record<string, number[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [name, read] of Object.entries(kinds)) {
        const before = process.cpuUsage();
        for (let i = 0; i < pages; i++) {
          if ((await read()) !== 1000) throw new Error(`${name}: short page`);
        }
        const used = process.cpuUsage(before);
        (samples[name] ??= []).push((used.user + used.system) / pages);
      }
    }
    const result: Record<string, number> = {};
    for (const [name, values] of Object.entries(samples)) {
      values.sort((a, b) => a - b);
      result[name] = Math.round(values[Math.floor(values.length / 2)]!);
    }
    console.log(JSON.stringify({ us_cpu_per_1000_event_page: result, rounds, pages }));
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();

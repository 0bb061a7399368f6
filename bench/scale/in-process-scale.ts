/**
 * The log engine's append cost as its store grows, in process (no HTTP, no child process): opens
 * the engine on a fresh temporary directory (or an existing one) and appends N events from
 * several concurrent loops, each appending batches of new random event ids (200-byte JSON) to
 * the streams in turn, the shape of `npm run bench:scale`'s load. At every REPORT_EVERY events
 * it prints the load rate, the process's CPU time per event (user + system: on a machine shared
 * with other work this is steadier than the rate), the event-id checks the fingerprint set
 * answered "maybe" for an id that was not stored (`idCheckFalseHits`), and the RSS.
 *
 *   node dist/bench/scale/in-process-scale.js
 *
 * Settings (environment): BENCH_SCALE_EVENTS (N, default 30,000,000), BENCH_SCALE_REPORT_EVERY
 * (5,000,000), BENCH_SCALE_CLIENTS (concurrent append loops, 4), BENCH_SCALE_STREAMS (10,000),
 * BENCH_SCALE_BATCH (events per append, 1,000), BENCH_SCALE_DIR (where the temporary data
 * directory goes, default the OS temp dir; removed at the end unless BENCH_SCALE_KEEP=1),
 * BENCH_SCALE_DATA_DIR (append to this existing data directory instead, after its fingerprint
 * set is filled; kept), BENCH_SCALE_PROFILE_AT (comma-separated event counts, counted from the
 * start of this run: a CPU profile of the next BENCH_SCALE_PROFILE_EVENTS, default 2,000,000,
 * appended from there is written to the current directory as in-process-<count>.cpuprofile),
 * BENCH_SCALE_FRESH_IDS=1 (mark each append's ids as made by the service, as the operations do
 * when the client sent none: `npm run bench:scale`'s load; the ids skip the repeat check and are
 * only added to the fingerprint set).
 * The CPU figures include the loops' own work of making the events (a random UUID each; the
 * data texts come from a small pool built once).
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { EventToAppend } from "../../src/storage/engine.js";
import { openLogEngine, type LogEngine } from "../../src/storage/log/index.js";
import { eventType, makeEventJson } from "../compare/workload.js";

function integerSetting(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw.replace(/_/g, ""));
  if (!Number.isSafeInteger(value) || value < min)
    throw new Error(`${name}: '${raw}' is not a whole number >= ${min}`);
  return value;
}

const events = integerSetting("BENCH_SCALE_EVENTS", 30_000_000, 1);
const reportEvery = integerSetting("BENCH_SCALE_REPORT_EVERY", 5_000_000, 1);
const clients = integerSetting("BENCH_SCALE_CLIENTS", 4, 1);
const streams = integerSetting("BENCH_SCALE_STREAMS", 10_000, 1);
const batch = integerSetting("BENCH_SCALE_BATCH", 1000, 1);
const profileEvents = integerSetting("BENCH_SCALE_PROFILE_EVENTS", 2_000_000, 1);
const profileAt = (process.env.BENCH_SCALE_PROFILE_AT ?? "")
  .split(",")
  .filter((s) => s.trim() !== "")
  .map((s) => Number(s.replace(/_/g, "")));
const existingDir = process.env.BENCH_SCALE_DATA_DIR;
const keep = process.env.BENCH_SCALE_KEEP === "1" || existingDir !== undefined;
const freshIds = process.env.BENCH_SCALE_FRESH_IDS === "1";

/** Data texts of 200 bytes, reused: what the engine does with an event does not depend on them. */
const dataPool = Array.from({ length: 1024 }, (_, i) => makeEventJson(i));

function makeBatch(size: number, first: number): EventToAppend[] {
  const out: EventToAppend[] = [];
  for (let i = 0; i < size; i++) {
    out.push({
      event_id: randomUUID(),
      event_type: eventType,
      data: dataPool[(first + i) & 1023]!,
      metadata: "{}",
    });
  }
  return out;
}

function mib(bytes: number): string {
  return String(Math.round(bytes / 1024 / 1024));
}

/** Waits until the fingerprint set is filled (an existing directory), so appends see it ready. */
async function fingerprintsReady(engine: LogEngine): Promise<void> {
  const started = performance.now();
  while (!engine.index.fingerprintsReady) await new Promise((resolve) => setTimeout(resolve, 100));
  console.log(`fingerprint set filled ${((performance.now() - started) / 1000).toFixed(1)} s after open`);
}

/** A CPU profile of a window of the run, through the inspector (no restart with --cpu-prof). */
class ProfileWindow {
  private session: Session | null = null;
  private endAt = 0;
  private name = "";

  async maybeStart(appended: number): Promise<void> {
    if (this.session !== null) return;
    const at = profileAt.find((p) => appended >= p);
    if (at === undefined) return;
    profileAt.splice(profileAt.indexOf(at), 1);
    // Set before the first await: the other loops look at them meanwhile.
    const session = new Session();
    this.session = session;
    this.endAt = appended + profileEvents;
    this.name = `in-process-${at}.cpuprofile`;
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    console.log(`profiling from ${appended} events`);
  }

  async maybeStop(appended: number): Promise<void> {
    if (this.session === null || appended < this.endAt) return;
    const session = this.session;
    this.session = null;
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(this.name, JSON.stringify(profile));
    session.disconnect();
    console.log(`wrote ${this.name} (${appended} events)`);
  }
}

async function main(): Promise<void> {
  const parent = process.env.BENCH_SCALE_DIR ?? os.tmpdir();
  mkdirSync(parent, { recursive: true });
  const dataDir = existingDir ?? mkdtempSync(join(parent, "ess-in-process-scale-"));
  const onSignal = (): void => {
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const openedAt = performance.now();
    const engine = await openLogEngine({ dataDir });
    console.log(
      `${dataDir}: opened in ${Math.round(performance.now() - openedAt)} ms, ` +
        `${engine.index.eventsStored} events stored; node ${process.version}, ${os.cpus().length} CPUs, ` +
        `load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
    );
    await fingerprintsReady(engine);
    const profile = new ProfileWindow();
    const base = engine.index.eventsStored;
    let next = 0;
    let appended = 0;
    let reportedAt = 0;
    let mark = {
      t: performance.now(),
      cpu: process.cpuUsage(),
      falseHits: engine.index.idCheckFalseHits,
    };
    const started = mark.t;
    console.log(
      "| events stored | events/s in the last part | CPU us per event | false hits (per 1,000 events) | RSS MiB | index memory MiB |",
    );
    console.log("|---|---|---|---|---|---|");
    const loop = async (): Promise<void> => {
      for (;;) {
        const b = next++;
        const size = Math.min(batch, events - b * batch);
        if (size <= 0) return;
        const stream = `scale-${b % streams}`;
        await engine.append({
          tenant_id: "default",
          stream_id: stream,
          events: makeBatch(size, b),
          expected_revision: "any",
          ...(freshIds ? { event_ids_fresh: true } : {}),
        });
        appended += size;
        await profile.maybeStart(appended);
        await profile.maybeStop(appended);
        if (appended - reportedAt >= reportEvery || (appended === events && appended > reportedAt)) {
          const now = {
            t: performance.now(),
            cpu: process.cpuUsage(),
            falseHits: engine.index.idCheckFalseHits,
          };
          const part = appended - reportedAt;
          const cpuMicros = now.cpu.user - mark.cpu.user + (now.cpu.system - mark.cpu.system);
          const falseHits = now.falseHits - mark.falseHits;
          console.log(
            `| ${(base + appended).toLocaleString("en")} | ${Math.round(part / ((now.t - mark.t) / 1000)).toLocaleString("en")} ` +
              `| ${(cpuMicros / part).toFixed(2)} (user ${((now.cpu.user - mark.cpu.user) / part).toFixed(2)}) ` +
              `| ${falseHits} (${((falseHits / part) * 1000).toFixed(2)}) ` +
              `| ${mib(process.memoryUsage.rss())} | ${mib(engine.index.memoryBytes())} |`,
          );
          reportedAt = appended;
          mark = now;
        }
      }
    };
    await Promise.all(Array.from({ length: clients }, () => loop()));
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `appended ${appended.toLocaleString("en")} events in ${seconds.toFixed(1)} s; ` +
        `load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
    );
    await engine.close();
  } finally {
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

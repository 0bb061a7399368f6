/**
 * The load generator: a child process of the orchestrator (never inside a server), one per
 * system row. It takes commands over IPC (open, append, preload, read, close), runs each cell for
 * a fixed time and answers with counts and latencies. Invariants: a cell never runs past its
 * deadline plus the operations in flight; every append carries the exact expected revision, so a
 * lost or duplicated append shows up as an error, and every read must return a full 100 events.
 */
import type { SystemAdapter, Target } from "./adapter.js";
import { openAdapter } from "./open-adapter.js";
import {
  LatencyRecorder,
  appendStreamCount,
  appendStreamName,
  makeEventJson,
  nowMicros,
  readStreamEvents,
  readStreamName,
} from "./workload.js";

export type DriverCommand =
  | { type: "open"; target: Target }
  | { type: "append"; concurrency: number; warmupSeconds: number; seconds: number }
  | { type: "preload"; streams: number; concurrency: number }
  | { type: "read"; concurrency: number; warmupSeconds: number; seconds: number; streams: number }
  | { type: "close" };

export interface CellResult {
  kind: "append" | "read";
  concurrency: number;
  /** Operations completed inside the measured window. */
  ops: number;
  /** Operations completed in the whole cell, warm-up included (for CPU per operation). */
  opsTotal: number;
  /** Server CPU per operation over the whole cell, in microseconds; set by the orchestrator. */
  serverCpuMicrosPerOp?: number;
  seconds: number;
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU the load generator itself used during the cell, in percent of one core. */
  driverCpuPercent: number;
}

export type DriverReply =
  | { type: "ok"; cell?: CellResult; eventsStored: number; preloadSeconds?: number }
  | { type: "error"; message: string };

let adapter: SystemAdapter | null = null;
/** Last revision of each append stream (-1: not created); carried across cells. */
const revisions = new Int32Array(appendStreamCount).fill(-1);
let eventSequence = 0;
let eventsStored = 0;

async function runCell(
  kind: CellResult["kind"],
  concurrency: number,
  warmupSeconds: number,
  seconds: number,
  operation: (worker: number) => Promise<void>,
): Promise<CellResult> {
  const recorder = new LatencyRecorder();
  const start = nowMicros();
  const measureFrom = start + warmupSeconds * 1e6;
  const deadline = measureFrom + seconds * 1e6;
  let ops = 0;
  let opsTotal = 0;
  let cpuAtMeasureStart: NodeJS.CpuUsage | null = null;
  const worker = async (index: number): Promise<void> => {
    for (;;) {
      const begin = nowMicros();
      if (begin >= deadline) return;
      if (begin >= measureFrom && cpuAtMeasureStart === null) cpuAtMeasureStart = process.cpuUsage();
      await operation(index);
      const end = nowMicros();
      opsTotal++;
      if (end >= measureFrom && end <= deadline) {
        ops++;
        recorder.record(end - begin);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  const cpu = process.cpuUsage(cpuAtMeasureStart ?? undefined);
  const [p50, p99] = recorder.percentilesMs([50, 99]);
  return {
    kind,
    concurrency,
    ops,
    opsTotal,
    seconds,
    opsPerSecond: ops / seconds,
    p50Ms: p50 ?? NaN,
    p99Ms: p99 ?? NaN,
    driverCpuPercent: ((cpu.user + cpu.system) / (seconds * 1e6)) * 100,
  };
}

function requireAdapter(): SystemAdapter {
  if (adapter === null) throw new Error("no system opened");
  return adapter;
}

async function appendCell(concurrency: number, warmupSeconds: number, seconds: number): Promise<CellResult> {
  const system = requireAdapter();
  // Worker w owns the streams i with i % concurrency == w, so no two workers race on a stream
  // (one writer per aggregate, as in event-sourced applications) and each knows its revisions.
  const owned = Array.from({ length: concurrency }, (_, w) =>
    Array.from({ length: Math.ceil((appendStreamCount - w) / concurrency) }, (_, k) => w + k * concurrency),
  );
  const cursors = new Array<number>(concurrency).fill(0);
  return runCell("append", concurrency, warmupSeconds, seconds, async (w) => {
    const streams = owned[w] ?? [];
    const cursor = cursors[w] ?? 0;
    cursors[w] = cursor + 1;
    const index = streams[cursor % streams.length] ?? 0;
    const expected = revisions[index] ?? -1;
    await system.append(appendStreamName(index), expected, makeEventJson(eventSequence++));
    revisions[index] = expected + 1;
    eventsStored++;
  });
}

async function preload(streams: number, concurrency: number): Promise<number> {
  const system = requireAdapter();
  const started = nowMicros();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < streams) {
      const index = next++;
      const jsons = Array.from({ length: readStreamEvents }, () => makeEventJson(eventSequence++));
      await system.appendBatch(readStreamName(index), jsons);
      eventsStored += jsons.length;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  return (nowMicros() - started) / 1e6;
}

async function readCell(
  concurrency: number,
  warmupSeconds: number,
  seconds: number,
  streams: number,
): Promise<CellResult> {
  const system = requireAdapter();
  return runCell("read", concurrency, warmupSeconds, seconds, async () => {
    const index = Math.floor(Math.random() * streams);
    const count = await system.read(readStreamName(index), readStreamEvents);
    if (count !== readStreamEvents) {
      throw new Error(`read of ${readStreamName(index)} returned ${count} events, not ${readStreamEvents}`);
    }
  });
}

async function handle(command: DriverCommand): Promise<DriverReply> {
  switch (command.type) {
    case "open":
      adapter = await openAdapter(command.target);
      return { type: "ok", eventsStored };
    case "append":
      return {
        type: "ok",
        cell: await appendCell(command.concurrency, command.warmupSeconds, command.seconds),
        eventsStored,
      };
    case "preload":
      return {
        type: "ok",
        preloadSeconds: await preload(command.streams, command.concurrency),
        eventsStored,
      };
    case "read":
      return {
        type: "ok",
        cell: await readCell(command.concurrency, command.warmupSeconds, command.seconds, command.streams),
        eventsStored,
      };
    case "close":
      await adapter?.close();
      adapter = null;
      return { type: "ok", eventsStored };
  }
}

if (process.send === undefined) {
  console.error("driver.js is started by run-compare.js as a child process with IPC");
  process.exit(2);
}

// Commands run one at a time, in order.
let queue: Promise<void> = Promise.resolve();
process.on("message", (message: DriverCommand) => {
  queue = queue.then(async () => {
    let reply: DriverReply;
    try {
      reply = await handle(message);
    } catch (error) {
      reply = { type: "error", message: error instanceof Error ? error.message : String(error) };
    }
    process.send?.(reply);
    if (message.type === "close") process.disconnect();
  });
});

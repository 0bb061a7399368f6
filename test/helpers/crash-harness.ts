/**
 * The kill -9 crash test, engine-neutral: starts crash-appender.ts in a real child process,
 * kills it with SIGKILL at a random moment, reopens the store and checks it, many rounds over
 * one store. The checks (DESIGN.md section 7):
 * - every acknowledged event is there, at its revision and position, with its data byte for byte;
 * - an append left unanswered by a kill, sent again unchanged by the next child, succeeds, and
 *   its batch is stored exactly once;
 * - no batch is partly there (acknowledged or not): each is whole, at consecutive revisions;
 * - revisions of every stream are gapless from 0; positions strictly increase along each stream
 *   and along each tenant's global order;
 * - verify reports no error.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { EventRecord, StorageEngine } from "../../src/storage/engine.js";
import { openCrashStore, type CrashStore } from "./crash-engines.js";
import { crashEventData, crashTenants, type CrashAck, type CrashIntent } from "./crash-protocol.js";

const appenderPath = path.join(path.dirname(fileURLToPath(import.meta.url)), "crash-appender.js");

export interface CrashTestOptions {
  store: CrashStore;
  rounds: number;
  /**
   * The child is killed this many milliseconds (drawn uniformly) after a trigger that rotates
   * over the rounds: its first acknowledged append (3 rounds in 5), the store being open (1 in
   * 5), or its spawn (1 in 5, which may land while it is still opening and recovering the store).
   */
  killAfterMs: [number, number];
  /** Whether to run verify after each kill (default true). */
  checkVerify?: boolean;
  log?: (line: string) => void;
}

export interface CrashRound {
  acks: number;
  opened: boolean;
  killedAfterMs: number;
  /** What killedAfterMs counted from. */
  trigger: KillTrigger;
}

export interface CrashTestReport {
  rounds: CrashRound[];
  acknowledged: number;
  eventsStored: number;
  /** Unanswered appends a later child sent again and got acknowledged. */
  retried: number;
}

interface RoundOutput {
  acks: CrashAck[];
  intents: CrashIntent[];
  opened: boolean;
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

export type KillTrigger = "spawn" | "open" | "first-ack";

function runChild(
  store: CrashStore,
  killAfterMs: number,
  trigger: KillTrigger,
  seed: number,
  retries: CrashIntent[],
): Promise<RoundOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [appenderPath], {
      env: {
        ...process.env,
        ESS_CRASH_STORE: JSON.stringify(store),
        ESS_CRASH_SEED: String(seed),
        ESS_CRASH_RETRY: JSON.stringify(retries),
        ESS_LOG_LEVEL: "error",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    let timer: NodeJS.Timeout | undefined;
    const arm = () => (timer ??= setTimeout(() => child.kill("SIGKILL"), killAfterMs));
    if (trigger === "spawn") arm();
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      if (trigger === "open" && stdout.includes('{"opened":true}')) arm();
      if (trigger === "first-ack" && stdout.includes('"event_ids"')) arm();
    });
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      // Only whole lines count: the last one may have been cut by the kill.
      const lines = stdout.split("\n").slice(0, -1);
      const acks: CrashAck[] = [];
      const intents: CrashIntent[] = [];
      let opened = false;
      for (const line of lines) {
        const parsed = JSON.parse(line) as CrashAck | { opened: true } | { intent: CrashIntent };
        if ("opened" in parsed) opened = true;
        else if ("intent" in parsed) intents.push(parsed.intent);
        else acks.push(parsed);
      }
      resolve({ acks, intents, opened, stderr, exitCode, signal });
    });
  });
}

async function readStream(engine: StorageEngine, tenant: string, stream: string): Promise<EventRecord[]> {
  const events: EventRecord[] = [];
  let from: number | null = null;
  for (;;) {
    const page = await engine.readStream({
      tenant_id: tenant,
      stream_id: stream,
      direction: "forward",
      from_revision: from,
      limit: 1000,
    });
    events.push(...page.events);
    if (page.is_end) return events;
    from = page.next_revision;
  }
}

async function readTenant(engine: StorageEngine, tenant: string): Promise<EventRecord[]> {
  const events: EventRecord[] = [];
  let from = 0;
  for (;;) {
    const page = await engine.readAll({ tenant_id: tenant, from_position: from, limit: 1000 });
    events.push(...page.events);
    if (page.is_end) return events;
    from = page.next_position!;
  }
}

interface EventData {
  tenant: string;
  stream: string;
  batch: string;
  index: number;
  size: number;
}

/** Opens the store and checks everything; returns the number of events stored. */
export async function checkCrashedStore(
  store: CrashStore,
  acks: CrashAck[],
  checkVerify: boolean,
): Promise<number> {
  const engine = await openCrashStore(store);
  try {
    const byStream = new Map<string, EventRecord[]>();
    let stored = 0;
    for (const tenant of crashTenants) {
      const global = await readTenant(engine, tenant);
      for (let i = 1; i < global.length; i++) {
        assert.ok(
          global[i]!.position > global[i - 1]!.position,
          `${tenant}: global positions strictly increase`,
        );
      }
      const streamIds = new Set(global.map((e) => e.stream_id));
      let sum = 0;
      for (const stream of streamIds) {
        const events = await readStream(engine, tenant, stream);
        byStream.set(`${tenant}/${stream}`, events);
        sum += events.length;
        events.forEach((e, i) => {
          assert.equal(e.revision, i, `${tenant}/${stream}: revisions are gapless from 0`);
          if (i > 0)
            assert.ok(e.position > events[i - 1]!.position, `${tenant}/${stream}: positions increase`);
        });
        // Every batch, acknowledged or not, is whole: `size` events at consecutive revisions.
        for (let i = 0; i < events.length;) {
          const first = JSON.parse(events[i]!.data) as EventData;
          assert.equal(first.index, 0, `${tenant}/${stream}@${i}: a batch starts with its first event`);
          for (let k = 0; k < first.size; k++) {
            const e = events[i + k];
            assert.ok(
              e,
              `${tenant}/${stream}: batch ${first.batch} is whole (${k} of ${first.size} events stored)`,
            );
            const data = JSON.parse(e.data) as EventData;
            assert.equal(
              data.batch,
              first.batch,
              `${tenant}/${stream}: batch ${first.batch} is not interleaved`,
            );
            assert.equal(data.index, k);
            assert.equal(
              e.data,
              crashEventData(tenant, stream, data.batch, k, first.size),
              "data byte for byte",
            );
            assert.equal(e.metadata, "{}");
          }
          i += first.size;
        }
      }
      assert.equal(sum, global.length, `${tenant}: readAll holds exactly the streams' events`);
      stored += sum;
    }
    for (const ack of acks) {
      const events = byStream.get(`${ack.tenant}/${ack.stream}`) ?? [];
      const slice = events.slice(ack.first_revision, ack.last_revision + 1);
      assert.deepEqual(
        slice.map((e) => e.event_id),
        ack.event_ids,
        `acknowledged batch ${ack.batch} of ${ack.tenant}/${ack.stream} sits at revisions ${ack.first_revision}..${ack.last_revision}`,
      );
      assert.equal(
        slice.at(-1)!.position,
        ack.position,
        `acknowledged batch ${ack.batch} keeps its position`,
      );
    }
    if (checkVerify) {
      const result = await engine.verify();
      assert.deepEqual(result.errors, [], "verify finds no error after a crash");
      assert.equal(result.ok, true);
    }
    return stored;
  } finally {
    await engine.close();
  }
}

export async function runCrashTest(options: CrashTestOptions): Promise<CrashTestReport> {
  const acks: CrashAck[] = [];
  const rounds: CrashRound[] = [];
  /** Appends sent but never answered, by batch: the next child sends them again. */
  const unanswered = new Map<string, CrashIntent>();
  let retried = 0;
  let eventsStored = 0;
  for (let round = 0; round < options.rounds; round++) {
    const [low, high] = options.killAfterMs;
    const killAfterMs = Math.round(low + Math.random() * (high - low));
    const trigger: KillTrigger = round % 5 === 4 ? "spawn" : round % 5 === 1 ? "open" : "first-ack";
    const output = await runChild(options.store, killAfterMs, trigger, round * 7919 + 17, [
      ...unanswered.values(),
    ]);
    for (const intent of output.intents) unanswered.set(intent.batch, intent);
    for (const ack of output.acks) {
      unanswered.delete(ack.batch);
      if (ack.retried) retried += 1;
    }
    if (output.signal !== "SIGKILL") {
      assert.fail(`round ${round}: the appender ended by itself (code ${output.exitCode}): ${output.stderr}`);
    }
    acks.push(...output.acks);
    rounds.push({ acks: output.acks.length, opened: output.opened, killedAfterMs: killAfterMs, trigger });
    eventsStored = await checkCrashedStore(options.store, acks, options.checkVerify ?? true);
    options.log?.(
      `round ${round}: killed ${killAfterMs} ms after ${trigger}, ` +
        `${output.acks.length} acks, ${eventsStored} events stored`,
    );
  }
  return {
    rounds,
    acknowledged: acks.reduce((n, a) => n + a.event_ids.length, 0),
    eventsStored,
    retried,
  };
}

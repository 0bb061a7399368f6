/**
 * The kill -9 crash test, engine-neutral: starts crash-appender.ts in a real child process,
 * kills it with SIGKILL at a random moment, reopens the store and checks it, many rounds over
 * one store. The checks (docs/contract.md "Storage guarantees"):
 * - every acknowledged event is there, at its revision and position, with its data byte for byte;
 * - an append left unanswered by a kill, sent again unchanged by the next child, succeeds, and
 *   its batch is stored exactly once;
 * - no batch is partly there (acknowledged or not): each is whole, at consecutive revisions;
 * - revisions of every stream are gapless (from 0, or from where acknowledged retention or a soft
 *   delete hides a prefix; acknowledged metadata is kept); positions strictly increase along each
 *   stream and along each tenant's global order;
 * - verify reports no error.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { EventRecord } from "../../src/contract/bodies.js";
import type { StorageEngine } from "../../src/storage/engine.js";
import { openCrashStore, settleCrashStore, type CrashStore } from "./crash-engines.js";
import { EssError } from "../../src/errors.js";
import {
  crashEventData,
  crashSharedStream,
  crashStreams,
  crashTenants,
  type CrashAck,
  type CrashIntent,
} from "./crash-protocol.js";

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
  eventsReadable: number;
  /** Unanswered appends a later child sent again and got acknowledged. */
  retried: number;
  /** Acknowledged retention changes and soft deletes. */
  metaAcks: number;
}

type MetaLine =
  | { retention: { tenant: string; stream: string; truncate_before: number } }
  | { deleting: { tenant: string; stream: string; before: number } }
  | { deleted: { tenant: string; stream: string; before: number } };

interface RoundOutput {
  acks: CrashAck[];
  intents: CrashIntent[];
  meta: MetaLine[];
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
      // Arm only on whole lines: a kill armed on half an ack line could leave the round with no
      // complete ack, and the round would not count as killed between appends.
      const whole = stdout.slice(0, stdout.lastIndexOf("\n") + 1);
      if (trigger === "open" && whole.includes('{"opened":true}')) arm();
      if (trigger === "first-ack" && whole.includes('"first_revision"')) arm();
    });
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      // Only whole lines count: the last one may have been cut by the kill.
      const lines = stdout.split("\n").slice(0, -1);
      const acks: CrashAck[] = [];
      const intents: CrashIntent[] = [];
      const meta: MetaLine[] = [];
      let opened = false;
      for (const line of lines) {
        const parsed = JSON.parse(line) as CrashAck | { opened: true } | { intent: CrashIntent } | MetaLine;
        if ("opened" in parsed) opened = true;
        else if ("intent" in parsed) intents.push(parsed.intent);
        else if ("retention" in parsed || "deleted" in parsed || "deleting" in parsed) meta.push(parsed);
        else acks.push(parsed);
      }
      resolve({ acks, intents, meta, opened, stderr, exitCode, signal });
    });
  });
}

/** Every event of a stream, page by page. */
export async function readWholeStream(
  engine: StorageEngine,
  tenant: string,
  stream: string,
): Promise<EventRecord[]> {
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

/** Stream metadata the child had acknowledged: the store must keep at least this much. */
export interface CrashMetaAcks {
  /** Highest acknowledged truncate_before per "tenant/stream". */
  truncateBefore: Map<string, number>;
  /** Highest revision an acknowledged soft delete hid up to (exclusive), per "tenant/stream". */
  deletedBefore: Map<string, number>;
  /** The same for every soft delete the child started, acknowledged or not. */
  deletingBefore: Map<string, number>;
}

/** Opens the store and checks everything; returns the number of readable events. */
export async function checkCrashedStore(
  store: CrashStore,
  acks: CrashAck[],
  meta: CrashMetaAcks,
  checkVerify: boolean,
): Promise<number> {
  const engine = await openCrashStore(store);
  try {
    let readableTotal = 0;
    for (const tenant of crashTenants) {
      const streams = [...crashStreams, crashSharedStream]
        .filter((s) => s.tenant === tenant)
        .map((s) => s.stream);
      const readableIds = new Set<string>();
      for (const stream of streams) {
        const key = `${tenant}/${stream}`;
        const streamAcks = acks.filter((a) => a.tenant === tenant && a.stream === stream);
        const info = await engine.getStreamInfo(tenant, stream);
        if (!info) {
          assert.equal(streamAcks.length, 0, `${key}: a stream with acknowledged appends exists`);
          continue;
        }
        const lastRevision = info.last_revision ?? -1;
        let events: EventRecord[] = [];
        if (info.deleted) {
          await assert.rejects(readWholeStream(engine, tenant, stream), (error: unknown) => {
            return error instanceof EssError && error.code === "STREAM_NOT_FOUND";
          });
        } else {
          events = await readWholeStream(engine, tenant, stream);
        }
        const firstReadable = events[0]?.revision ?? lastRevision + 1;
        assert.equal(
          info.first_revision,
          events[0]?.revision ?? null,
          `${key}: info names the first readable revision`,
        );
        assert.equal(info.event_count, events.length, `${key}: info counts the readable events`);
        events.forEach((e, i) => {
          assert.equal(e.revision, firstReadable + i, `${key}: readable revisions are gapless`);
          if (i > 0) assert.ok(e.position > events[i - 1]!.position, `${key}: positions increase`);
        });
        if (events.length > 0)
          assert.equal(events.at(-1)!.revision, lastRevision, `${key}: the last event is readable`);
        if (!info.deleted) {
          // Nothing is hidden that the stream's retention or a delete the child started does not explain.
          const explained = Math.max(info.retention.truncate_before ?? 0, meta.deletingBefore.get(key) ?? 0);
          assert.ok(
            firstReadable <= explained,
            `${key}: revisions below ${firstReadable} are hidden without cause`,
          );
        }
        // Acknowledged metadata survives: the store hides at least what was acknowledged.
        const truncated = meta.truncateBefore.get(key);
        if (truncated !== undefined) {
          assert.ok(
            (info.retention.truncate_before ?? -1) >= truncated,
            `${key}: acknowledged retention is kept`,
          );
        }
        const deleted = meta.deletedBefore.get(key);
        if (deleted !== undefined)
          assert.ok(firstReadable >= deleted, `${key}: an acknowledged delete is kept`);

        // Every readable batch, acknowledged or not, is whole: `size` events at consecutive
        // revisions, and stored once (a retried batch is never written twice).
        const batches = new Set<string>();
        for (let i = 0; i < events.length;) {
          const first = JSON.parse(events[i]!.data as string) as EventData;
          assert.equal(first.index, 0, `${key}@${events[i]!.revision}: a batch starts with its first event`);
          assert.ok(!batches.has(first.batch), `${key}: batch ${first.batch} is stored once`);
          batches.add(first.batch);
          for (let k = 0; k < first.size; k++) {
            const e = events[i + k];
            assert.ok(e, `${key}: batch ${first.batch} is whole (${k} of ${first.size} events stored)`);
            const data = JSON.parse(e.data as string) as EventData;
            assert.equal(data.batch, first.batch, `${key}: batch ${first.batch} is not interleaved`);
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
        // Every acknowledged batch is at its revisions: readable, or wholly hidden by retention or delete.
        for (const ack of streamAcks) {
          assert.ok(
            ack.last_revision <= lastRevision,
            `${key}: acknowledged revision ${ack.last_revision} exists`,
          );
          if (ack.first_revision < firstReadable) {
            assert.ok(
              ack.last_revision < firstReadable,
              `${key}: batch ${ack.batch} is hidden whole or not at all`,
            );
            continue;
          }
          const slice = events.slice(
            ack.first_revision - firstReadable,
            ack.last_revision - firstReadable + 1,
          );
          assert.deepEqual(
            slice.map((e) => e.event_id),
            ack.event_ids,
            `${key}: acknowledged batch ${ack.batch} sits at revisions ${ack.first_revision}..${ack.last_revision}`,
          );
          assert.equal(
            slice.at(-1)!.position,
            ack.position,
            `${key}: acknowledged batch ${ack.batch} keeps its position`,
          );
        }
        for (const e of events) readableIds.add(e.event_id);
      }
      const global = await readTenant(engine, tenant);
      for (let i = 1; i < global.length; i++) {
        assert.ok(
          global[i]!.position > global[i - 1]!.position,
          `${tenant}: global positions strictly increase`,
        );
      }
      assert.equal(
        global.length,
        readableIds.size,
        `${tenant}: readAll holds exactly the streams' readable events`,
      );
      for (const e of global)
        assert.ok(readableIds.has(e.event_id), `${tenant}: readAll holds only readable events`);
      readableTotal += global.length;
    }
    if (checkVerify) {
      const result = await engine.verify();
      assert.deepEqual(result.errors, [], "verify finds no error after a crash");
      assert.equal(result.ok, true);
    }
    return readableTotal;
  } finally {
    await engine.close();
  }
}

export async function runCrashTest(options: CrashTestOptions): Promise<CrashTestReport> {
  const acks: CrashAck[] = [];
  const rounds: CrashRound[] = [];
  /** Appends sent but never answered, by batch: the next child sends them again. */
  const unanswered = new Map<string, CrashIntent>();
  const meta: CrashMetaAcks = {
    truncateBefore: new Map(),
    deletedBefore: new Map(),
    deletingBefore: new Map(),
  };
  let metaAcks = 0;
  let retried = 0;
  let eventsReadable = 0;
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
    for (const line of output.meta) {
      if ("deleting" in line) {
        const { tenant, stream, before } = line.deleting;
        const key = `${tenant}/${stream}`;
        meta.deletingBefore.set(key, Math.max(meta.deletingBefore.get(key) ?? 0, before));
        continue;
      }
      metaAcks += 1;
      if ("retention" in line) {
        const { tenant, stream, truncate_before } = line.retention;
        const key = `${tenant}/${stream}`;
        meta.truncateBefore.set(key, Math.max(meta.truncateBefore.get(key) ?? 0, truncate_before));
      } else {
        const { tenant, stream, before } = line.deleted;
        const key = `${tenant}/${stream}`;
        meta.deletedBefore.set(key, Math.max(meta.deletedBefore.get(key) ?? 0, before));
      }
    }
    if (output.signal !== "SIGKILL") {
      assert.fail(`round ${round}: the appender ended by itself (code ${output.exitCode}): ${output.stderr}`);
    }
    acks.push(...output.acks);
    await settleCrashStore(options.store);
    rounds.push({ acks: output.acks.length, opened: output.opened, killedAfterMs: killAfterMs, trigger });
    eventsReadable = await checkCrashedStore(options.store, acks, meta, options.checkVerify ?? true);
    options.log?.(
      `round ${round}: killed ${killAfterMs} ms after ${trigger}, ` +
        `${output.acks.length} acks, ${eventsReadable} events readable`,
    );
  }
  return {
    rounds,
    acknowledged: acks.reduce((n, a) => n + a.event_ids.length, 0),
    eventsReadable,
    retried,
    metaAcks,
  };
}

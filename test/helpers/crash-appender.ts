/**
 * Child process of the crash tests: opens the store named by ESS_CRASH_STORE (JSON, see
 * crash-engines.ts) and appends until it is killed. One writer per stream uses exact expected
 * revisions (read from the store at start, so each round continues where the last left off);
 * two more writers share one stream with "any". Batches hold 1 to 6 events.
 *
 * Each acknowledged append is printed to stdout as one JSON line, only after its promise
 * resolved: a printed line is a promise the store must keep after any kill. (stdout to a pipe
 * is synchronous on Linux, so a line is either wholly in the pipe or not written at all; the
 * parent ignores a last line without its newline anyway.)
 *
 * Now and then a writer also sets truncate_before or soft-deletes its stream (at a batch
 * boundary) and prints that once acknowledged; the stream then goes on (an exact expected
 * revision still appends to a deleted stream).
 *
 * Before each append the child prints its intent (the exact request). The parent hands the
 * intents the kill left unanswered to the next child (ESS_CRASH_RETRY), which first sends them
 * again unchanged, as a client retrying after a lost connection: each must succeed, and the
 * batch must end up stored exactly once.
 *
 * Every event's data names its batch (`batch`, `index`, `size`), so the parent can prove that
 * no batch, acknowledged or not, is partly stored.
 */
import { randomUUID } from "node:crypto";
import { EssError } from "../../src/errors.js";
import type { StorageEngine } from "../../src/storage/engine.js";
import { openCrashStore, type CrashStore } from "./crash-engines.js";
import {
  crashEvents,
  crashSharedStream,
  crashStreams,
  type CrashAck,
  type CrashIntent,
} from "./crash-protocol.js";

function print(line: object): void {
  process.stdout.write(JSON.stringify(line) + "\n");
}

/** Sends an intent's append, printing the intent first and the ack once it resolved. */
async function send(engine: StorageEngine, intent: CrashIntent, retried: boolean): Promise<CrashAck> {
  if (!retried) print({ intent });
  const result = await engine.append({
    tenant_id: intent.tenant,
    stream_id: intent.stream,
    events: crashEvents(intent),
    expected_revision: intent.expected,
  });
  const ack: CrashAck = {
    tenant: intent.tenant,
    stream: intent.stream,
    batch: intent.batch,
    event_ids: intent.event_ids,
    first_revision: result.first_revision,
    last_revision: result.last_revision,
    position: result.position,
    ...(retried ? { retried: true } : {}),
  };
  print(ack);
  return ack;
}

async function writer(
  engine: StorageEngine,
  tenant: string,
  stream: string,
  exact: boolean,
  random: () => number,
): Promise<never> {
  let last: number | null = null;
  let firstOfRun = true;
  if (exact) {
    const info = await engine.getStreamInfo(tenant, stream);
    last = info?.last_revision ?? null;
  }
  for (;;) {
    const size = random() < 0.5 ? 1 : 2 + Math.floor(random() * 5);
    const intent: CrashIntent = {
      tenant,
      stream,
      batch: randomUUID(),
      event_ids: Array.from({ length: size }, () => randomUUID()),
      expected: exact ? (last ?? "no_stream") : "any",
    };
    const ack = await send(engine, intent, false);
    last = ack.last_revision;
    // Now and then, stream metadata too: retention or a soft delete, always at a batch boundary
    // so the readable part of a stream starts with a whole batch. Printed once acknowledged.
    // Also after each writer's first append of the run, so that every run that gets going
    // changes metadata, however few appends a slow machine lets it make before the kill.
    if (exact && (firstOfRun || random() < 0.09)) {
      firstOfRun = false;
      if (random() < 2 / 3) {
        const retention = { max_age_seconds: null, max_count: null, truncate_before: ack.first_revision };
        await engine.setRetention(tenant, stream, retention);
        print({ retention: { tenant, stream, truncate_before: ack.first_revision } });
      } else {
        print({ deleting: { tenant, stream, before: ack.last_revision + 1 } });
        await engine.deleteStream(tenant, stream);
        print({ deleted: { tenant, stream, before: ack.last_revision + 1 } });
      }
    }
    // A short random pause keeps the store small over many rounds (the checks read it all)
    // while the writers still overlap, so group commits hold several appends.
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(random() * 8)));
  }
}

function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

async function main(): Promise<void> {
  const store = JSON.parse(process.env.ESS_CRASH_STORE ?? "null") as CrashStore | null;
  if (!store) throw new Error("ESS_CRASH_STORE is not set");
  const random = seededRandom(Number(process.env.ESS_CRASH_SEED ?? Date.now()));
  // A child that somehow outlives its parent stops by itself.
  setTimeout(() => process.exit(3), 60_000).unref();
  const retries = JSON.parse(process.env.ESS_CRASH_RETRY ?? "[]") as CrashIntent[];
  const engine = await openCrashStore(store);
  print({ opened: true });
  // First the appends the last kill left unanswered, sent again exactly as before, as a client
  // does after losing its connection: each must succeed, whether or not it was stored.
  await Promise.all(retries.map((intent) => send(engine, intent, true)));
  const writers: Promise<never>[] = [];
  for (const { tenant, stream } of crashStreams) writers.push(writer(engine, tenant, stream, true, random));
  for (let i = 0; i < 2; i++)
    writers.push(writer(engine, crashSharedStream.tenant, crashSharedStream.stream, false, random));
  await Promise.all(writers);
}

main().catch((error: unknown) => {
  const detail = error instanceof EssError ? `${error.code}: ${error.message}` : String(error);
  process.stderr.write(`crash-appender failed: ${detail}\n`);
  process.exit(1);
});

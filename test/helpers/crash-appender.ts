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
 * Every event's data names its batch (`batch`, `index`, `size`), so the parent can prove that
 * no batch, acknowledged or not, is partly stored.
 */
import { randomUUID } from "node:crypto";
import { EssError } from "../../src/errors.js";
import type { ExpectedRevision, StorageEngine } from "../../src/storage/engine.js";
import { openCrashStore, type CrashStore } from "./crash-engines.js";
import { crashEventData, crashStreams, crashSharedStream, type CrashAck } from "./crash-protocol.js";

async function writer(
  engine: StorageEngine,
  tenant: string,
  stream: string,
  exact: boolean,
  random: () => number,
): Promise<never> {
  let last: number | null = null;
  if (exact) {
    const info = await engine.getStreamInfo(tenant, stream);
    last = info?.last_revision ?? null;
  }
  for (;;) {
    const size = random() < 0.5 ? 1 : 2 + Math.floor(random() * 5);
    const batch = randomUUID();
    const events = Array.from({ length: size }, (_, index) => ({
      event_id: randomUUID(),
      event_type: size === 1 ? "single" : "batched",
      data: crashEventData(tenant, stream, batch, index, size),
      metadata: "{}",
    }));
    const expected: ExpectedRevision = exact ? (last ?? "no_stream") : "any";
    const result = await engine.append({
      tenant_id: tenant,
      stream_id: stream,
      events,
      expected_revision: expected,
    });
    const ack: CrashAck = {
      tenant,
      stream,
      batch,
      event_ids: events.map((e) => e.event_id),
      first_revision: result.first_revision,
      last_revision: result.last_revision,
      position: result.position,
    };
    process.stdout.write(JSON.stringify(ack) + "\n");
    last = result.last_revision;
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
  const engine = await openCrashStore(store);
  process.stdout.write(JSON.stringify({ opened: true }) + "\n");
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

/**
 * A store's answers, to compare a store written by an earlier version (a fixture's
 * expected.json) with what this version reads of it: each stream's events (or the error code of
 * its read), its info, each tenant's events in global order. And the check every upgrade test
 * makes once the old answers matched: idempotency still holds, and binary events appended now
 * sit beside the old JSON ones.
 */
import assert from "node:assert/strict";
import type { EventRecord } from "../../src/contract/bodies.js";
import type { StorageEngine } from "../../src/storage/engine.js";
import { readWholeStream } from "./crash-harness.js";

export interface StoredAnswers {
  streams: Record<string, EventRecord[] | { error: string }>;
  all: Record<string, EventRecord[]>;
  info: Record<string, Record<string, unknown> | null>;
}

/**
 * Every event of `expected` with the content type this version reads a record written before
 * content types with: application/json (its data and metadata are JSON text).
 */
export function withJsonContentType(expected: Pick<StoredAnswers, "streams" | "all">): void {
  const lists = [...Object.values(expected.streams), ...Object.values(expected.all)];
  for (const list of lists)
    if (Array.isArray(list)) for (const e of list) e.content_type = "application/json";
}

/**
 * A fixture's expected answers as this version gives them: the versions that wrote the fixtures
 * knew no tombstones, so every stream's info says tombstoned: false.
 */
export function withTombstonedField<T extends { info: Record<string, Record<string, unknown> | null> }>(
  expected: T,
): T {
  for (const info of Object.values(expected.info)) if (info !== null) info.tombstoned = false;
  return expected;
}

/** `engine`'s answers for the streams ("tenant/stream") and tenants `expected` names. */
export async function storedAnswers(engine: StorageEngine, expected: StoredAnswers): Promise<StoredAnswers> {
  const got: StoredAnswers = { streams: {}, all: {}, info: {} };
  for (const key of Object.keys(expected.streams)) {
    const [tenant, stream] = key.split("/") as [string, string];
    got.info[key] = (await engine.getStreamInfo(tenant, stream)) as unknown as Record<string, unknown> | null;
    try {
      got.streams[key] = await readWholeStream(engine, tenant, stream);
    } catch (error) {
      got.streams[key] = { error: (error as { code: string }).code };
    }
  }
  for (const tenant of Object.keys(expected.all)) {
    got.all[tenant] = (await engine.readAll({ tenant_id: tenant, from_position: 0, limit: 1000 })).events;
  }
  return got;
}

/** Bytes that are not UTF-8, with a zero byte: a binary event's data. */
export const blob = Buffer.from([0xff, 0x00, 0xfe, 0xed, 0xa0, 0x80]);

/**
 * Appends `old[0]` again to `tenant/stream` (old: the stream's events as the earlier version
 * stored them), which must answer revision 0, then a binary event and a JSON one after `old`;
 * returns what the new events must read back as.
 */
export async function appendBesideOld(
  engine: StorageEngine,
  tenant: string,
  stream: string,
  old: EventRecord[],
): Promise<unknown[][]> {
  const first = old[0]!;
  const again = await engine.append({
    tenant_id: tenant,
    stream_id: stream,
    events: [
      { event_id: first.event_id, event_type: first.event_type, data: first.data, metadata: first.metadata },
    ],
    expected_revision: "any",
  });
  assert.equal(again.first_revision, 0, "idempotency across the upgrade");
  const appended = await engine.append({
    tenant_id: tenant,
    stream_id: stream,
    events: [
      {
        event_id: "10000000-0000-4000-8000-000000000001",
        event_type: "Blob",
        data: blob,
        metadata: Buffer.alloc(0),
      },
      { event_id: "10000000-0000-4000-8000-000000000002", event_type: "Json", data: "[1]", metadata: "{}" },
    ],
    expected_revision: old.at(-1)!.revision,
  });
  return [
    [appended.first_revision, "application/octet-stream", blob, Buffer.alloc(0)],
    [appended.last_revision, "application/json", "[1]", "{}"],
  ];
}

/** The old events of `tenant/stream` unchanged, then the new ones `appendBesideOld` described. */
export async function assertOldThenNew(
  engine: StorageEngine,
  tenant: string,
  stream: string,
  old: EventRecord[],
  added: unknown[][],
  what: string,
): Promise<void> {
  const events = await readWholeStream(engine, tenant, stream);
  assert.deepEqual(events.slice(0, old.length), old, `${what}: the old events unchanged`);
  assert.deepEqual(
    events.slice(old.length).map((e) => [e.revision, e.content_type, e.data, e.metadata]),
    added,
    `${what}: the new events`,
  );
  const verify = await engine.verify();
  assert.equal(verify.ok, true, JSON.stringify(verify.errors));
}

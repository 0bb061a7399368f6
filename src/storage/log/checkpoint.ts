/**
 * Index checkpoints: the whole in-memory index written to `index.ckpt`, so start-up replays
 * only the log written after it instead of every segment.
 *
 * Invariants: a checkpoint describes the index exactly as it was after every record before its
 * `covers` address (segment number, offset) was applied, and nothing after; it records the
 * generation of every segment it covers, and a scavenge (which bumps a segment's generation and
 * moves its records) makes it stale, so a mismatch means a full rebuild. It is written
 * atomically (temp file, fsync, rename, fsync dir) and checked with CRC32C; a missing, torn or
 * corrupt checkpoint also means a full rebuild, which gives the same answers.
 *
 *  file:  "ESSCKPT1" | u32 crc32c of the rest | u32 JSON bytes | JSON | arrays (raw, little-endian)
 */
import fs from "node:fs";
import path from "node:path";
import type { LastScavenge, Retention } from "../engine.js";
import { crc32c } from "./crc32c.js";
import { LogIndex, StreamState, TenantState, type GrowableF64 } from "./log-index.js";
import { fsyncDirectory } from "./segment-store.js";

export const CHECKPOINT_FILE = "index.ckpt";
const MAGIC = "ESSCKPT1";

export interface CheckpointMeta {
  covers: { segmentNo: number; offset: number };
  segments: { segmentNo: number; generation: number; records: number }[];
  lastScavenge: LastScavenge | null;
}

interface CheckpointJson extends CheckpointMeta {
  version: 1;
  nextPosition: number;
  eventsStored: number;
  bytesStored: number;
  lastCreatedAtMs: number;
  idTableCapacity: number;
  idTableSize: number;
  tenants: {
    id: string;
    liveStreams: number;
    events: number;
    bytes: number;
    appendsTotal: number;
    readsTotal: number;
    lastAppendAtMs: number | null;
    positions: number;
  }[];
  streams: {
    tenant: string;
    id: string;
    count: number;
    retention: Retention;
    deleted: boolean;
    deletedBefore: number;
    scavengedBefore: number;
    bytes: number;
    storedEvents: number;
    createdAtMs: number;
    updatedAtMs: number;
    revisions: number;
  }[];
}

function bytesOf(view: ArrayBufferView, length: number, elementBytes: number): Buffer {
  return Buffer.from(view.buffer, view.byteOffset, length * elementBytes);
}

/** Serializes the index (synchronously, so it is a consistent snapshot) into one buffer. */
export function buildCheckpoint(index: LogIndex, meta: CheckpointMeta): Buffer {
  const json: CheckpointJson = {
    version: 1,
    ...meta,
    nextPosition: index.nextPosition,
    eventsStored: index.eventsStored,
    bytesStored: index.bytesStored,
    lastCreatedAtMs: index.lastCreatedAtMs,
    idTableCapacity: index.eventIds.keys.length,
    idTableSize: index.eventIds.size,
    tenants: [...index.tenants.values()].map((t) => ({
      id: t.tenantId,
      liveStreams: t.liveStreams,
      events: t.events,
      bytes: t.bytes,
      appendsTotal: t.appendsTotal,
      readsTotal: t.readsTotal,
      lastAppendAtMs: t.lastAppendAtMs,
      positions: t.positions.length,
    })),
    streams: index.streams.map((s) => ({
      tenant: s.tenant.tenantId,
      id: s.streamId,
      count: s.count,
      retention: { ...s.retention },
      deleted: s.deleted,
      deletedBefore: s.deletedBefore,
      scavengedBefore: s.scavengedBefore,
      bytes: s.bytes,
      storedEvents: s.storedEvents,
      createdAtMs: s.createdAtMs,
      updatedAtMs: s.updatedAtMs,
      revisions: s.positions.length,
    })),
  };
  const chunks: Buffer[] = [];
  const jsonBytes = Buffer.from(JSON.stringify(json), "utf8");
  const head = Buffer.alloc(16);
  head.write(MAGIC, 0, 8, "latin1");
  head.writeUInt32LE(jsonBytes.length, 12);
  chunks.push(head, jsonBytes);
  const n = index.nextPosition;
  chunks.push(
    bytesOf(index.posSegment.array, n, 4),
    bytesOf(index.posOffset.array, n, 4),
    bytesOf(index.posStream.array, n, 4),
  );
  for (const t of index.tenants.values()) chunks.push(bytesOf(t.positions.array, t.positions.length, 8));
  for (const s of index.streams) {
    chunks.push(
      bytesOf(s.positions.array, s.positions.length, 8),
      bytesOf(s.createdAt.array, s.createdAt.length, 8),
    );
  }
  chunks.push(bytesOf(index.eventIds.keys, index.eventIds.keys.length, 4));
  chunks.push(bytesOf(index.eventIds.values, index.eventIds.values.length, 8));
  // Buffer.concat copies, which is what makes this a snapshot.
  const file = Buffer.concat(chunks);
  file.writeUInt32LE(crc32c(file, 12), 8);
  return file;
}

export async function writeCheckpointFile(dir: string, file: Buffer): Promise<void> {
  const target = path.join(dir, CHECKPOINT_FILE);
  const temp = `${target}.tmp`;
  const handle = await fs.promises.open(temp, "w");
  try {
    await handle.writeFile(file);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(temp, target);
  fsyncDirectory(dir);
}

export type LoadedCheckpoint = { index: LogIndex; meta: CheckpointMeta } | { index: null; reason: string };

/** Loads the checkpoint; any problem gives a reason instead (the caller then rebuilds). */
export function loadCheckpoint(dir: string): LoadedCheckpoint {
  const target = path.join(dir, CHECKPOINT_FILE);
  let file: Buffer;
  try {
    file = fs.readFileSync(target);
  } catch {
    return { index: null, reason: "no checkpoint" };
  }
  if (file.length < 16 || file.toString("latin1", 0, 8) !== MAGIC)
    return { index: null, reason: "not a checkpoint" };
  if (crc32c(file, 12) !== file.readUInt32LE(8))
    return { index: null, reason: "checkpoint checksum mismatch" };
  try {
    const jsonLength = file.readUInt32LE(12);
    const json = JSON.parse(file.toString("utf8", 16, 16 + jsonLength)) as CheckpointJson;
    if (json.version !== 1) return { index: null, reason: "unknown checkpoint version" };
    let at = 16 + jsonLength;
    const takeU32 = (length: number, into: Uint32Array): void => {
      Buffer.from(into.buffer, into.byteOffset, length * 4).set(file.subarray(at, at + length * 4));
      at += length * 4;
    };
    const takeF64 = (length: number, into: Float64Array): void => {
      Buffer.from(into.buffer, into.byteOffset, length * 8).set(file.subarray(at, at + length * 8));
      at += length * 8;
    };
    const fillGrowable = (g: GrowableF64, length: number): void => {
      g.array = new Float64Array(Math.max(4, length));
      g.length = length;
      takeF64(length, g.array);
    };
    const index = new LogIndex();
    const n = json.nextPosition;
    index.nextPosition = n;
    index.eventsStored = json.eventsStored;
    index.bytesStored = json.bytesStored;
    index.lastCreatedAtMs = json.lastCreatedAtMs;
    index.posSegment.ensure(n);
    index.posOffset.ensure(n);
    index.posStream.ensure(n);
    takeU32(n, index.posSegment.array);
    takeU32(n, index.posOffset.array);
    takeU32(n, index.posStream.array);
    for (const t of json.tenants) {
      const tenant = new TenantState(t.id);
      tenant.liveStreams = t.liveStreams;
      tenant.events = t.events;
      tenant.bytes = t.bytes;
      tenant.appendsTotal = t.appendsTotal;
      tenant.readsTotal = t.readsTotal;
      tenant.lastAppendAtMs = t.lastAppendAtMs;
      fillGrowable(tenant.positions, t.positions);
      index.tenants.set(t.id, tenant);
    }
    for (const j of json.streams) {
      const tenant = index.tenants.get(j.tenant);
      if (!tenant) return { index: null, reason: "checkpoint names an unknown tenant" };
      const s = new StreamState(index.streams.length, tenant, j.id);
      s.count = j.count;
      s.retention = j.retention;
      s.deleted = j.deleted;
      s.deletedBefore = j.deletedBefore;
      s.scavengedBefore = j.scavengedBefore;
      s.bytes = j.bytes;
      s.storedEvents = j.storedEvents;
      s.createdAtMs = j.createdAtMs;
      s.updatedAtMs = j.updatedAtMs;
      fillGrowable(s.positions, j.revisions);
      fillGrowable(s.createdAt, j.revisions);
      index.streams.push(s);
      index.streamsByKey.set(LogIndex.key(j.tenant, j.id), s);
      tenant.streams.push(s);
    }
    index.eventIds.keys = new Uint32Array(json.idTableCapacity);
    index.eventIds.values = new Float64Array(json.idTableCapacity);
    index.eventIds.size = json.idTableSize;
    takeU32(json.idTableCapacity, index.eventIds.keys);
    takeF64(json.idTableCapacity, index.eventIds.values);
    if (at !== file.length) return { index: null, reason: "checkpoint length mismatch" };
    return {
      index,
      meta: { covers: json.covers, segments: json.segments, lastScavenge: json.lastScavenge },
    };
  } catch (error) {
    return { index: null, reason: `checkpoint unreadable (${String(error)})` };
  }
}

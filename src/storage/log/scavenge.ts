/**
 * Scavenge: reclaims the disk space of events that retention or soft delete already hide.
 *
 * Invariants:
 * - only sealed segments are rewritten, and only events below their stream's first readable
 *   revision are dropped; stream-metadata records are always kept. Before any file changes, a
 *   durable "scavenged" metadata record is appended for every stream losing events, so the
 *   index built from the log still knows the stream's revision count and creation time;
 * - kept records are copied byte for byte, so they keep their revisions, positions and CRCs;
 * - a segment is replaced by writing `NAME.scavenge.tmp`, fsync, rename over NAME, fsync the
 *   directory; the new file's header has the next generation, so an index file written before
 *   the rename no longer matches and start-up rebuilds instead of using stale addresses;
 * - the index switches to the new file in one synchronous step (new fd, the segment's index
 *   rebuilt from the new file), and reads are synchronous, so no reader ever sees half of the
 *   swap. A crash before the rename leaves the old file (and the temp file, removed at
 *   start-up); after it, the new one, whose index file is written next (a crash before that
 *   leaves an index file naming the old generation, which start-up rebuilds from the segment).
 */
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "../../logger.js";
import { LargestScavengeStreams } from "../scavenge-streams.js";
import type { LogIndex, StreamState } from "./log-index.js";
import { encodeSegmentHeader, KIND_EVENT, SEGMENT_HEADER_BYTES } from "./record-codec.js";
import { indexSealedSegment } from "./recovery.js";
import { FileSegmentIndex } from "./segment-index-file.js";
import type { MemorySegmentIndex } from "./segment-index.js";
import { fsyncDirectory, type Segment, type SegmentStore } from "./segment-store.js";

export interface ScavengePlan {
  /** Positions to drop, by segment number. */
  bySegment: Map<number, Set<number>>;
  /** New lower bound of stored revisions, by stream. */
  streams: Map<StreamState, number>;
  events: number;
  bytes: number;
  streamsAffected: number;
  /** The streams losing events, with what each loses (a dry run lists them). */
  listed: LargestScavengeStreams;
}

/** Finds what a scavenge would remove now. Synchronous: a consistent view of the index. */
export function planScavenge(index: LogIndex, store: SegmentStore, nowMs: number): ScavengePlan {
  const plan: ScavengePlan = {
    bySegment: new Map(),
    streams: new Map(),
    events: 0,
    bytes: 0,
    streamsAffected: 0,
    listed: new LargestScavengeStreams(),
  };
  const active = store.active?.segmentNo;
  for (const s of index.streams) {
    if (s.count === 0) continue;
    const bound = s.firstReadable(nowMs);
    if (bound <= s.scavengedBefore) continue;
    let removedHere = 0;
    let bytesHere = 0;
    let reached = s.scavengedBefore;
    const at = index.cursor(s);
    for (let revision = s.scavengedBefore; revision < bound; revision++) {
      const position = at.at(revision);
      if (position < 0) {
        reached = revision + 1;
        continue;
      }
      const segmentNo = at.segmentNo;
      // The prefix stops at the first event still in the active segment.
      if (segmentNo === active) break;
      let set = plan.bySegment.get(segmentNo);
      if (!set) {
        set = new Set();
        plan.bySegment.set(segmentNo, set);
      }
      set.add(position);
      const buf = store.readRecord(segmentNo, at.offset);
      const recordBytes = buf.readUInt32LE(store.recordOffset);
      plan.bytes += recordBytes;
      plan.events++;
      bytesHere += recordBytes;
      removedHere++;
      reached = revision + 1;
    }
    if (removedHere > 0) {
      plan.streamsAffected++;
      plan.listed.add({
        stream_id: s.streamId,
        tenant_id: s.tenant.tenantId,
        events_removed: removedHere,
        bytes_reclaimed: bytesHere,
      });
    }
    if (removedHere > 0 || reached > s.scavengedBefore) plan.streams.set(s, reached);
  }
  return plan;
}

export interface RewrittenSegment {
  segment: Segment;
  tempPath: string;
  newSize: number;
  /** Kept event positions and their new offsets. */
  kept: { position: number; offset: number }[];
  dropped: { position: number; revision: number; bytes: number }[];
}

/** Writes the segment's kept records to NAME.scavenge.tmp and fsyncs it. */
export async function writeRewrittenSegment(
  store: SegmentStore,
  segment: Segment,
  drop: Set<number>,
): Promise<RewrittenSegment> {
  const size = segment.size;
  // Read without blocking the event loop: a sealed segment does not change until our rename.
  const old = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const { bytesRead } = await new Promise<{ bytesRead: number }>((resolve, reject) => {
      fs.read(segment.fd, old, got, size - got, got, (error, bytesRead) =>
        error ? reject(error) : resolve({ bytesRead }),
      );
    });
    if (bytesRead === 0) throw new Error(`segment ${segment.name} is shorter than ${size} bytes`);
    got += bytesRead;
  }
  const out = Buffer.allocUnsafe(size);
  const oldHeader = old.subarray(0, SEGMENT_HEADER_BYTES);
  const header = encodeSegmentHeader({
    segmentNo: segment.segmentNo,
    generation: segment.generation + 1,
    basePosition: oldHeader.readDoubleLE(16),
  });
  header.copy(out, 0);
  let at = SEGMENT_HEADER_BYTES;
  let offset = SEGMENT_HEADER_BYTES;
  const kept: { position: number; offset: number }[] = [];
  const dropped: { position: number; revision: number; bytes: number }[] = [];
  while (offset < size) {
    const length = old.readUInt32LE(offset);
    if (length < 8 || offset + length > size)
      throw new Error(`segment ${segment.name} cannot be framed at ${offset}`);
    const isEvent = old[offset + 8] === KIND_EVENT;
    const position = isEvent ? old.readDoubleLE(offset + 16) : -1;
    if (isEvent && drop.has(position)) {
      dropped.push({ position, revision: old.readDoubleLE(offset + 24), bytes: length });
    } else {
      old.copy(out, at, offset, offset + length);
      if (isEvent) kept.push({ position, offset: at });
      at += length;
    }
    offset += length;
  }
  const tempPath = path.join(store.dir, `${segment.name}.scavenge.tmp`);
  const handle = await fs.promises.open(tempPath, "w");
  try {
    await handle.writeFile(out.subarray(0, at));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { segment, tempPath, newSize: at, kept, dropped };
}

/** Renames the rewritten file over the segment and makes the rename durable. */
export async function installRewrittenSegment(store: SegmentStore, r: RewrittenSegment): Promise<void> {
  await fs.promises.rename(r.tempPath, r.segment.filePath);
  fsyncDirectory(store.dir);
}

/**
 * Points the index at the new file: one synchronous step. The segment's index is rebuilt from
 * the new file (returned: the caller writes its index file); counters drop by what was removed.
 */
export function swapToRewrittenSegment(
  store: SegmentStore,
  index: LogIndex,
  r: RewrittenSegment,
  recordBytesMax: number,
  log: Logger,
): MemorySegmentIndex {
  const segment = r.segment;
  const old = index.segment(segment.segmentNo)!;
  for (const d of r.dropped) {
    const s = old.streams[old.slotOf(d.position)]!;
    s.storedEvents--;
    s.bytes -= d.bytes;
    s.tenant.events--;
    s.tenant.bytes -= d.bytes;
    index.eventsStored--;
    index.bytesStored -= d.bytes;
  }
  const fd = fs.openSync(segment.filePath, "r+");
  const oldFd = segment.fd;
  segment.fd = fd;
  segment.generation += 1;
  segment.size = r.newSize;
  segment.records -= r.dropped.length;
  store.dropCachedBlocks(segment.segmentNo);
  fs.closeSync(oldFd);
  const rebuilt = indexSealedSegment(segment, recordBytesMax, log);
  rebuilt.keepAppendsOf(old);
  index.replaceRewrittenSegment(old, rebuilt);
  if (old instanceof FileSegmentIndex) old.close();
  return rebuilt;
}

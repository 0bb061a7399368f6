/**
 * A walk over one tenant's positions in the log index, forward or backward, segment by segment,
 * from a start position (inclusive). It reads the index's per-tenant position lists in chunks
 * and touches no record: a `$all` read decides from here which events to look at.
 *
 * Invariants: positions come strictly increasing (forward) or strictly decreasing (backward);
 * the walk sees the index as it is between two group commits (reads are synchronous), so a
 * list it reads does not change under it.
 */
import type { LogIndex } from "./log-index.js";
import type { SegmentIndex } from "./segment-index.js";

const chunkSize = 1024;
const noPositions = new Float64Array(0);

export class TenantWalk {
  /** The segment of the position `next` returned last. */
  segment: SegmentIndex | null = null;
  private segmentAt: number;
  private tenantSlot = -1;
  /** Next list index to load (forward: from it up; backward: from it down). */
  private listAt = 0;
  private chunk: Float64Array = noPositions;
  private chunkAt = 0;
  private started = false;
  /** The segment the walk starts in: only there does `from` bound the list. */
  private readonly startAt: number;

  constructor(
    private readonly index: LogIndex,
    private readonly tenantId: string,
    private readonly from: number | null,
    private readonly backward: boolean,
  ) {
    const segments = index.segments;
    if (from === null) {
      this.segmentAt = backward ? segments.length - 1 : 0;
    } else {
      const seg = index.segmentOf(from);
      // Forward from before the first segment: its start. Backward from before it: nothing.
      this.segmentAt = seg === null ? (backward ? -1 : 0) : segments.indexOf(seg);
    }
    this.startAt = this.segmentAt;
  }

  /** The next position of the tenant in the walk's direction, or -1 at the end. */
  next(): number {
    while (this.chunkAt >= this.chunk.length) {
      if (!this.loadChunk()) return -1;
    }
    return this.chunk[this.chunkAt++]!;
  }

  /** Loads the next chunk of positions (backward: reversed), moving to other segments as needed. */
  private loadChunk(): boolean {
    const segments = this.index.segments;
    for (;;) {
      const seg = this.segment;
      if (seg !== null && this.tenantSlot >= 0) {
        const count = seg.tenantCount(this.tenantSlot);
        if (!this.backward && this.listAt < count) {
          const to = Math.min(count, this.listAt + chunkSize);
          this.chunk = seg.tenantPositions(this.tenantSlot, this.listAt, to);
          this.chunkAt = 0;
          this.listAt = to;
          return true;
        }
        if (this.backward && this.listAt >= 0) {
          const lo = Math.max(0, this.listAt - chunkSize + 1);
          this.chunk = seg
            .tenantPositions(this.tenantSlot, lo, this.listAt + 1)
            .slice()
            .reverse();
          this.chunkAt = 0;
          this.listAt = lo - 1;
          return true;
        }
      }
      // Next segment.
      if (this.started) this.segmentAt += this.backward ? -1 : 1;
      this.started = true;
      if (this.segmentAt < 0 || this.segmentAt >= segments.length) return false;
      const next = segments[this.segmentAt]!;
      this.segment = next;
      this.tenantSlot = next.tenants.findIndex((t) => t.tenantId === this.tenantId);
      if (this.tenantSlot < 0) continue;
      const count = next.tenantCount(this.tenantSlot);
      const first = this.segmentAt === this.startAt;
      if (this.backward) {
        this.listAt =
          first && this.from !== null ? upperBound(next, this.tenantSlot, count, this.from) - 1 : count - 1;
      } else {
        this.listAt = first && this.from !== null ? lowerBound(next, this.tenantSlot, count, this.from) : 0;
      }
    }
  }
}

/** Index of the tenant's first position >= `position` in the segment's list. */
export function lowerBound(seg: SegmentIndex, tenantSlot: number, count: number, position: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seg.tenantPositions(tenantSlot, mid, mid + 1)[0]! < position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the tenant's first position > `position` in the segment's list. */
function upperBound(seg: SegmentIndex, tenantSlot: number, count: number, position: number): number {
  return lowerBound(seg, tenantSlot, count, position + 1);
}

// Holds a real scavenge of the log engine between two segments, when a test asks: the engine's
// test-only beforeScavengeSegment hook waits at the second segment of the next real run until the
// test releases it. With small segments, a store written by `appendScavengeWork` gives a real run
// at least two segments to rewrite, so the hold is reached for certain.
import type { LogEngineOptions } from "../../src/storage/log/log-engine.js";

export const gateSegmentBytesMax = 16 * 1024;

export interface HeldScavenge {
  /** Resolves once the run waits before its second segment (one segment rewritten). */
  paused: Promise<void>;
  release(): void;
}

export interface ScavengeGate {
  engineOptions: Omit<LogEngineOptions, "dataDir">;
  /** Holds the next real scavenge run that reaches its second segment. */
  hold(): HeldScavenge;
}

export function scavengeGate(): ScavengeGate {
  let next: { paused: () => void; released: Promise<void> } | null = null;
  return {
    engineOptions: {
      segmentBytesMax: gateSegmentBytesMax,
      async beforeScavengeSegment(ctx) {
        if (next === null || ctx.index !== 1) return;
        const held = next;
        next = null;
        held.paused();
        await held.released;
      },
    },
    hold() {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let paused!: () => void;
      const reached = new Promise<void>((resolve) => (paused = resolve));
      next = { paused, released };
      return { paused: reached, release };
    },
  };
}

/** What appendScavengeWork writes: 115 of stream "old"'s 120 events are hidden (max_count 5). */
export const scavengeWorkHidden = 115;

/**
 * Writes, through `append` and `setRetention` of any interface, 120 events of ~300 bytes to
 * "old" (more than two 16 KiB segments), hides all but 5 with max_count, and 80 filler events
 * to "filler" so every segment holding "old" is sealed.
 */
export async function appendScavengeWork(
  append: (
    stream: string,
    events: { event_type: string; data: Record<string, unknown> }[],
  ) => Promise<unknown>,
  setMaxCount: (stream: string, maxCount: number) => Promise<unknown>,
): Promise<void> {
  const pad = "x".repeat(200);
  const batch = (type: string, from: number) =>
    Array.from({ length: 20 }, (_, i) => ({ event_type: type, data: { n: from + i, pad } }));
  for (let round = 0; round < 6; round++) await append("old", batch("Old", round * 20));
  await setMaxCount("old", 5);
  for (let round = 0; round < 4; round++) await append("filler", batch("Filler", round * 20));
}

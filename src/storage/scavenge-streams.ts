/**
 * The streams a scavenge dry run lists (ScavengeResult.streams), kept by both engines the same
 * way: largest bytes_reclaimed first, ties by tenant id then stream id, at most
 * limits.scavengeStreamsListedMax of them. Memory stays bounded however many streams are
 * affected: the candidates are cut back to the largest `max` whenever they reach twice that.
 */
import { limits } from "../limits.js";
import type { ScavengeStream } from "../contract/bodies.js";

function largestFirst(a: ScavengeStream, b: ScavengeStream): number {
  if (a.bytes_reclaimed !== b.bytes_reclaimed) return b.bytes_reclaimed - a.bytes_reclaimed;
  if (a.tenant_id !== b.tenant_id) return a.tenant_id < b.tenant_id ? -1 : 1;
  return a.stream_id < b.stream_id ? -1 : a.stream_id > b.stream_id ? 1 : 0;
}

export class LargestScavengeStreams {
  #candidates: ScavengeStream[] = [];

  constructor(private readonly max: number = limits.scavengeStreamsListedMax) {}

  /** A stream that would lose events (streams losing none are not listed). */
  add(stream: ScavengeStream): void {
    if (stream.events_removed === 0) return;
    this.#candidates.push(stream);
    if (this.#candidates.length >= 2 * this.max) this.#cut();
  }

  /** The listed streams, largest first. */
  list(): ScavengeStream[] {
    this.#cut();
    return [...this.#candidates];
  }

  #cut(): void {
    this.#candidates.sort(largestFirst);
    if (this.#candidates.length > this.max) this.#candidates.length = this.max;
  }
}

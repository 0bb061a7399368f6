/**
 * Text out of Buffers on the hot read paths (the log engine's records, the gRPC codecs' messages).
 */

/**
 * Buffer's own slicing methods, which `toString(encoding, start, end)` dispatches to; calling
 * them directly saves the dispatch. Present on every Node Buffer since v0.x, but not in
 * @types/node.
 */
export interface SlicingBuffer extends Buffer {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

/** Fields longer than this are decoded without comparing them to the last one. */
const repeatedTextBytesMax = 64;

/**
 * The UTF-8 text of the last field decoded through it, kept with where its bytes were: a page of
 * events mostly repeats a stream id, event type, metadata text ("{}" when none was sent) or
 * creation time, so the same bytes give back the same string instead of a new one per event
 * (fewer allocations, less work for the garbage collector, and "same as the last one" checks
 * further on become pointer comparisons). Only short fields are compared. It keeps a reference
 * to the last buffer, whose bytes the caller must never change.
 */
export class RepeatedText {
  private buf: SlicingBuffer | null = null;
  private start = 0;
  private end = 0;
  private text = "";

  /** The text of buf[start, end). */
  of(buf: SlicingBuffer, start: number, end: number): string {
    const n = end - start;
    const prev = this.buf;
    if (prev !== null && n === this.end - this.start && n <= repeatedTextBytesMax) {
      const prevStart = this.start;
      let i = 0;
      while (i < n && buf[start + i] === prev[prevStart + i]) i++;
      if (i === n) return this.text;
    }
    this.buf = buf;
    this.start = start;
    this.end = end;
    this.text = n === 0 ? "" : buf.utf8Slice(start, end);
    return this.text;
  }
}

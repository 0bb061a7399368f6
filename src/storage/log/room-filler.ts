/**
 * Zero-filled room ahead of the active segment's write position, written in the background.
 *
 * An fdatasync after a write into blocks the file does not have yet must also allocate them and
 * commit that through the filesystem's journal; into blocks already written (and synced) it only
 * writes the data pages. Measured on this project's VM (ext4): ~270 µs against 440–830 µs per
 * fdatasync of a 5–20 KB group (docs/performance-findings.md). So, like PostgreSQL's WAL segments,
 * the room a group lands in is made of real zero blocks: the filler writes zeros in chunks on
 * libuv's thread pool through its own file descriptor, fdatasyncs them, and keeps doing so until
 * it is `aheadBytes` past the engine's bytes (never past the segment's size limit).
 *
 * Invariants:
 * - a zero write never touches the engine's bytes: zeros go only at or past `claimedEnd` (the
 *   end of every write the engine has begun), and the engine, before writing over a zero chunk
 *   still in flight, waits for it (overlapping());
 * - stop() returns only when no zero write or sync is in flight and none will start, and closes
 *   the filler's descriptor: after it, cutting the file cannot be undone by a late zero write;
 * - the filler never decides what is durable: a failed zero write or sync only stops it
 *   (reported once through onStop). Its own descriptor matters for that: Linux reports a
 *   writeback error once to each open file description, so the filler's fdatasync cannot take
 *   an error the engine's own fdatasync must see.
 */
import fs from "node:fs";
import { writeAt } from "./write-at.js";

/** Test hooks on the zero writes (LogFaults.fill, LogFaults.holdFill in segment-store.ts). */
export interface FillFaults {
  /** Before each zero write and each sync of the filler. Return an error to fail it. */
  fill?: (ctx: {
    segment: string;
    step: "write" | "fsync";
    offset: number;
    bytes: number;
  }) => NodeJS.ErrnoException | null;
  /** Before each zero write: it starts only once the returned promise resolves. */
  holdFill?: (ctx: { segment: string; offset: number; bytes: number }) => Promise<void> | null;
}

export interface RoomFillerOptions {
  segment: string;
  filePath: string;
  /** Bytes of one zero write (and sync); chunk ends fall on multiples of it. */
  chunkBytes: number;
  /** How far past the engine's bytes the filler keeps zeroed room. */
  aheadBytes: number;
  /** The segment's size limit: nothing is written past it. */
  cap: number;
  faults: FillFaults;
  /** Told before each zero write that it may make the file reach `end`. */
  onExtend: (end: number) => void;
  /** Told once when the filler stops because a zero write, a sync or an open failed. */
  onStop: (error: unknown) => void;
}

let zeros: Buffer | null = null;

/** A shared buffer of zeros, never written to (every filler reads from it). */
function zeroBuffer(bytes: number): Buffer {
  if (zeros === null || zeros.length < bytes) zeros = Buffer.alloc(bytes);
  return zeros;
}

export class RoomFiller {
  /** The end of the engine's bytes (every write begun); zeros go only past it. */
  private claimedEnd: number;
  /** Zeros were written (or are in flight) up to here; the next chunk starts here or later. */
  private filledTo: number;
  /** The zero write in flight, if any: the engine waits for it before writing over it. */
  private inflight: { start: number; end: number; done: Promise<void> } | null = null;
  /** The fill loop, while it runs. */
  private running: Promise<void> | null = null;
  private stopped = false;
  private fd: number | null = null;

  /** `end`: where the engine's bytes end now (the first chunk starts there). */
  constructor(
    private readonly options: RoomFillerOptions,
    end: number,
  ) {
    this.claimedEnd = end;
    this.filledTo = end;
  }

  /**
   * The zero write in flight when it overlaps [start, end), for the engine to wait on before it
   * writes there; null when the engine may write at once.
   */
  overlapping(start: number, end: number): Promise<void> | null {
    const f = this.inflight;
    return f !== null && start < f.end && f.start < end ? f.done : null;
  }

  /**
   * The engine begins a write ending at `end` (it checked overlapping() first). Starts filling
   * if the zeroed room is short.
   */
  claim(end: number): void {
    if (end > this.claimedEnd) this.claimedEnd = end;
    if (!this.stopped && this.running === null && this.wanted()) {
      this.running = this.fillLoop().finally(() => {
        this.running = null;
        if (this.stopped) this.closeFd();
      });
    }
  }

  /** Stops filling: resolves once nothing is in flight, with the filler's descriptor closed. */
  async stop(): Promise<void> {
    this.stopped = true;
    while (this.running !== null) await this.running;
    this.closeFd();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  private wanted(): boolean {
    return (
      Math.max(this.filledTo, this.claimedEnd) <
      Math.min(this.options.cap, this.claimedEnd + this.options.aheadBytes)
    );
  }

  private async fillLoop(): Promise<void> {
    const { chunkBytes, segment, faults } = this.options;
    while (!this.stopped && this.wanted()) {
      // Behind the engine (it wrote past the zeros): leap a chunk ahead of it, so that it does
      // not write into a chunk in flight and wait; the leaped bytes are sparse room, as before.
      const start = this.filledTo >= this.claimedEnd ? this.filledTo : this.claimedEnd + chunkBytes;
      const end = Math.min(this.options.cap, (Math.floor(start / chunkBytes) + 1) * chunkBytes);
      if (start >= end) break;
      this.filledTo = end;
      this.options.onExtend(end);
      const done = this.writeZeros(start, end);
      this.inflight = { start, end, done };
      try {
        await done;
        // Written: the engine may write over these zeros now (its bytes land after them in the
        // page cache); only the sync is left.
        this.inflight = null;
        if (this.stopped) break;
        const syncFault =
          faults.fill?.({ segment, step: "fsync", offset: start, bytes: end - start }) ?? null;
        if (syncFault) throw syncFault;
        const fd = this.fd!;
        await new Promise<void>((resolve, reject) =>
          fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())),
        );
      } catch (error) {
        this.inflight = null;
        this.fail(error);
        break;
      }
    }
  }

  /** Writes zeros over [start, end); rejects on the first failed step. */
  private async writeZeros(start: number, end: number): Promise<void> {
    const { segment, faults, filePath } = this.options;
    const hold = faults.holdFill?.({ segment, offset: start, bytes: end - start }) ?? null;
    if (hold !== null) await hold;
    if (this.stopped) return;
    const fault = faults.fill?.({ segment, step: "write", offset: start, bytes: end - start }) ?? null;
    if (fault) throw fault;
    this.fd ??= fs.openSync(filePath, "r+");
    const fd = this.fd;
    await writeAt(fd, zeroBuffer(end - start), 0, end - start, start, () => !this.stopped);
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.options.onStop(error);
  }

  private closeFd(): void {
    if (this.fd === null) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      // Already closed: nothing to release.
    }
    this.fd = null;
  }
}

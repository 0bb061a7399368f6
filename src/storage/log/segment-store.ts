/**
 * Segment files and the bounded block cache the read path decodes from.
 *
 * Invariants: only the active (last) segment grows, and only at its end, by the writer; a
 * sealed segment never changes except by scavenge's atomic rename (which opens a new file
 * descriptor and drops its cached blocks). Cached blocks are immutable: a block of the active
 * segment is read only up to the durable end (`size`), and bytes below `size` never change,
 * so a cached block stays correct; when a record ends past the cached part, the block is
 * read again. Reads are synchronous (pread from the page cache), so a reader never sees a
 * half-swapped segment: the swap itself is synchronous too.
 */
import fs from "node:fs";
import path from "node:path";
import { encodeSegmentHeader, RECORD_HEADER_BYTES, SEGMENT_HEADER_BYTES } from "./record-codec.js";
import { assert } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { describeIoError } from "../io-error.js";
import { RoomFiller, type FillFaults } from "./room-filler.js";
import { writeAt } from "./write-at.js";

/** Fault hooks for tests: simulate a failing disk without a real one. */
export interface LogFaults extends FillFaults {
  /** Before each segment write. Return an error to fail it after `partialBytes` were written. */
  write?: (ctx: { segment: string; offset: number; bytes: number }) => {
    error: NodeJS.ErrnoException;
    partialBytes?: number;
  } | null;
  /** Before each fdatasync of a segment. Return an error to fail it. */
  fsync?: (ctx: { segment: string }) => NodeJS.ErrnoException | null;
  /**
   * Before each fdatasync on the thread pool: its result (success, or the error `fsync` gave) is
   * reported only once the returned promise resolves, so a test can hold a sync in flight.
   */
  holdFsync?: (ctx: { segment: string }) => Promise<void> | null;
}

/**
 * The bytes at a record's address cannot be framed as a record (its length field is out of
 * bounds, or the file ends inside it): stored bytes were damaged, not a bug of the caller.
 */
export class DamagedRecordError extends Error {
  constructor(
    readonly segment: string,
    readonly offset: number,
    readonly reason: "length" | "short",
  ) {
    super(`segment ${segment} holds no whole record at ${offset} (${reason})`);
    this.name = "DamagedRecordError";
  }
}

export const SEGMENT_PREFIX = "seg-";
export const SEGMENT_SUFFIX = ".log";

export function segmentFileName(segmentNo: number): string {
  return `${SEGMENT_PREFIX}${String(segmentNo).padStart(10, "0")}${SEGMENT_SUFFIX}`;
}

export function parseSegmentFileName(name: string): number | null {
  const m = /^seg-(\d{10})\.log$/.exec(name);
  return m ? Number(m[1]) : null;
}

export class Segment {
  /** Event records in the segment (for status). */
  records = 0;
  sealed = false;
  constructor(
    readonly segmentNo: number,
    public generation: number,
    readonly basePosition: number,
    readonly name: string,
    readonly filePath: string,
    public fd: number,
    /** End of the valid, durable bytes. */
    public size: number,
    /**
     * Length of the file (at least); past `size` only zeros: room kept by SegmentStore.reserve,
     * sparse or zero-filled by `room`.
     */
    public fileBytes: number = size,
  ) {}
  /** Fills the active segment's room with real zero blocks (room-filler.ts); null until a write. */
  room: RoomFiller | null = null;
}

/**
 * Room kept ahead of the active segment's end. An fdatasync after a write that grows the file
 * must also commit the new file size through the filesystem's journal, and one after a write
 * into blocks the file does not have yet must allocate them and commit that: into blocks already
 * written and synced it only writes the data (measured on ext4, 5–20 KB groups: ~270 µs against
 * 440–830 µs). So the file is extended sparsely PREALLOCATE_BYTES at a time (ftruncate, no disk
 * blocks), and a RoomFiller writes real zeros over the room FILL_AHEAD_BYTES ahead of the
 * engine's bytes, FILL_CHUNK_BYTES at a time, each chunk fdatasync'd, on the thread pool. The
 * room is cut when the segment is sealed and when the engine closes; recovery reads trailing
 * zeros as unused room.
 */
const PREALLOCATE_BYTES = 4 * 1024 * 1024;
const FILL_CHUNK_BYTES = 1024 * 1024;
const FILL_AHEAD_BYTES = 4 * 1024 * 1024;

/** Group writes up to this size are written synchronously (see write()). */
const SYNC_WRITE_BYTES_MAX = 256 * 1024;

const BLOCK_BITS = 16;
const BLOCK_BYTES = 1 << BLOCK_BITS;
/** A cached block's key: segmentNo * KEY_BLOCKS + blockNo (a segment has fewer blocks than this). */
const KEY_BLOCKS = 65536;

function blockKey(segmentNo: number, blockNo: number): number {
  return segmentNo * KEY_BLOCKS + blockNo;
}
/**
 * Records up to this length that cross a block's end are kept as a copy beside the block
 * (Block.span); longer ones are read from the file each time. It bounds the copies to 1/8 of
 * the cache's bytes.
 */
const SPAN_BYTES_MAX = BLOCK_BYTES / 8;

export interface Block {
  buf: Buffer;
  valid: number;
  /**
   * The records whose checksum the engine has checked on these bytes since the block was read
   * from its file (LogReader.readChecked), one bit per 64 bytes of the block (a record is at
   * least RECORD_HEADER_BYTES long, so no two records start in one 64-byte span); null until the
   * first. A cached block's bytes below `valid` never change, so a record checked once needs no
   * second check while its block stays cached; a block read again starts with none. (A Set of
   * offsets cost a hash lookup per event served: 5% of a 100-event read's server CPU.)
   */
  checked: Uint32Array | null;
  /**
   * A copy of the record that starts in this block and crosses its end (at most one does),
   * put together from this block and the next, so that reading it again costs no read from the
   * file; null until it is first read. It is a Block of its own (the record at its offset 0), so
   * its checksum is checked once as for a record inside a block. It goes with this block (evicted,
   * dropped or swapped by scavenge together), and bytes below the durable end never change.
   */
  span: Block | null;
  /** Where in this block the record held in `span` starts. */
  spanAt: number;
}

assert(RECORD_HEADER_BYTES >= 64, "Block.checked keeps one bit per 64 bytes");

/** Whether the record at in-block offset `o` of `block` was checked (Block.checked). */
export function isRecordChecked(block: Block, o: number): boolean {
  const bits = block.checked;
  return bits !== null && ((bits[o >>> 11]! >>> ((o >>> 6) & 31)) & 1) === 1;
}

/** Notes that the record at in-block offset `o` of `block` passed its checksum. */
export function markRecordChecked(block: Block, o: number): void {
  const bits = (block.checked ??= new Uint32Array(BLOCK_BYTES >>> 11));
  bits[o >>> 11]! |= 1 << ((o >>> 6) & 31);
}

/** Reads into the whole of `buf` from `position` of the file; fewer bytes only at its end. */
export function readFully(fd: number, buf: Buffer, position: number): number {
  let got = 0;
  while (got < buf.length) {
    const n = fs.readSync(fd, buf, got, buf.length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

export function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export class SegmentStore {
  readonly segments = new Map<number, Segment>();
  private readonly cache = new Map<number, Block>();
  private readonly cacheBlocksMax: number;

  constructor(
    readonly dir: string,
    cacheBytes: number,
    private readonly recordBytesMax: number,
    private readonly faults: LogFaults = {},
    private readonly log: Logger | null = null,
  ) {
    this.cacheBlocksMax = Math.max(4, Math.floor(cacheBytes / BLOCK_BYTES));
  }

  ordered(): Segment[] {
    return [...this.segments.values()].sort((a, b) => a.segmentNo - b.segmentNo);
  }

  get active(): Segment | undefined {
    let last: Segment | undefined;
    for (const s of this.segments.values()) if (!last || s.segmentNo > last.segmentNo) last = s;
    return last;
  }

  /** Creates a new segment file with its header, durable (file and directory fsync'd). */
  createSegment(segmentNo: number, basePosition: number, generation = 1): Segment {
    const name = segmentFileName(segmentNo);
    const filePath = path.join(this.dir, name);
    const fd = fs.openSync(filePath, "wx+");
    let phase: "write" | "fsync" = "write";
    try {
      const header = encodeSegmentHeader({ segmentNo, generation, basePosition });
      const writeFault = this.faults.write?.({ segment: name, offset: 0, bytes: header.length }) ?? null;
      if (writeFault) throw writeFault.error;
      if (fs.writeSync(fd, header, 0, header.length, 0) !== header.length) {
        throw Object.assign(new Error("short write of a segment header"), { code: "ENOSPC" });
      }
      phase = "fsync";
      const fault = this.faults.fsync?.({ segment: name }) ?? null;
      if (fault) throw fault;
      fs.fdatasyncSync(fd);
      fsyncDirectory(this.dir);
    } catch (error) {
      // Leave no half-made segment behind: recovery would otherwise have to guess.
      fs.closeSync(fd);
      try {
        fs.unlinkSync(filePath);
      } catch {
        // Already gone.
      }
      throw Object.assign(error as Error, { segmentPhase: phase });
    }
    const segment = new Segment(
      segmentNo,
      generation,
      basePosition,
      name,
      filePath,
      fd,
      SEGMENT_HEADER_BYTES,
    );
    this.segments.set(segmentNo, segment);
    return segment;
  }

  add(segment: Segment): void {
    this.segments.set(segment.segmentNo, segment);
  }

  /**
   * Makes the active segment's file long enough for a write ending at `end`, in sparse steps of
   * PREALLOCATE_BYTES (never past `cap`, the segment's size limit), and starts its room filler.
   * Only an optimisation: when the extension fails, the write itself grows the file.
   */
  reserve(segment: Segment, end: number, cap: number): void {
    segment.room ??= this.roomFiller(segment, end, cap);
    if (end <= segment.fileBytes) return;
    const target = Math.max(end, Math.min(cap, end + PREALLOCATE_BYTES));
    try {
      fs.ftruncateSync(segment.fd, target);
      segment.fileBytes = target;
    } catch {
      // The write below extends the file as it goes.
    }
  }

  private roomFiller(segment: Segment, end: number, cap: number): RoomFiller {
    return new RoomFiller(
      {
        segment: segment.name,
        filePath: segment.filePath,
        chunkBytes: FILL_CHUNK_BYTES,
        aheadBytes: FILL_AHEAD_BYTES,
        cap,
        faults: this.faults,
        onExtend: (to) => {
          if (to > segment.fileBytes) segment.fileBytes = to;
        },
        onStop: (error) =>
          this.log?.warn(
            "stopped writing zeros ahead of the active segment; appends go on, with slower fdatasyncs",
            {
              segment: segment.name,
              error: describeIoError(error),
            },
          ),
      },
      end,
    );
  }

  /**
   * Cuts the room after the durable end (sealing a segment, closing the engine), once the room
   * filler has stopped: a zero write landing after the cut would extend the file again.
   */
  async trimRoom(segment: Segment): Promise<void> {
    await segment.room?.stop();
    if (segment.fileBytes <= segment.size) return;
    fs.ftruncateSync(segment.fd, segment.size);
    fs.fdatasyncSync(segment.fd);
    segment.fileBytes = segment.size;
  }

  /** Stops every room filler (closing the engine); resolves when no zero write is in flight. */
  async stopRoomFill(): Promise<void> {
    const stopping: Promise<void>[] = [];
    for (const s of this.segments.values()) if (s.room !== null) stopping.push(s.room.stop());
    await Promise.all(stopping);
  }

  /**
   * Writes at the end of the active segment, honouring the fault hooks. Waits first for a zero
   * write in flight over the same bytes (RoomFiller.overlapping): the zeros must land first.
   */
  write(segment: Segment, buf: Buffer, length: number, offset: number): Promise<void> {
    const room = segment.room;
    if (room !== null) {
      const busy = room.overlapping(offset, offset + length);
      if (busy !== null) {
        const again = (): Promise<void> => this.write(segment, buf, length, offset);
        return busy.then(again, again);
      }
      room.claim(offset + length);
    }
    if (offset + length > segment.fileBytes) segment.fileBytes = offset + length;
    const fault = this.faults.write?.({ segment: segment.name, offset, bytes: length }) ?? null;
    if (fault) {
      const partial = Math.min(fault.partialBytes ?? 0, length);
      if (partial > 0) fs.writeSync(segment.fd, buf, 0, partial, offset);
      return this.writeFailed(segment, fault.error);
    }
    if (length <= SYNC_WRITE_BYTES_MAX) {
      // A small write only copies into the page cache (microseconds): doing it here saves a
      // thread-pool round trip and an event-loop wake-up per group. The fdatasync stays async.
      try {
        let done = 0;
        while (done < length) done += fs.writeSync(segment.fd, buf, done, length - done, offset + done);
        return Promise.resolve();
      } catch (error) {
        return this.writeFailed(segment, error);
      }
    }
    return writeAt(segment.fd, buf, 0, length, offset).catch((error: unknown) =>
      this.writeFailed(segment, error),
    );
  }

  /**
   * A failed write: the room filler of the segment stops for good (the disk is likely full),
   * and only then is the failure reported, so the caller's cut (truncateTo) comes after the
   * last zero write.
   */
  private async writeFailed(segment: Segment, error: unknown): Promise<never> {
    if (segment.room !== null && !segment.room.isStopped) {
      this.log?.debug("a segment write failed: no more zeros are written ahead of it", {
        segment: segment.name,
      });
    }
    await segment.room?.stop();
    throw error instanceof Error ? error : new Error(String(error));
  }

  fdatasync(segment: Segment): Promise<void> {
    const fault = this.faults.fsync?.({ segment: segment.name }) ?? null;
    const hold = this.faults.holdFsync?.({ segment: segment.name }) ?? null;
    const sync = (): Promise<void> =>
      fault
        ? Promise.reject(fault)
        : new Promise((resolve, reject) => {
            fs.fdatasync(segment.fd, (error) => (error ? reject(error) : resolve()));
          });
    return hold === null ? sync() : hold.then(sync);
  }

  /** fdatasync on the calling thread (see limits.inlineFsyncMicrosMax), honouring the fault hook. */
  fdatasyncNow(segment: Segment): void {
    const fault = this.faults.fsync?.({ segment: segment.name }) ?? null;
    if (fault) throw fault;
    fs.fdatasyncSync(segment.fd);
  }

  /** Cuts bytes written past the durable end (after a failed write). */
  truncateTo(segment: Segment, size: number): void {
    fs.ftruncateSync(segment.fd, size);
    fs.fdatasyncSync(segment.fd);
    segment.fileBytes = size;
    this.dropCachedBlocks(segment.segmentNo, size);
  }

  /** Drops cached blocks of a segment from byte `from` on (all of them by default). */
  dropCachedBlocks(segmentNo: number, from = 0): void {
    const firstBlock = from >>> BLOCK_BITS;
    for (const key of [...this.cache.keys()]) {
      if (Math.floor(key / KEY_BLOCKS) === segmentNo && key % KEY_BLOCKS >= firstBlock)
        this.cache.delete(key);
    }
  }

  private loadBlock(segment: Segment, blockNo: number): Block {
    const start = blockNo * BLOCK_BYTES;
    const want = Math.min(BLOCK_BYTES, segment.size - start);
    const buf = Buffer.allocUnsafeSlow(BLOCK_BYTES);
    let valid = 0;
    while (valid < want) {
      const n = fs.readSync(segment.fd, buf, valid, want - valid, start + valid);
      if (n === 0) break;
      valid += n;
    }
    const block: Block = { buf, valid, checked: null, span: null, spanAt: 0 };
    if (this.cache.size >= this.cacheBlocksMax) {
      // FIFO eviction: cheap, and good enough for a log read mostly forward.
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(blockKey(segment.segmentNo, blockNo), block);
    return block;
  }

  /**
   * Copies bytes just made durable at the end of the active segment into its cached tail block,
   * so readers of new events (subscriptions) find them without reading the file again. Only a
   * block whose valid part ends exactly where the write began is extended; bytes below `valid`
   * never change, so readers holding the block are unaffected.
   */
  noteWritten(segment: Segment, offset: number, buf: Buffer, length: number): void {
    let at = 0;
    while (at < length) {
      const position = offset + at;
      const blockNo = position >>> BLOCK_BITS;
      const block = this.cache.get(blockKey(segment.segmentNo, blockNo));
      const inBlock = position - blockNo * BLOCK_BYTES;
      const n = Math.min(length - at, BLOCK_BYTES - inBlock);
      if (!block || block.valid !== inBlock) return;
      buf.copy(block.buf, inBlock, at, at + n);
      block.valid = inBlock + n;
      at += n;
    }
  }

  /** Where the record returned by the last readRecord starts in its buffer. */
  recordOffset = 0;

  /** The cached block the last readRecord returned, or null when it read the record apart. */
  recordBlock: Block | null = null;

  /**
   * Returns a buffer holding the whole record at (`segmentNo`, `offset`); it starts at
   * `recordOffset` (set by this call, so no tuple is allocated per record on the read path).
   * The buffer must not be modified. The store never modifies it below the record's end either
   * (a cached block only grows past its valid end; a block read again, dropped or swapped by
   * scavenge is a new buffer; readExact's buffer is the caller's), so a caller may keep it:
   * StoredEventRecord (src/contract/stored-event-record.ts) does.
   */
  readRecord(segmentNo: number, offset: number): Buffer {
    const segment = this.segments.get(segmentNo);
    if (!segment) throw new Error(`segment ${segmentNo} is not open`);
    const blockNo = offset >>> BLOCK_BITS;
    const inBlock = offset - blockNo * BLOCK_BYTES;
    let block = this.cache.get(blockKey(segmentNo, blockNo));
    if (!block || inBlock + 4 > block.valid) block = this.loadBlock(segment, blockNo);
    if (inBlock + 4 <= block.valid) {
      const length = block.buf.readUInt32LE(inBlock);
      if (length < RECORD_HEADER_BYTES || length > this.recordBytesMax) {
        throw new DamagedRecordError(segment.name, offset, "length");
      }
      this.recordOffset = inBlock;
      this.recordBlock = block;
      if (inBlock + length <= block.valid) return block.buf;
      if (inBlock + length <= BLOCK_BYTES) {
        block = this.loadBlock(segment, blockNo);
        this.recordBlock = block;
        if (inBlock + length <= block.valid) return block.buf;
      } else {
        const span = this.spanningRecord(segment, block, blockNo, inBlock, length);
        if (span !== null) {
          this.recordOffset = 0;
          this.recordBlock = span;
          return span.buf;
        }
      }
      this.recordOffset = 0;
      this.recordBlock = null;
      return this.readExact(segment, offset, length);
    }
    this.recordBlock = null;
    const length = this.readExact(segment, offset, 4).readUInt32LE(0);
    if (length < RECORD_HEADER_BYTES || length > this.recordBytesMax) {
      throw new DamagedRecordError(segment.name, offset, "length");
    }
    this.recordOffset = 0;
    return this.readExact(segment, offset, length);
  }

  /**
   * The record at `inBlock` of `block` that crosses the block's end, from the block's span (or
   * put together from the cached blocks, and kept as its span); null when it is too long to keep
   * or the bytes are not all there (the caller then reads the file, which finds a short record).
   */
  private spanningRecord(
    segment: Segment,
    block: Block,
    blockNo: number,
    inBlock: number,
    length: number,
  ): Block | null {
    const kept = block.span;
    if (kept !== null && block.spanAt === inBlock) return kept;
    if (length > SPAN_BYTES_MAX) return null;
    const first = block.valid === BLOCK_BYTES ? block : this.loadBlock(segment, blockNo);
    if (first.valid !== BLOCK_BYTES) return null;
    const rest = inBlock + length - BLOCK_BYTES;
    let next = this.cache.get(blockKey(segment.segmentNo, blockNo + 1));
    if (!next || next.valid < rest) next = this.loadBlock(segment, blockNo + 1);
    if (next.valid < rest) return null;
    const buf = Buffer.allocUnsafeSlow(length);
    first.buf.copy(buf, 0, inBlock, BLOCK_BYTES);
    next.buf.copy(buf, BLOCK_BYTES - inBlock, 0, rest);
    const span: Block = { buf, valid: length, checked: null, span: null, spanAt: 0 };
    first.span = span;
    first.spanAt = inBlock;
    return span;
  }

  private readExact(segment: Segment, offset: number, length: number): Buffer {
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = fs.readSync(segment.fd, buf, done, length - done, offset + done);
      if (n === 0) throw new DamagedRecordError(segment.name, offset, "short");
      done += n;
    }
    return buf;
  }

  closeAll(): void {
    for (const s of this.segments.values()) {
      // Normally stopped already (stopRoomFill, trimRoom); its own descriptor closes when it does.
      void s.room?.stop();
      try {
        fs.closeSync(s.fd);
      } catch {
        // Already closed: nothing to release.
      }
    }
    this.segments.clear();
    this.cache.clear();
  }
}

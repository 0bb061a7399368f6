/**
 * Where a group's fdatasync runs: on the event loop or on libuv's thread pool.
 *
 * On a fast disk it runs on the event loop, as Redis does with appendfsync always: a
 * thread-pool round trip costs two thread wake-ups (hand the job to a worker, wake the loop
 * when it is done), which on a virtual machine take about as long as the fdatasync itself,
 * and the requests that arrive meanwhile simply form the next group. A slow disk would stall
 * reads and request parsing for each whole fdatasync, so once the average of the timed
 * fdatasyncs passes `inlineMicrosMax` they go to the thread pool, with one group in every
 * `probeEvery` still synced (and timed) on the event loop to notice when the disk is fast
 * again. Thread-pool syncs are not timed: their time would include the event loop's own delays.
 */
export class FsyncPlacement {
  /** Moving average (weight 1/8) of the fdatasyncs timed on the event loop, in µs. */
  private averageMicros = 0;
  private sinceLastTimed = 0;

  constructor(
    private readonly inlineMicrosMax: number,
    private readonly probeEvery = 32,
  ) {}

  /** Whether the next group's fdatasync runs on the event loop (then report it to timed()). */
  inline(): boolean {
    if (this.averageMicros <= this.inlineMicrosMax) return true;
    return ++this.sinceLastTimed >= this.probeEvery;
  }

  /** The duration of an fdatasync that ran on the event loop. */
  timed(micros: number): void {
    this.sinceLastTimed = 0;
    this.averageMicros += (micros - this.averageMicros) / 8;
  }
}

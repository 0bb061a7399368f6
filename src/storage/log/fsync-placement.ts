/**
 * Where a group's fdatasync runs: on the event loop or on libuv's thread pool.
 *
 * On a fast disk it runs on the event loop, as Redis does with appendfsync always: a
 * thread-pool round trip costs two thread wake-ups (hand the job to a worker, wake the loop
 * when it is done), which on a virtual machine take about as long as the fdatasync itself,
 * and the requests that arrive meanwhile simply form the next group. A slow disk would stall
 * reads and request parsing for each whole fdatasync, so once the median of the last
 * `samples` timed fdatasyncs passes `inlineMicrosMax` they go to the thread pool, with one
 * group in every `probeEvery` still synced (and timed) on the event loop to notice when the
 * disk is fast again. Thread-pool syncs are not timed: their time would include the event
 * loop's own delays.
 *
 * The median, not a mean: the virtual disks measured here answer most syncs in 0.3-0.5 ms with
 * a few of 2-8 ms among them, and a moving average kept crossing 1 ms on those spikes, sending
 * most syncs to the thread pool, where each took longer (docs/performance-findings.md, "Where
 * the fdatasync runs, by the median"). A disk is slow when most of its syncs are.
 */
export class FsyncPlacement {
  /** The last `samples` timed fdatasyncs, in µs (a ring). */
  private readonly recent: Float64Array;
  private next = 0;
  private filled = 0;
  private onLoop = true;
  private sinceLastTimed = 0;

  constructor(
    private readonly inlineMicrosMax: number,
    private readonly probeEvery = 32,
    samples = 15,
  ) {
    this.recent = new Float64Array(samples);
  }

  /** Whether the next group's fdatasync runs on the event loop (then report it to timed()). */
  inline(): boolean {
    // A bound of 0 keeps every sync on the thread pool (tests and benchmarks of the pipeline).
    if (this.inlineMicrosMax <= 0) return false;
    if (this.onLoop) return true;
    return ++this.sinceLastTimed >= this.probeEvery;
  }

  /** The duration of an fdatasync that ran on the event loop. */
  timed(micros: number): void {
    this.sinceLastTimed = 0;
    this.recent[this.next] = micros;
    this.next = (this.next + 1) % this.recent.length;
    if (this.filled < this.recent.length) this.filled++;
    const sorted = this.recent.slice(0, this.filled).sort();
    this.onLoop = sorted[(this.filled - 1) >> 1]! <= this.inlineMicrosMax;
  }
}

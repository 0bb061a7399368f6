/**
 * Runs tasks at most one per turn of the event loop, in arrival order: the first task of a turn
 * runs at once, later ones wait for later turns.
 *
 * Why: node:http2 sends what a turn wrote only once the turn is over. When a client's reads
 * arrive together (16 unary Reads in one socket read), running them all in one turn holds every
 * answer back until the last read is done, and the client, which decodes answers while the
 * server reads, waits idle meanwhile: the two take turns instead of overlapping. One read per
 * turn lets each answer leave as soon as it is ready (docs/rpc.md, "Reads leave one per turn").
 * Appends do not go through this: the appends of one turn share a group commit.
 */
export class TurnQueue {
  private waiting: (() => void)[] = [];
  private head = 0;
  /** A task ran in the current turn: later ones wait. */
  private busy = false;
  private scheduled = false;
  private readonly next = (): void => {
    this.scheduled = false;
    if (this.head === this.waiting.length) {
      this.busy = false;
      this.waiting = [];
      this.head = 0;
      return;
    }
    const task = this.waiting[this.head] as () => void;
    this.waiting[this.head++] = noop;
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    this.schedule();
    task();
  };

  /** Runs `task` now if no task ran in this turn, else after those waiting, in a later turn. */
  run(task: () => void): void {
    this.schedule();
    if (this.busy) {
      this.waiting.push(task);
      return;
    }
    this.busy = true;
    task();
  }

  /** Tasks not run yet. */
  get length(): number {
    return this.waiting.length - this.head;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Scheduled from a socket read, it runs at the end of this turn; from itself, in the next.
    setImmediate(this.next);
  }
}

function noop(): void {}

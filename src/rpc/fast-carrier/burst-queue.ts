/**
 * Runs deferred tasks at the end of the event-loop turn, in arrival order; when `splitMin` or
 * more are waiting, only the first half of them, the rest at the end of the next turn (halved
 * again while still as many).
 *
 * Why (docs/rpc.md, "Appends that arrive together"): a closed-loop burst run whole is committed
 * and answered at once while its clients idle, then the server idles while they turn the answers
 * around. Run in halves it reaches the log writer over several turns, and the clients turn most
 * answers around while the rest is committed: the two overlap. Small bursts stay whole (a split
 * costs an extra fdatasync). Each turn runs at least half of what waits, so a backlog of n is
 * gone in about log2(n) turns: an open-loop load is not capped (BENCHMARKS.md, "Burst and turn
 * queues on an open-loop load").
 *
 * Invariants: every task runs exactly once, in the order it was deferred; a task deferred while
 * others wait runs after them. Tasks must not throw (the fast carrier's calls catch their own).
 */
export class BurstQueue {
  private waiting: (() => void)[] = [];
  private scheduled = false;
  private readonly runTurn = (): void => {
    this.scheduled = false;
    const tasks = this.waiting;
    const count = tasks.length >= this.splitMin ? Math.ceil(tasks.length / 2) : tasks.length;
    this.waiting = tasks.slice(count);
    // Scheduled before the tasks run, so the rest goes ahead of anything they defer.
    if (this.waiting.length > 0) this.schedule();
    for (let i = 0; i < count; i++) (tasks[i] as () => void)();
  };

  /** `splitMin`: the fewest waiting tasks that run in halves (at least 2; Infinity: never split). */
  constructor(private readonly splitMin: number) {
    if (!(splitMin >= 2)) throw new RangeError(`a BurstQueue splits from 2 tasks on, not ${splitMin}`);
  }

  /** Runs `task` at the end of this turn, after those already waiting (or in a later turn). */
  defer(task: () => void): void {
    this.waiting.push(task);
    this.schedule();
  }

  get length(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.runTurn);
  }
}

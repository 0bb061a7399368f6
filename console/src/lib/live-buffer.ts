/**
 * The rows of a live tail, bounded, and what arrives while the operator is reading.
 *
 * The tail pauses for as long as any reason holds (the operator scrolled away from the newest
 * row, selected text in it, opened an event, or pressed pause): rows on screen then stay exactly
 * as they are, and arriving events wait, counted ("N new events"). When the last reason goes,
 * the waiting events join the rows in arrival order.
 *
 * Bounds: at most `rowsMax` rows, oldest dropped first; at most `rowsMax` waiting events too,
 * since no more than that many could be on screen after a resume. `newCount` counts every
 * arrival while paused, also those dropped.
 */

export type PauseReason = "scrolled" | "selection" | "event-open" | "operator";

export class LiveBuffer<T> {
  private shown: T[] = [];
  private waiting: T[] = [];
  private readonly reasons = new Set<PauseReason>();
  private arrivedWhilePaused = 0;
  private droppedTotal = 0;

  constructor(readonly rowsMax: number) {
    if (!Number.isInteger(rowsMax) || rowsMax < 1) throw new RangeError("rowsMax must be a positive integer");
  }

  get rows(): readonly T[] {
    return this.shown;
  }

  get paused(): boolean {
    return this.reasons.size > 0;
  }

  get pauseReasons(): readonly PauseReason[] {
    return [...this.reasons];
  }

  /** Events that arrived since the tail paused. */
  get newCount(): number {
    return this.arrivedWhilePaused;
  }

  /** Events dropped (oldest first) to keep the bounds, since the tail started. */
  get dropped(): number {
    return this.droppedTotal;
  }

  push(item: T): void {
    if (this.paused) {
      this.arrivedWhilePaused += 1;
      this.waiting.push(item);
      const excess = this.waiting.length - this.rowsMax;
      if (excess > 0) {
        this.waiting.splice(0, excess);
        this.droppedTotal += excess;
      }
      return;
    }
    this.shown.push(item);
    this.trim();
  }

  /** Adds a reason to pause; true when this paused a running tail. */
  pause(reason: PauseReason): boolean {
    const was = this.paused;
    this.reasons.add(reason);
    return !was;
  }

  /** Removes a reason; true when this resumed the tail (the waiting rows are now shown). */
  resume(reason: PauseReason): boolean {
    if (!this.reasons.delete(reason) || this.paused) return false;
    this.flush();
    return true;
  }

  /** Drops every reason (the "show N new events" button). */
  resumeAll(): void {
    this.reasons.clear();
    this.flush();
  }

  clear(): void {
    this.shown = [];
    this.waiting = [];
    this.arrivedWhilePaused = 0;
  }

  private flush(): void {
    this.shown.push(...this.waiting);
    this.waiting = [];
    this.arrivedWhilePaused = 0;
    this.trim();
  }

  private trim(): void {
    const excess = this.shown.length - this.rowsMax;
    if (excess > 0) {
      this.shown.splice(0, excess);
      this.droppedTotal += excess;
    }
  }
}

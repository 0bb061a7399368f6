/**
 * Corks a writable for the rest of the current tick, so that what is written in one tick (a
 * group's answers, a page of events, the frames of several calls) leaves in one socket write
 * instead of one write per message. One per writable; call `hold()` before each write.
 */
export class TickCork {
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.target.uncork();
  };

  constructor(private readonly target: { cork(): void; uncork(): void }) {}

  /** Corks now, once per tick, and uncorks on `process.nextTick` (after this tick's writes). */
  hold(): void {
    if (this.corked) return;
    this.corked = true;
    this.target.cork();
    process.nextTick(this.uncork);
  }
}

/**
 * A timer for a moment that may lie months ahead (a token's expiry): a Node timer holds at most
 * `timerMsMax` (~24.8 days, past it it fires after 1 ms), so a longer wait is re-armed each time
 * it fires early. Unreferenced: a pending expiry never holds the process open.
 */

/** The longest delay a Node timer takes (~24.8 days). */
export const timerMsMax = 2 ** 31 - 1;

export class ExpiryTimer {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** Calls `expired` once `now()` reaches `atMs` (replacing any earlier arming). */
  arm(atMs: number, expired: () => void): void {
    this.clear();
    const waitMs = Math.min(Math.max(0, atMs - this.now()), timerMsMax);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.now() < atMs) this.arm(atMs, expired);
      else expired();
    }, waitMs);
    this.timer.unref();
  }

  clear(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

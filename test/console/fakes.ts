/**
 * Stand-ins for the browser's timers and WebSocket, for the unit tests of the console's plain
 * modules (console/src/lib): time moves only when a test says so.
 */
import type { SocketHandlers, Timers } from "../../console/src/lib/live-subscription.js";

export class ManualTimers implements Timers {
  private nowMs = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { atMs: number; callback: () => void }>();

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.set(id, { atMs: this.nowMs + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Delays of the timers waiting now, soonest first. */
  get waiting(): number[] {
    return [...this.pending.values()].map((t) => t.atMs - this.nowMs).sort((a, b) => a - b);
  }

  /** Moves time on by `ms`, running each timer that comes due, in order. */
  advance(ms: number): void {
    const until = this.nowMs + ms;
    for (;;) {
      const due = [...this.pending.entries()]
        .filter(([, t]) => t.atMs <= until)
        .sort((a, b) => a[1].atMs - b[1].atMs)[0];
      if (due === undefined) break;
      this.pending.delete(due[0]);
      this.nowMs = due[1].atMs;
      due[1].callback();
    }
    this.nowMs = until;
  }
}

export class FakeSocket {
  readonly sent: unknown[] = [];
  closedWith: number | null = null;

  constructor(
    readonly url: string,
    private readonly handlers: SocketHandlers,
  ) {}

  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }

  close(code?: number): void {
    this.closedWith = code ?? 1005;
  }

  /** What the server does: */
  open(): void {
    this.handlers.open();
  }

  receive(message: unknown): void {
    this.handlers.message(JSON.stringify(message));
  }

  drop(code: number): void {
    this.handlers.close(code, "");
  }
}

/** Waits for promise callbacks queued so far to run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

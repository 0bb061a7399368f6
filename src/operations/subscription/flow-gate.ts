/**
 * Backpressure for one client connection (a WebSocket) or one call (a gRPC stream): a gate
 * that is open while the client keeps up and closed while its send buffer is past the bound.
 *
 * Invariants:
 * - subscriptions send only while the gate is open; a closed gate makes them wait and later
 *   read again from storage, so the server never buffers more than the bound plus one event;
 * - a gate that stays closed longer than `stallMsMax` calls `onStall` once (the transport then
 *   disconnects the client); reopening before that clears the timer;
 * - after `dispose()` every waiter is released and the gate never blocks again (the
 *   subscriptions then see that they are closed).
 */

export interface FlowGateOptions {
  /**
   * Milliseconds the gate may stay closed before onStall is called. Default
   * limits.subscriberStallMsMax (30000). A low value disconnects clients on slow links.
   */
  stallMsMax: number;
  onStall: () => void;
}

export class FlowGate {
  private blocked = false;
  private disposed = false;
  private waiters: (() => void)[] = [];
  private stallTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: FlowGateOptions) {}

  isOpen(): boolean {
    return !this.blocked;
  }

  /** null when open; otherwise a promise that resolves once the gate opens or is disposed. */
  whenOpen(): Promise<void> | null {
    if (!this.blocked) return null;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  block(): void {
    if (this.blocked || this.disposed) return;
    this.blocked = true;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null;
      if (this.blocked && !this.disposed) this.options.onStall();
    }, this.options.stallMsMax);
    this.stallTimer.unref();
  }

  unblock(): void {
    if (!this.blocked) return;
    this.blocked = false;
    if (this.stallTimer !== null) clearTimeout(this.stallTimer);
    this.stallTimer = null;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  dispose(): void {
    if (!this.disposed) this.onDisposed?.();
    this.disposed = true;
    this.unblock();
  }

  /** Called once by dispose (ByteWindow's hook: its bytes leave the process-wide count). */
  onDisposed: (() => void) | null = null;
}

/** Bytes every ByteWindow holds now, for the metrics (ess_subscription_buffered_bytes). */
let bufferedBytesTotal = 0;

export function subscriptionBufferedBytes(): number {
  return bufferedBytesTotal;
}

/**
 * A FlowGate driven by byte counts, for transports that report when each write has left the
 * process (the `ws` send callback, grpc-js's write callback): bytes are added when a message is
 * queued and released when its callback fires. The gate closes past `bytesMax` and opens again
 * below half of it, so a client near the bound does not flap between paused and running on
 * every message.
 */
export class ByteWindow {
  private queuedBytes = 0;

  private counted = true;

  constructor(
    readonly gate: FlowGate,
    private readonly bytesMax: number,
  ) {
    // Writes of a connection or call that has ended may never call back: what they held stops
    // counting when its gate is disposed.
    gate.onDisposed = () => {
      if (this.counted) bufferedBytesTotal -= this.queuedBytes;
      this.counted = false;
    };
  }

  /** Counts a queued message; returns false when the client is now past the bound. */
  add(bytes: number): boolean {
    if (this.counted) bufferedBytesTotal += bytes;
    this.queuedBytes += bytes;
    if (this.queuedBytes > this.bytesMax) this.gate.block();
    return this.gate.isOpen();
  }

  release(bytes: number): void {
    if (this.counted) bufferedBytesTotal -= bytes;
    this.queuedBytes -= bytes;
    if (this.queuedBytes <= this.bytesMax / 2) this.gate.unblock();
  }

  get bytes(): number {
    return this.queuedBytes;
  }
}

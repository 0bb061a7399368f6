/**
 * The memory one client connection makes the server hold with unary reads (Streams.Read and
 * ReadAll), and the reads that wait for it to go down. A client may send reads without taking
 * their answers; each answer can be a page of up to limits.readPageBytesMax, and HTTP/2 keeps
 * it until the client's flow-control window lets it out.
 *
 * Invariants:
 * - a read runs only once admitted. Admitting it reserves `reserveBytes` (a full page), because
 *   its answer's size is known only once it has run; when the answer is ready the reservation
 *   becomes the answer's weight, and it goes back when the call's HTTP/2 stream closes (the
 *   answer and status written to the socket, or the call cancelled, or the connection gone);
 * - reads are admitted while the connection holds less than `bytesMax`, in arrival order; the
 *   others wait and are admitted as bytes go back. An answer weighs at most a page, so the
 *   connection holds less than `bytesMax + reserveBytes`, however many reads it sends and
 *   whether or not it reads answers;
 * - a read whose call ended while it waited is never run, and leaves the queue when it ends, so
 *   the queue holds at most one read per open stream of the connection. Waiting reads start at
 *   the end of the turn in which room came back, not inside the close that gave it back: a
 *   client that cancels its calls sends their RST_STREAMs together, and the waiting ones' must
 *   be seen before they would run.
 */

/**
 * What the budget watches of a read's call: its HTTP/2 stream (a node:http2 stream is one), or
 * what stands for it where the carrier has none in reach (../grpc-js-carrier.ts). It closes once
 * the answer and status are written, the call is cancelled, or the connection is gone.
 */
export interface BudgetedStream {
  readonly closed: boolean;
  readonly destroyed: boolean;
  once(event: "close", listener: () => void): unknown;
}

/** One admitted read's share of its connection's budget. */
export class ReadGrant {
  private released = false;

  constructor(
    private readonly budget: ConnectionReadBudget,
    /** Bytes this read holds: its reservation, then its answer's weight. */
    private bytes: number,
  ) {}

  /** The read's answer weighs `bytes` (0 for an error) until its stream closes. */
  settle(bytes: number): void {
    if (this.released) return;
    const deltaBytes = bytes - this.bytes;
    this.bytes = bytes;
    this.budget.changeHeld(deltaBytes);
  }

  /** The call's stream closed: what the read held goes back. */
  release(): void {
    if (this.released) return;
    this.released = true;
    const heldBytes = this.bytes;
    this.bytes = 0;
    this.budget.changeHeld(-heldBytes);
  }
}

interface WaitingRead {
  stream: BudgetedStream;
  run: (grant: ReadGrant) => void;
}

export class ConnectionReadBudget {
  /** Reserved and answer bytes of the reads admitted and not yet released. */
  private heldBytes = 0;
  /** Reads of open streams, at most limits.rpcConnectionStreamsMax. */
  private readonly waiting: WaitingRead[] = [];
  /** startWaiting is due at the end of this turn. */
  private startScheduled = false;
  private readonly startWaiting = (): void => {
    this.startScheduled = false;
    while (this.heldBytes < this.bytesMax && this.waiting.length > 0) this.start(this.waiting.shift()!);
  };

  constructor(
    private readonly bytesMax: number,
    private readonly reserveBytes: number,
  ) {}

  /**
   * Runs `run` for the read on `stream` once the connection has room: at once when it has and
   * no read waits before it, else at the end of the turn in which bytes went back. Not at all
   * when the stream has closed by then.
   */
  admit(stream: BudgetedStream, run: (grant: ReadGrant) => void): void {
    const read = { stream, run };
    if (this.waiting.length === 0 && this.heldBytes < this.bytesMax) {
      this.start(read);
      return;
    }
    this.waiting.push(read);
    // A client may reset waiting calls and open new ones: a closed one must not stay queued.
    stream.once("close", () => {
      const index = this.waiting.indexOf(read);
      if (index !== -1) this.waiting.splice(index, 1);
    });
  }

  /** Bytes held now (for tests and diagnostics). */
  get held(): number {
    return this.heldBytes;
  }

  /** Reads waiting for room. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** For ReadGrant: what the connection holds changed by `deltaBytes`. */
  changeHeld(deltaBytes: number): void {
    this.heldBytes += deltaBytes;
    if (this.startScheduled || this.heldBytes >= this.bytesMax || this.waiting.length === 0) return;
    this.startScheduled = true;
    setImmediate(this.startWaiting);
  }

  private start(read: WaitingRead): void {
    const { stream } = read;
    if (stream.closed || stream.destroyed) return;
    const grant = new ReadGrant(this, this.reserveBytes);
    this.heldBytes += this.reserveBytes;
    stream.once("close", () => grant.release());
    read.run(grant);
  }
}

/**
 * The budgets of the server's connections, by peer (`address:port`, which names one TCP
 * connection while it is open), shared by the carriers so that a connection's reads count
 * against one budget whichever carrier serves them. A budget lives while something holds it (a
 * connection, a call); when the last holder lets go it holds no bytes and no waiting read, since
 * each admitted read's call holds it until its stream closes.
 */
export class ConnectionReadBudgets {
  private readonly byPeer = new Map<string, { budget: ConnectionReadBudget; holders: number }>();

  constructor(
    private readonly bytesMax: number,
    private readonly reserveBytes: number,
  ) {}

  /** The peer's budget, held until `release(peer)`. */
  hold(peer: string): ConnectionReadBudget {
    let entry = this.byPeer.get(peer);
    if (entry === undefined) {
      entry = { budget: new ConnectionReadBudget(this.bytesMax, this.reserveBytes), holders: 0 };
      this.byPeer.set(peer, entry);
    }
    entry.holders++;
    return entry.budget;
  }

  release(peer: string): void {
    const entry = this.byPeer.get(peer);
    if (entry === undefined) return;
    if (--entry.holders === 0) this.byPeer.delete(peer);
  }

  /** Peers with a budget now (tests). */
  get size(): number {
    return this.byPeer.size;
  }
}

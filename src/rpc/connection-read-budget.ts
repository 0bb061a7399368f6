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
 *   the queue holds at most one read per open stream of the connection.
 */
import type * as http2 from "node:http2";

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
  stream: http2.ServerHttp2Stream;
  run: (grant: ReadGrant) => void;
}

export class ConnectionReadBudget {
  /** Reserved and answer bytes of the reads admitted and not yet released. */
  private heldBytes = 0;
  /** Reads of open streams, at most limits.rpcConnectionStreamsMax. */
  private readonly waiting: WaitingRead[] = [];

  constructor(
    private readonly bytesMax: number,
    private readonly reserveBytes: number,
  ) {}

  /**
   * Runs `run` for the read on `stream` once the connection has room: at once when it has and
   * no read waits before it, else when bytes go back. Not at all when the stream has closed by
   * then.
   */
  admit(stream: http2.ServerHttp2Stream, run: (grant: ReadGrant) => void): void {
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
    while (this.heldBytes < this.bytesMax && this.waiting.length > 0) this.start(this.waiting.shift()!);
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

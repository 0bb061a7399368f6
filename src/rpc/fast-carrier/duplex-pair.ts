/**
 * Two Duplex streams joined in memory: what one end writes, the other reads, with backpressure
 * (a write completes once the other end's reader has room). The hop (./hop.ts) runs an HTTP/2
 * connection to grpc-js over such a pair, so that no socket, and so no other process, reaches
 * grpc-js. (Node 22 has `stream.duplexPair`; Node 20, which this project supports, does not.)
 *
 * Ending one end's writable side ends the other's readable side; destroying one end destroys
 * the other.
 */
import { Duplex } from "node:stream";

class DuplexEnd extends Duplex {
  /** Set right after both ends are made. */
  other!: DuplexEnd;
  /** The callback of a write that waits for the other end's reader to take more. */
  private waitingWrite: (() => void) | null = null;

  override _read(): void {
    const written = this.other.waitingWrite;
    if (written === null) return;
    this.other.waitingWrite = null;
    written();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, written: (error?: Error | null) => void): void {
    if (this.other.push(chunk)) written();
    else this.waitingWrite = written;
  }

  override _final(done: (error?: Error | null) => void): void {
    this.other.push(null);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (!this.other.destroyed) this.other.destroy();
    done(error);
  }
}

export function duplexPair(): [Duplex, Duplex] {
  const one = new DuplexEnd();
  const two = new DuplexEnd();
  one.other = two;
  two.other = one;
  return [one, two];
}

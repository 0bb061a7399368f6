/**
 * Answers handed to HTTP/2 together, not one per event-loop turn (docs/kurrent.md, "Performance").
 *
 * Why: a grpc-js streaming call is a Node Writable that gives grpc-js one message at a time and
 * the next only once the previous one's HTTP/2 write has completed, which takes an event-loop
 * turn each. So when a group commit finishes 20 BatchAppend appends at once, their 20 answers
 * leave over 20 turns, and a 100-event read takes 100 turns; measured on the bench's KurrentDB
 * row, the answers waiting there were a third of the appends in flight.
 *
 * What: a server interceptor (grpc-js's public API) that acknowledges a message to the call's
 * Writable as soon as grpc-js has handed it to its HTTP/2 stream, while the messages handed but
 * not yet written stay within a window (`windowBytes`); past it, a message is acknowledged when
 * its write completes, as grpc-js does. Backpressure is kept: a client that stops reading fills
 * the window, and from then on the call's `write` returns false and its write callbacks wait,
 * so at most the window more is buffered per call than without this. Order is unchanged (every
 * message goes to the HTTP/2 stream in order, the status after them).
 */
import * as grpc from "@grpc/grpc-js";

/** Bytes a call may have handed to HTTP/2 but not yet written (the HTTP/2 stream window's default). */
export const writeWindowBytes = 65_535;

/** What a message not yet encoded (protobufjs encodes it later) counts for in the window. */
const unencodedMessageBytes = 64;

/** A call whose messages are acknowledged early while within the window. */
export class WindowedWritesCall extends grpc.ServerInterceptingCall {
  private unwrittenBytes = 0;

  constructor(
    next: grpc.ServerInterceptingCallInterface,
    private readonly windowBytes: number = writeWindowBytes,
  ) {
    super(next);
  }

  // The message is whatever the method's serializer takes (a Buffer already encoded, or an object).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override sendMessage(message: any, callback: () => void): void {
    const bytes = Buffer.isBuffer(message) ? message.length : unencodedMessageBytes;
    this.unwrittenBytes += bytes;
    // The first message is always within the window, however large: one message is never held back.
    const early = this.unwrittenBytes <= this.windowBytes || this.unwrittenBytes === bytes;
    super.sendMessage(message, () => {
      this.unwrittenBytes -= bytes;
      if (!early) callback();
    });
    if (early) callback();
  }
}

/** The interceptor for a grpc-js Server's `interceptors` option. */
export const windowedWrites: grpc.ServerInterceptor = (_method, call) => new WindowedWritesCall(call);

/**
 * Bounds of the load generator's gRPC transports (./unary-transport.ts, ./session-transport.ts,
 * ./h2/). The product client (src/client/) runs on grpc-js and has its bounds in src/limits.ts.
 */
import assert from "node:assert/strict";

const KiB = 1024;
const MiB = 1024 * KiB;

export const loadLimits = {
  /**
   * HTTP/2 receive window per call and per connection. Wide enough that a large read page (up to
   * limits.readPageMax events of up to limits.eventBytesMax) arrives without a WINDOW_UPDATE
   * round trip per 64 KiB; the client holds at most this much of answers it has not read yet.
   */
  streamWindowBytes: 1 * MiB,
  connectionWindowBytes: 8 * MiB,
  /**
   * Octets of one decoded header list the unary transport accepts (names, values and 32 per
   * field, as HPACK counts them), HTTP/2's usual 64 KiB. A gRPC answer's headers and trailers are
   * a few hundred bytes; a larger list is a broken or hostile peer.
   */
  headerListBytesMax: 64 * KiB,
} as const;

assert(
  loadLimits.streamWindowBytes <= loadLimits.connectionWindowBytes,
  "a call's window fits in the connection's",
);

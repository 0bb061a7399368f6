/**
 * gRPC's `grpc-timeout` header as the server reads it: an amount of at most 8 digits and a unit
 * (H, M, S, m, u, n). grpc-js writes it for the product client, and the benchmark's load generator
 * in bench/grpc-load/unary-transport.ts. (The longest delay a Node timer holds, which bounds the
 * deadlines held by a timer, is `timerMsMax` in ../expiry-timer.ts.)
 */

const unitMs: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };

/** grpc-js's reading of the header (server-interceptors.ts). */
const pattern = /(\d{1,8})\s*([HMSmun])/;

/** Milliseconds of a `grpc-timeout` value, read as grpc-js reads it; null when it does not parse. */
export function parseGrpcTimeout(value: string): number | null {
  const match = pattern.exec(value);
  return match === null ? null : Math.floor(Number(match[1]) * unitMs[match[2]!]!);
}

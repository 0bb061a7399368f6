/**
 * gRPC's `grpc-timeout` header, read (the server) and written (the client) in one place: an amount
 * of at most 8 digits and a unit (H, M, S, m, u, n). (The longest delay a Node timer holds,
 * which bounds the deadlines held by a timer, is `timerMsMax` in ../expiry-timer.ts.)
 */

const unitMs: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };

/** grpc-js's reading of the header (server-interceptors.ts). */
const pattern = /(\d{1,8})\s*([HMSmun])/;

/** Milliseconds of a `grpc-timeout` value, read as grpc-js reads it; null when it does not parse. */
export function parseGrpcTimeout(value: string): number | null {
  const match = pattern.exec(value);
  return match === null ? null : Math.floor(Number(match[1]) * unitMs[match[2]!]!);
}

/** The units a client writes, finest first, as grpc-js picks them. */
const writtenUnits = ["m", "S", "M", "H"] as const;

/** `ms` as grpc-js writes it: in the finest unit whose amount fits in 8 digits. */
export function formatGrpcTimeout(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  // A 9th digit would be read as another number by a server.
  for (const unit of writtenUnits) {
    const amount = Math.ceil(whole / unitMs[unit]!);
    if (amount < 1e8) return `${amount}${unit}`;
  }
  return "99999999H";
}

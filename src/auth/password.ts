/**
 * Password hashing with scrypt (node:crypto). A stored hash is self-describing:
 * `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`, so the cost can be raised later without
 * breaking the hashes already stored. Comparison is constant-time. Passwords never leave this
 * module in any other form.
 *
 * Hashes take turns: at most `hashesRunningMax` run at once and at most
 * limits.passwordHashesWaitingMax wait; past that a hash is refused with RATE_LIMITED. scrypt runs
 * on libuv's thread pool, which the log engine's fsyncs and reads share, and on this service's
 * cores: without the bound a flood of logins (64 at once, each ~70 ms of a core) took every pool
 * thread and core and held appends for a second or more. A semaphore rather than a worker
 * thread: it keeps scrypt's native code off the event loop as before, adds no thread, and bounds
 * the pool threads and cores hashing can take, which is the whole problem.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import type { ScryptOptions } from "node:crypto";
import { availableParallelism } from "node:os";
import { rateLimited } from "../errors.js";
import { limits } from "../limits.js";

/** Cost 2^14 with r=8: about 16 MiB and some tens of milliseconds per hash. */
const cost = { N: 16384, r: 8, p: 1 };
const saltBytes = 16;
const keyBytes = 32;

/** libuv's thread pool size: UV_THREADPOOL_SIZE when set (libuv takes 1..1024), else 4. */
function threadPoolSize(): number {
  const configured = Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? "", 10);
  return Number.isInteger(configured) && configured > 0 ? Math.min(configured, 1024) : 4;
}

/** Leaves two pool threads for storage and one core for the event loop; 1 on a 2-core machine. */
export const hashesRunningMax = Math.max(
  1,
  Math.min(limits.passwordHashesRunningMax, availableParallelism() - 1, threadPoolSize() - 2),
);

let running = 0;
let runningPeak = 0;
const waiting: (() => void)[] = [];

/** How hashing is going, for tests and status: running now, waiting, and the most that ever ran at once. */
export function passwordHashStats(): {
  running: number;
  waiting: number;
  runningPeak: number;
  runningMax: number;
} {
  return { running, waiting: waiting.length, runningPeak, runningMax: hashesRunningMax };
}

/** Starts counting runningPeak afresh (tests). */
export function resetPasswordHashPeak(): void {
  runningPeak = running;
}

async function takeTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= hashesRunningMax) {
    if (waiting.length >= limits.passwordHashesWaitingMax) {
      throw rateLimited("too many logins are being checked at once; try again shortly", 1);
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
    // The slot of the hash that finished passed straight to this one: `running` is unchanged.
  } else {
    running++;
  }
  runningPeak = Math.max(runningPeak, running);
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  return takeTurn(
    () =>
      new Promise((resolve, reject) => {
        scrypt(password, salt, length, { ...options, maxmem: 256 * 1024 * 1024 }, (error, key) =>
          error ? reject(error) : resolve(key),
        );
      }),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(saltBytes);
  const key = await derive(password, salt, cost, keyBytes);
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** false for a wrong password and for a stored value that is not a hash this module made. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4] ?? "", "base64");
  const expected = Buffer.from(parts[5] ?? "", "base64");
  if (!N || !r || !p || salt.length === 0 || expected.length === 0) return false;
  const key = await derive(password, salt, { N, r, p }, expected.length);
  return timingSafeEqual(key, expected);
}

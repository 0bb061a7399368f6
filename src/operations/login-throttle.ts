/**
 * Login throttling (docs/contract.md "Identity, tenants, roles"), a rule of the Auth.Login operation. Failed logins are
 * counted per username and per client address. Past a few free failures, each further failure
 * makes that username's, or that address's, next login wait a back-off that doubles per failure
 * (limits.loginBackoffBaseMs up to loginBackoffMaxMs); a login that comes sooner is refused with
 * RATE_LIMITED and the seconds left, before any password is hashed. A successful login clears its
 * username's and its address's failures; failures are forgotten loginFailuresForgetMs after the
 * last one.
 *
 * Logins still being checked count too: once a username or address has failed, it may have only
 * as many logins in flight as it has free failures left (at least one), and the rest are refused
 * (retry after 1 s). Otherwise a client sending its guesses at once rather than one by one would
 * get a whole hashing queue of guesses (about 33) past every back-off instead of one. A burst of
 * logins for a username or address that has not failed lately is not held back.
 *
 * Memory is bounded: each of the two tables holds at most `entriesMax` entries and drops the least
 * recently failed one to make room. Entries are made only by failures, that is after a password
 * hash, so a flood of random usernames adds them no faster than hashing runs (src/auth/password.ts),
 * and cannot push a username out of a full table in less than entriesMax hashes.
 *
 * Unknown usernames are counted like known ones, so a refusal says nothing about which exist.
 * IPv6 addresses are counted per /64, the block one host usually holds.
 */
import { isIPv4, isIPv6 } from "node:net";
import { rateLimited } from "../errors.js";
import { limits } from "../limits.js";

export interface LoginThrottleOptions {
  usernameFreeFailures: number;
  addressFreeFailures: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  forgetMs: number;
  /** Entries in each table (usernames, addresses). */
  entriesMax: number;
  now: () => number;
}

/** A back-off that a failure started: what the operation logs. */
export interface BackoffStarted {
  scope: "username" | "address";
  failures: number;
  waitMs: number;
}

interface Entry {
  failures: number;
  lastFailureAt: number;
  blockedUntil: number;
  /** Logins admitted while this entry existed and not yet settled. */
  pending: number;
}

/** A login let through `begin`, to be settled once with `failed`, `succeeded` or `abandoned`. */
export interface LoginAttempt {
  readonly username: string;
  readonly address: string | null;
  /** The entries whose `pending` this attempt counts in (emptied when settled). */
  held: Entry[];
}

/** Failures by key, in the order of their last failure (a Map keeps insertion order). */
class FailureTable {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly freeFailures: number,
    private readonly options: LoginThrottleOptions,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The key's entry, and the milliseconds it must still wait (0: it may try now). */
  admission(key: string, now: number): { entry: Entry | undefined; waitMs: number } {
    const entry = this.#live(key, now);
    if (entry === undefined) return { entry, waitMs: 0 };
    if (entry.blockedUntil > now) return { entry, waitMs: entry.blockedUntil - now };
    const inFlightMax = Math.max(1, this.freeFailures - entry.failures);
    return { entry, waitMs: entry.pending >= inFlightMax ? 1000 : 0 };
  }

  fail(key: string, now: number): { failures: number; waitMs: number } {
    const entry = this.#live(key, now) ?? { failures: 0, lastFailureAt: now, blockedUntil: 0, pending: 0 };
    // Re-inserted at the end, so the first entry is always the least recently failed one.
    this.#entries.delete(key);
    while (this.#entries.size >= this.options.entriesMax) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    entry.failures++;
    entry.lastFailureAt = now;
    const over = entry.failures - this.freeFailures;
    const waitMs = over < 0 ? 0 : Math.min(this.options.backoffMaxMs, this.options.backoffBaseMs * 2 ** over);
    entry.blockedUntil = now + waitMs;
    this.#entries.set(key, entry);
    return { failures: entry.failures, waitMs };
  }

  clear(key: string): void {
    this.#entries.delete(key);
  }

  #live(key: string, now: number): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined && now - entry.lastFailureAt >= this.options.forgetMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }
}

export class LoginThrottle {
  readonly #usernames: FailureTable;
  readonly #addresses: FailureTable;
  readonly #now: () => number;

  constructor(options: Partial<LoginThrottleOptions> = {}) {
    const full: LoginThrottleOptions = {
      usernameFreeFailures: limits.loginUsernameFreeFailures,
      addressFreeFailures: limits.loginAddressFreeFailures,
      backoffBaseMs: limits.loginBackoffBaseMs,
      backoffMaxMs: limits.loginBackoffMaxMs,
      forgetMs: limits.loginFailuresForgetMs,
      entriesMax: limits.loginThrottleEntriesMax,
      now: Date.now,
      ...options,
    };
    this.#usernames = new FailureTable(full.usernameFreeFailures, full);
    this.#addresses = new FailureTable(full.addressFreeFailures, full);
    this.#now = full.now;
  }

  /** Entries held in each table (tests; they never pass `entriesMax`). */
  get sizes(): { usernames: number; addresses: number } {
    return { usernames: this.#usernames.size, addresses: this.#addresses.size };
  }

  /**
   * Lets a login go on to its password check, or throws RATE_LIMITED with the whole seconds to
   * wait. Settle what it returns exactly once.
   */
  begin(username: string, address: string | null): LoginAttempt {
    const now = this.#now();
    const key = addressKey(address);
    const byUsername = this.#usernames.admission(username, now);
    const byAddress = key === null ? { entry: undefined, waitMs: 0 } : this.#addresses.admission(key, now);
    const waitMs = Math.max(byUsername.waitMs, byAddress.waitMs);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      throw rateLimited(`too many failed logins: try again in ${seconds} s`, seconds);
    }
    const held = [byUsername.entry, byAddress.entry].filter((e): e is Entry => e !== undefined);
    for (const entry of held) entry.pending++;
    return { username, address: key, held };
  }

  /** Counts a failed login; returns the back-offs it started (none while failures are free). */
  failed(attempt: LoginAttempt): BackoffStarted[] {
    this.abandoned(attempt);
    const now = this.#now();
    const started: BackoffStarted[] = [];
    const byUsername = this.#usernames.fail(attempt.username, now);
    if (byUsername.waitMs > 0) started.push({ scope: "username", ...byUsername });
    if (attempt.address !== null) {
      const byAddress = this.#addresses.fail(attempt.address, now);
      if (byAddress.waitMs > 0) started.push({ scope: "address", ...byAddress });
    }
    return started;
  }

  succeeded(attempt: LoginAttempt): void {
    this.abandoned(attempt);
    this.#usernames.clear(attempt.username);
    if (attempt.address !== null) this.#addresses.clear(attempt.address);
  }

  /** A login that ended without a verdict (hashing refused it, or it failed otherwise). */
  abandoned(attempt: LoginAttempt): void {
    for (const entry of attempt.held) entry.pending--;
    attempt.held = [];
  }
}

/**
 * The key an address is counted under: IPv4 as is (also when written as IPv4-mapped IPv6), IPv6
 * by its first 64 bits, anything else as given; null when there is no address.
 */
export function addressKey(address: string | null): string | null {
  if (address === null || address === "") return null;
  const bare = address.replace(/%.*$/, ""); // an IPv6 zone id (fe80::1%eth0)
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1] !== undefined && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(bare) || bare.includes(".")) return bare;
  const [head = "", tail] = bare.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

/**
 * Who a call on the KurrentDB listener acts as (docs/kurrent.md, "Authentication"). KurrentDB
 * clients authenticate their own way, and the listener turns each into the bearer-token context
 * every ess operation takes, so the operations' rules (roles, tenants, deleted users) apply
 * unchanged:
 * - `authorization: Bearer <ess token>`: the token as it is;
 * - `authorization: Basic base64(user:password)`: an ess login (throttled like any other); the
 *   token it gives is kept for a short while under a hash of the header, so a busy client does
 *   not pay a password hash per call. A deleted user's cached token stops working at once (the
 *   operations check the user on every call);
 * - no header: the anonymous user of SERVICE_KURRENT_ANONYMOUS_USER, when set (clients in
 *   `tls=false` mode send no credentials on writes and subscriptions); otherwise UNAUTHENTICATED,
 *   which the clients raise as AccessDeniedError.
 */
import { createHash } from "node:crypto";
import { EssError } from "../errors.js";
import { limits } from "../limits.js";
import type { LoginResult } from "../contract/bodies.js";
import type { CallContext } from "../operations/contract.js";

export interface CredentialOperations {
  login(ctx: CallContext, request: { username: string; password: string }): Promise<LoginResult>;
  issueTokenFor(username: string): Promise<LoginResult>;
}

export interface KurrentCredentialsOptions {
  operations: CredentialOperations;
  /** The user calls without credentials act as; null: such calls are refused. */
  anonymousUser: string | null;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

interface CachedToken {
  token: string;
  /** When to stop using it: the cache's time or shortly before the token expires, whichever is first. */
  untilMs: number;
}

/** A token is not used in its last seconds: a call that starts with it should not see it expire. */
const tokenExpiryMarginMs = 30_000;

export class KurrentCredentials {
  private readonly basic = new Map<string, CachedToken>();
  private readonly basicPending = new Map<string, Promise<CachedToken>>();
  private anonymous: CachedToken | null = null;
  private anonymousPending: Promise<CachedToken> | null = null;
  private readonly now: () => number;

  constructor(private readonly options: KurrentCredentialsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The call context for a call's `authorization` header (undefined: none sent) from `clientAddress`. */
  async contextOf(header: string | undefined, clientAddress: string | null): Promise<CallContext> {
    const call = { client_address: clientAddress, carrier: "kurrent" } as const;
    if (header === undefined || header === "") return { token: await this.anonymousToken(), ...call };
    const space = header.indexOf(" ");
    const scheme = space < 0 ? header : header.slice(0, space);
    const value = space < 0 ? "" : header.slice(space + 1).trim();
    if (/^bearer$/i.test(scheme) && value !== "") return { token: value, ...call };
    if (/^basic$/i.test(scheme) && value !== "")
      return { token: await this.basicToken(value, clientAddress), ...call };
    throw new EssError("UNAUTHENTICATED", "the authorization header must be Basic or Bearer credentials");
  }

  private async basicToken(encoded: string, clientAddress: string | null): Promise<string> {
    const key = createHash("sha256").update(encoded).digest("base64");
    const cached = this.basic.get(key);
    if (cached !== undefined && cached.untilMs > this.now()) return cached.token;
    // Calls that arrive together with the same credentials share one login (one password hash).
    let pending = this.basicPending.get(key);
    if (pending === undefined) {
      pending = this.login(encoded, clientAddress).finally(() => this.basicPending.delete(key));
      this.basicPending.set(key, pending);
    }
    const entry = await pending;
    this.remember(key, entry);
    return entry.token;
  }

  private async login(encoded: string, clientAddress: string | null): Promise<CachedToken> {
    const decoded = Buffer.from(encoded, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new EssError("UNAUTHENTICATED", "Basic credentials must be base64 of user:password");
    const login = await this.options.operations.login(
      { token: null, client_address: clientAddress },
      { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) },
    );
    return this.cacheEntry(login, limits.kurrentBasicCacheMs);
  }

  /** Keeps `entry` under `key`; past the bound the oldest entry goes (a Map keeps insertion order). */
  private remember(key: string, entry: CachedToken): void {
    this.basic.delete(key);
    if (this.basic.size >= limits.kurrentBasicCacheEntriesMax) {
      const oldest = this.basic.keys().next().value;
      if (oldest !== undefined) this.basic.delete(oldest);
    }
    this.basic.set(key, entry);
  }

  private async anonymousToken(): Promise<string> {
    const user = this.options.anonymousUser;
    if (user === null) {
      throw new EssError(
        "UNAUTHENTICATED",
        "credentials are required: this listener has no anonymous user (SERVICE_KURRENT_ANONYMOUS_USER)",
      );
    }
    if (this.anonymous !== null && this.anonymous.untilMs > this.now()) return this.anonymous.token;
    // One token request at a time, however many calls arrive together.
    this.anonymousPending ??= this.options.operations
      .issueTokenFor(user)
      .then((login) => (this.anonymous = this.cacheEntry(login, Number.POSITIVE_INFINITY)))
      .finally(() => (this.anonymousPending = null));
    return (await this.anonymousPending).token;
  }

  private cacheEntry(login: LoginResult, cacheMs: number): CachedToken {
    const now = this.now();
    return {
      token: login.access_token,
      untilMs: Math.min(now + cacheMs, now + login.expires_in * 1000 - tokenExpiryMarginMs),
    };
  }
}

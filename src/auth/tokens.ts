/**
 * Bearer tokens: JWTs signed with HS256 (library `jose`) by a key generated on first start and
 * kept with the service's state (engine.auth.getOrCreateSigningKey), so every process sharing
 * the storage accepts every other's tokens. Claims: `sub` (username), `tenant_id`, `role`,
 * `uca` (the user's created_at, so a token outlives neither its user's deletion nor a new user
 * of the same name), `iat`, `exp` (SERVICE_TOKEN_TTL after issue), `iss` "ess".
 * Verification refuses anything else: another algorithm, a bad signature, a missing claim,
 * expiry. A verified token is remembered (bounded), so its signature is checked once; its
 * expiry is checked on every call.
 */
import { SignJWT, errors, jwtVerify } from "jose";
import { EssError } from "../errors.js";
import { limits } from "../limits.js";
import type { Role } from "../contract/bodies.js";
import type { StoredUser } from "../storage/engine.js";

export interface TokenClaims {
  username: string;
  tenant_id: string;
  role: Role;
  /** created_at of the user the token was issued to. */
  user_created_at: string;
  /** When the token stops being valid, milliseconds since the epoch. */
  expires_at_ms: number;
}

const issuer = "ess";
const algorithm = "HS256";

export class TokenService {
  readonly #key: Uint8Array;
  /** Tokens whose signature and claims were verified, bounded by limits.verifiedTokensCachedMax. */
  readonly #verified = new Map<string, TokenClaims>();

  constructor(
    key: Buffer,
    /** Token lifetime in seconds (SERVICE_TOKEN_TTL). */
    readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#key = new Uint8Array(key);
  }

  async issue(user: StoredUser): Promise<string> {
    const issuedAt = Math.floor(this.now() / 1000);
    return new SignJWT({ tenant_id: user.tenant_id, role: user.role, uca: user.created_at })
      .setProtectedHeader({ alg: algorithm, typ: "JWT" })
      .setSubject(user.username)
      .setIssuer(issuer)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.ttlSeconds)
      .sign(this.#key);
  }

  /** The token's claims, or UNAUTHENTICATED. */
  async verify(token: string): Promise<TokenClaims> {
    const cached = this.#verified.get(token);
    if (cached) {
      // The same rule as jose's: expired once the current second reaches `exp`.
      if (cached.expires_at_ms / 1000 <= Math.floor(this.now() / 1000)) {
        this.#verified.delete(token);
        throw new EssError("UNAUTHENTICATED", "the token has expired");
      }
      return cached;
    }
    const claims = await this.#verifySignature(token);
    if (this.#verified.size >= limits.verifiedTokensCachedMax) {
      // Evict the oldest entry (a Map iterates in insertion order).
      const oldest = this.#verified.keys().next().value;
      if (oldest !== undefined) this.#verified.delete(oldest);
    }
    this.#verified.set(token, claims);
    return claims;
  }

  async #verifySignature(token: string): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: [algorithm],
        issuer,
        currentDate: new Date(this.now()),
        requiredClaims: ["sub", "exp"],
      });
      const { sub, tenant_id, role, uca, exp } = payload;
      if (
        typeof sub !== "string" ||
        typeof tenant_id !== "string" ||
        typeof uca !== "string" ||
        typeof exp !== "number" ||
        (role !== "admin" && role !== "writer" && role !== "reader")
      ) {
        throw new EssError("UNAUTHENTICATED", "the token is not valid");
      }
      return { username: sub, tenant_id, role, user_created_at: uca, expires_at_ms: exp * 1000 };
    } catch (error) {
      if (error instanceof EssError) throw error;
      if (error instanceof errors.JWTExpired) throw new EssError("UNAUTHENTICATED", "the token has expired");
      throw new EssError("UNAUTHENTICATED", "the token is not valid");
    }
  }
}

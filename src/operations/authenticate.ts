/**
 * Who is calling, and what they may do. Every transport's request reaches storage only after
 * `authenticate` (a valid, unexpired token of a user that still exists), `requireRole`, and
 * `resolveTenant` (the tenant the call acts in). The WebSocket subscription logic uses the same
 * three functions.
 *
 * Authentication comes first: the operations authenticate before they validate a request, and
 * the interfaces call `authenticate` before they read a body or decode a message, so a request
 * without a valid token is answered UNAUTHENTICATED whatever it carries. A Caller returned here
 * can ride along in `CallContext.caller` to spare a second verification of the same token.
 *
 * Tenant isolation: a non-admin caller always acts in its own tenant; naming another is
 * PERMISSION_DENIED whatever that tenant holds, so the answer reveals nothing about it.
 */
import { EssError } from "../errors.js";
import { bearerTokenOf, malformedBearerMessage } from "../contract/rules.js";
import type { Role } from "../contract/bodies.js";
import type { TokenClaims, TokenService } from "../auth/tokens.js";
import type { Users } from "../auth/users.js";
import type { CallContext } from "./contract.js";

export interface Caller {
  username: string;
  tenant_id: string;
  role: Role;
  /** When the caller's token stops being valid, milliseconds since the epoch. */
  expires_at_ms: number;
}

export interface Authenticator {
  /** The caller of a context, or UNAUTHENTICATED (no token, bad, expired, or its user deleted). */
  authenticate(ctx: CallContext): Promise<Caller>;
}

/**
 * Callers this module verified. A context's `caller` is trusted only when it is one of these
 * objects: a transport cannot forge one by building a Caller-shaped value.
 */
const verifiedCallers = new WeakSet<Caller>();

/**
 * The call context of a header value, for a transport that hands the header on rather than
 * answering at once (gRPC): a malformed header (the rule of ../contract/rules.ts) becomes a
 * context that fails authentication with the same message the other interfaces give.
 */
export function contextOfHeader(header: unknown): CallContext {
  try {
    return { token: bearerTokenOf(header) };
  } catch {
    return { token: null, malformedAuthorization: true };
  }
}

export function createAuthenticator(deps: {
  tokens: TokenService;
  users: Users;
  now?: () => number;
}): Authenticator {
  const now = deps.now ?? Date.now;
  /**
   * The caller made from each verified token's claims (the token cache hands out one claims
   * object per token), handed out again while its user is the same: a session's appends each
   * authenticate, and registering a new Caller in `verifiedCallers` for each cost more than the
   * rest of the check. Held as long as the token cache holds the claims.
   */
  const callerOfClaims = new WeakMap<TokenClaims, Caller>();
  return {
    async authenticate(ctx: CallContext): Promise<Caller> {
      const known = ctx.caller;
      if (known !== undefined && verifiedCallers.has(known) && known.expires_at_ms > now()) return known;
      if (ctx.malformedAuthorization === true) throw new EssError("UNAUTHENTICATED", malformedBearerMessage);
      if (ctx.token === null || ctx.token === "") {
        throw new EssError("UNAUTHENTICATED", "a bearer token is required");
      }
      const claims = await deps.tokens.verify(ctx.token);
      // One lookup per call: a deleted user's tokens stop working at once, on every node.
      const user = await deps.users.get(claims.username);
      if (!user || user.created_at !== claims.user_created_at) {
        throw new EssError("UNAUTHENTICATED", "the token's user no longer exists");
      }
      const made = callerOfClaims.get(claims);
      if (made !== undefined && made.tenant_id === user.tenant_id && made.role === user.role) return made;
      const caller: Caller = {
        username: user.username,
        tenant_id: user.tenant_id,
        role: user.role,
        expires_at_ms: claims.expires_at_ms,
      };
      verifiedCallers.add(caller);
      callerOfClaims.set(claims, caller);
      return caller;
    },
  };
}

const rank: Record<Role, number> = { reader: 1, writer: 2, admin: 3 };

/** reader < writer < admin: each role may do what the ones below it may. */
export function requireRole(caller: Caller, minimum: Role): void {
  if (rank[caller.role] < rank[minimum]) {
    throw new EssError("PERMISSION_DENIED", `this needs role ${minimum}; you are ${caller.role}`, {
      required_role: minimum,
      role: caller.role,
    });
  }
}

/** The tenant a call acts in: the caller's own, or `requested` for an admin. */
export function resolveTenant(caller: Caller, requested: string | null): string {
  if (requested === null || requested === caller.tenant_id) return caller.tenant_id;
  if (caller.role !== "admin") {
    throw new EssError("PERMISSION_DENIED", "only an admin may act in another tenant", { tenant: requested });
  }
  return requested;
}

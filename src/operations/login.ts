/**
 * Auth.Login's rules (./operations.ts runs them): the throttle first (./login-throttle.ts: a
 * throttled login costs no hashing), then the password (bounded hashing, src/auth/password.ts),
 * then a token. Refusals for a full hashing queue or a back-off are answered a little late, so a
 * client that ignores Retry-After cannot loop on refusals.
 */
import { EssError, isEssError } from "../errors.js";
import { limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { ServiceMetrics } from "../metrics/metrics.js";
import type { StoredUser } from "../storage/engine.js";
import type { TokenService } from "../auth/tokens.js";
import type { Users } from "../auth/users.js";
import type { LoginRequest, LoginResult } from "../contract/bodies.js";
import type { CallContext } from "./contract.js";
import { requestFields } from "./call-runner.js";
import type { LoginThrottle } from "./login-throttle.js";
import { parseLoginRequest } from "./validate.js";

export interface LoginDesk {
  /** Checks a login request and answers a token, or UNAUTHENTICATED / RATE_LIMITED. */
  login(ctx: CallContext, request: LoginRequest): Promise<LoginResult>;
  /** A token for a user already known to be who it says (no password checked here). */
  resultFor(user: StoredUser): Promise<LoginResult>;
}

export function createLoginDesk(deps: {
  users: Users;
  tokens: TokenService;
  loginThrottle: LoginThrottle;
  logger: Logger;
  metrics: ServiceMetrics | undefined;
  now: () => number;
}): LoginDesk {
  const { users, tokens, loginThrottle, logger, metrics, now } = deps;
  /** When a login was last refused because hashing was full, for a log line at most every 10 s. */
  let hashingBusyLoggedAt = -Infinity;
  /** Refusals waiting to be answered (bounded by limits.loginRefusalsDelayedMax). */
  let refusalsDelayed = 0;

  async function resultFor(user: StoredUser): Promise<LoginResult> {
    return {
      access_token: await tokens.issue(user),
      token_type: "Bearer",
      expires_in: tokens.ttlSeconds,
      tenant_id: user.tenant_id,
      role: user.role,
    };
  }

  async function checkLogin(ctx: CallContext, request: LoginRequest): Promise<LoginResult> {
    const { username, password } = parseLoginRequest(request);
    const address = ctx.client_address ?? null;
    // Before hashing: a throttled login costs no CPU and no thread-pool time.
    const attempt = loginThrottle.begin(username, address);
    let user;
    try {
      user = await users.checkCredentials(username, password);
    } catch (error) {
      loginThrottle.abandoned(attempt);
      if (isEssError(error) && error.code === "RATE_LIMITED") {
        metrics?.loginThrottled();
        if (now() - hashingBusyLoggedAt >= 10_000) {
          hashingBusyLoggedAt = now();
          logger.warn("login refused: password hashing is full", {
            client_address: address,
            ...requestFields(ctx),
          });
        }
      }
      throw error;
    }
    if (!user) {
      metrics?.loginFailed();
      for (const backoff of loginThrottle.failed(attempt)) {
        logger.warn("login throttled", {
          scope: backoff.scope,
          username,
          client_address: address,
          failures: backoff.failures,
          retry_after_seconds: Math.ceil(backoff.waitMs / 1000),
          ...requestFields(ctx),
        });
      }
      throw new EssError("UNAUTHENTICATED", "invalid username or password");
    }
    loginThrottle.succeeded(attempt);
    return resultFor(user);
  }

  /**
   * A login refused with RATE_LIMITED is answered after limits.loginRefusalDelayMs (at most its
   * Retry-After); past limits.loginRefusalsDelayedMax waiting at once, at once.
   */
  async function answerRefusalsLate<T>(check: Promise<T>): Promise<T> {
    try {
      return await check;
    } catch (error) {
      if (
        isEssError(error) &&
        error.code === "RATE_LIMITED" &&
        refusalsDelayed < limits.loginRefusalsDelayedMax
      ) {
        const retryAfterSeconds = Number(error.details?.retry_after_seconds ?? 1);
        const delayMs = Math.min(limits.loginRefusalDelayMs, retryAfterSeconds * 1000);
        refusalsDelayed++;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        refusalsDelayed--;
      }
      throw error;
    }
  }

  return { login: (ctx, request) => answerRefusalsLate(checkLogin(ctx, request)), resultFor };
}

/**
 * The one reading of an `Authorization: Bearer <token>` header (HTTP), `authorization` metadata
 * (gRPC) or WebSocket upgrade header, so every interface accepts and refuses the same headers.
 *
 * Rule: the scheme `Bearer` in any case, one or more spaces or tabs, the token (no whitespace),
 * optional trailing spaces or tabs. Any other form is refused (UNAUTHENTICATED): a client that
 * sends credentials the service cannot read should learn it, not be treated as anonymous.
 */
import { EssError } from "../errors.js";
import type { CallContext } from "./contract.js";

const bearerPattern = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

export const malformedBearerMessage = "the Authorization header must be 'Bearer <token>'";

/**
 * The token of a header value; null when there is no header. A repeated header (an array)
 * counts by its first value. Throws UNAUTHENTICATED for any other form.
 */
export function bearerTokenOf(header: unknown): string | null {
  if (header === undefined || header === null) return null;
  const value: unknown = Array.isArray(header) ? header[0] : header;
  const match = typeof value === "string" ? bearerPattern.exec(value) : null;
  if (!match?.[1]) throw new EssError("UNAUTHENTICATED", malformedBearerMessage);
  return match[1];
}

/**
 * The call context of a header value, for a transport that hands the header on rather than
 * answering at once (gRPC): a malformed header becomes a context that fails authentication with
 * the same message the other interfaces give.
 */
export function contextOfHeader(header: unknown): CallContext {
  try {
    return { token: bearerTokenOf(header) };
  } catch {
    return { token: null, malformedAuthorization: true };
  }
}

/**
 * How the REST gateway shows errors (docs/contract.md "Errors"): every error from every route is
 * `{"error": {"code", "message", "details"}}` with the HTTP status of its code. The table is
 * exhaustive over ErrorCode, so a new code that is not mapped does not compile. A 401 always
 * carries `WWW-Authenticate: Bearer`, a 429 `Retry-After` (seconds). Anything that is not an EssError is answered as INTERNAL
 * without internals (no stack, no message of the original failure).
 */
import type { FastifyReply } from "fastify";
import type { EssError } from "../errors.js";
import { type ErrorCode, type ErrorBody, retryAfterSecondsOf } from "../errors.js";

export const httpStatusByCode = {
  INVALID_JSON: 400,
  INVALID_ARGUMENT: 400,
  CONFIRMATION_REQUIRED: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  STREAM_NOT_FOUND: 404,
  TENANT_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  WRONG_EXPECTED_REVISION: 409,
  SCAVENGE_IN_PROGRESS: 409,
  USER_EXISTS: 409,
  STREAM_TOMBSTONED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  DATA_CORRUPTED: 500,
  INTERNAL: 500,
} as const satisfies Record<ErrorCode, number>;

/** The error codes that answer with `status`, in registry order. */
export function codesForStatus(status: number): ErrorCode[] {
  return (Object.keys(httpStatusByCode) as ErrorCode[]).filter((code) => httpStatusByCode[code] === status);
}

/** The body text of an error; the message and details come from the EssError itself. */
export function errorBodyText(error: EssError): string {
  const body: ErrorBody = error.toBody();
  return JSON.stringify(body);
}

/** Sends `error` with its status and, for 401, the Bearer challenge. */
export function sendError(
  reply: FastifyReply,
  error: EssError,
  extraHeaders: Record<string, string> = {},
  status: number = httpStatusByCode[error.code],
): void {
  reply.code(status);
  reply.header("content-type", "application/json; charset=utf-8");
  if (status === 401) reply.header("www-authenticate", "Bearer");
  const retryAfter = retryAfterSecondsOf(error);
  if (retryAfter !== null) reply.header("retry-after", String(retryAfter));
  for (const [name, value] of Object.entries(extraHeaders)) reply.header(name, value);
  void reply.send(errorBodyText(error));
}

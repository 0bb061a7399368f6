/**
 * The one error registry of the service. Every failure a client can see has a stable
 * UPPER_SNAKE code from docs/contract.md "Errors"; the transports map codes to their own status
 * (HTTP status, gRPC status, WebSocket error message) with tables typed against
 * `ErrorCode`, so a new code that is not mapped does not compile.
 *
 * An `EssError` is an expected outcome (a version conflict, a missing stream). A bug is an
 * assertion failure and surfaces as INTERNAL without details.
 */

export const errorCodes = [
  "INVALID_JSON",
  "INVALID_ARGUMENT",
  "CONFIRMATION_REQUIRED",
  "UNAUTHENTICATED",
  "PERMISSION_DENIED",
  "STREAM_NOT_FOUND",
  "TENANT_NOT_FOUND",
  "USER_NOT_FOUND",
  "JOB_NOT_FOUND",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "WRONG_EXPECTED_REVISION",
  "SCAVENGE_IN_PROGRESS",
  "USER_EXISTS",
  "STREAM_TOMBSTONED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMITED",
  "UNAVAILABLE",
  "DATA_CORRUPTED",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (errorCodes as readonly string[]).includes(value);
}

export type ErrorDetails = Record<string, unknown>;

export class EssError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = "EssError";
    this.code = code;
    this.details = details;
  }

  /** The contract's error body: `{"error": {"code", "message", "details"}}`. */
  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details: ErrorDetails };
}

export function isEssError(value: unknown): value is EssError {
  return value instanceof EssError;
}

/** Turns anything thrown into an EssError; unknown failures become INTERNAL with no internals. */
export function toEssError(value: unknown): EssError {
  if (value instanceof EssError) return value;
  return new EssError("INTERNAL", "internal error");
}

// Constructors for the errors raised in more than one place, so their details stay uniform.

export function invalidArgument(message: string, details: ErrorDetails = {}): EssError {
  return new EssError("INVALID_ARGUMENT", message, details);
}

/**
 * A plain HTTP request to a WebSocket endpoint: answered 426 Upgrade Required (with
 * `Upgrade: websocket`) by every listener that takes that endpoint's upgrades.
 */
export function upgradeRequired(path: string): EssError {
  return new EssError("INVALID_ARGUMENT", `${path} is a WebSocket endpoint: send an upgrade request`);
}

export function payloadTooLarge(message: string, details: ErrorDetails = {}): EssError {
  return new EssError("PAYLOAD_TOO_LARGE", message, details);
}

export function streamNotFound(streamId: string): EssError {
  return new EssError("STREAM_NOT_FOUND", `stream '${streamId}' was not found`, { stream_id: streamId });
}

/** The stream was tombstoned (a permanent delete): its name can never be used again. */
export function streamTombstoned(streamId: string): EssError {
  return new EssError(
    "STREAM_TOMBSTONED",
    `stream '${streamId}' was tombstoned and can never be used again`,
    {
      stream_id: streamId,
    },
  );
}

/**
 * Stored bytes of an event failed their checksum: the event is not served. The details say
 * which event (from the index, not from the damaged bytes), so a reader can go on past it.
 */
export function dataCorrupted(streamId: string, revision: number, position: number): EssError {
  return new EssError(
    "DATA_CORRUPTED",
    `the stored event at revision ${revision} of stream '${streamId}' is damaged (it fails its checksum) and is not served`,
    { stream_id: streamId, revision, position },
  );
}

export function wrongExpectedRevision(
  streamId: string,
  expected: string | number,
  actual: number | null,
): EssError {
  return new EssError(
    "WRONG_EXPECTED_REVISION",
    `stream '${streamId}' is not at the expected revision ${String(expected)}`,
    { stream_id: streamId, expected, actual },
  );
}

/**
 * Refused for now, not for good: the client may try again in `retryAfterSeconds` (REST sends it as
 * `Retry-After`, gRPC as the `retry-after` trailer; both also in `details.retry_after_seconds`).
 */
export function rateLimited(
  message: string,
  retryAfterSeconds: number,
  details: ErrorDetails = {},
): EssError {
  return new EssError("RATE_LIMITED", message, { ...details, retry_after_seconds: retryAfterSeconds });
}

/** The whole seconds a RATE_LIMITED error asks the client to wait, or null for any other error. */
export function retryAfterSecondsOf(error: EssError): number | null {
  const value = error.details.retry_after_seconds;
  return error.code === "RATE_LIMITED" && typeof value === "number" && Number.isInteger(value) && value >= 0
    ? value
    : null;
}

export function unavailable(message: string): EssError {
  return new EssError("UNAVAILABLE", message);
}

/**
 * Marks a programmer's bug: crashes loudly in every build. Never used for bad input.
 */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionFailure(message);
}

export class AssertionFailure extends Error {
  constructor(message: string) {
    super(`assertion failed: ${message}`);
    this.name = "AssertionFailure";
  }
}

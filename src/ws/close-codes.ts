/**
 * WebSocket close codes of the interface (documented in docs/websocket.md). Errors about one
 * message or one subscription are `error` messages and leave the connection open; these codes
 * are for what ends the whole connection.
 */
import type { ErrorCode } from "../errors.js";

export const closeCodes = {
  /** The service is stopping. */
  goingAway: 1001,
  /** A bug on the server side. */
  internal: 1011,
  /** The client stayed past its send-buffer bound longer than the stall timeout. */
  stalled: 4008,
  /** No valid token in time, a bad first token, or the token expired. */
  unauthenticated: 4401,
} as const;

/**
 * The close code for an error that ends a connection, by error code. Every code is mapped, so
 * a new one that is not does not compile.
 */
export const closeCodeForError = {
  INVALID_JSON: 1007,
  INVALID_ARGUMENT: 1008,
  CONFIRMATION_REQUIRED: 1008,
  UNAUTHENTICATED: closeCodes.unauthenticated,
  PERMISSION_DENIED: 4403,
  STREAM_NOT_FOUND: 4404,
  TENANT_NOT_FOUND: 4404,
  USER_NOT_FOUND: 4404,
  JOB_NOT_FOUND: 4404,
  NOT_FOUND: 4404,
  METHOD_NOT_ALLOWED: 1008,
  WRONG_EXPECTED_REVISION: 1008,
  SCAVENGE_IN_PROGRESS: 1013,
  USER_EXISTS: 1008,
  STREAM_TOMBSTONED: 4410,
  PAYLOAD_TOO_LARGE: 1009,
  UNSUPPORTED_MEDIA_TYPE: 1003,
  RATE_LIMITED: 1013,
  UNAVAILABLE: 1013,
  DATA_CORRUPTED: closeCodes.internal,
  INTERNAL: closeCodes.internal,
} as const satisfies Record<ErrorCode, number>;

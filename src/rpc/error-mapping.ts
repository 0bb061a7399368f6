/**
 * EssError <-> gRPC status (docs/contract.md "Errors"). The status carries the mapped gRPC code
 * and our message; trailers carry our code (`error-code`) and details as JSON
 * (`error-details-bin`), so a client can rebuild the same EssError. INTERNAL never carries
 * internals: toEssError has already replaced anything unexpected by a bare "internal error".
 */
import * as grpc from "@grpc/grpc-js";
import { EssError, isErrorCode, retryAfterSecondsOf } from "../errors.js";
import type { ErrorCode, ErrorDetails } from "../errors.js";
import type { OutgoingHttpHeaders } from "node:http2";
import type { SessionError__Output } from "./generated/ess/v1/SessionError.js";
import type { GrpcFailure } from "./methods/method.js";

export const grpcStatusByErrorCode = {
  INVALID_JSON: grpc.status.INVALID_ARGUMENT,
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  CONFIRMATION_REQUIRED: grpc.status.INVALID_ARGUMENT,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
  STREAM_NOT_FOUND: grpc.status.NOT_FOUND,
  TENANT_NOT_FOUND: grpc.status.NOT_FOUND,
  USER_NOT_FOUND: grpc.status.NOT_FOUND,
  JOB_NOT_FOUND: grpc.status.NOT_FOUND,
  NOT_FOUND: grpc.status.NOT_FOUND,
  METHOD_NOT_ALLOWED: grpc.status.UNIMPLEMENTED,
  WRONG_EXPECTED_REVISION: grpc.status.ABORTED,
  SCAVENGE_IN_PROGRESS: grpc.status.ABORTED,
  USER_EXISTS: grpc.status.ALREADY_EXISTS,
  STREAM_TOMBSTONED: grpc.status.FAILED_PRECONDITION,
  PAYLOAD_TOO_LARGE: grpc.status.RESOURCE_EXHAUSTED,
  UNSUPPORTED_MEDIA_TYPE: grpc.status.INVALID_ARGUMENT,
  RATE_LIMITED: grpc.status.RESOURCE_EXHAUSTED,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  DATA_CORRUPTED: grpc.status.DATA_LOSS,
  INTERNAL: grpc.status.INTERNAL,
} as const satisfies Record<ErrorCode, grpc.status>;

export const errorCodeTrailer = "error-code";
export const errorDetailsTrailer = "error-details-bin";
/** RATE_LIMITED only: whole seconds to wait before trying again (also in the details). */
export const retryAfterTrailer = "retry-after";

/**
 * A failed status to end a call with, as a carrier writes it on HTTP/2: code, message, and
 * trailers of its own (`error-code`, ...). (The load generator's CallStatus in
 * bench/grpc-load/call-status.ts is the status as received.)
 */
export interface CallFailure {
  code: grpc.status;
  details: string;
  trailers?: OutgoingHttpHeaders;
}

/** The error object a grpc-js handler passes to its callback (or emits on a stream). */
export function toServiceError(error: EssError | GrpcFailure): Partial<grpc.StatusObject> {
  if (!(error instanceof EssError)) return { code: error.code, details: error.details };
  const metadata = new grpc.Metadata();
  metadata.set(errorCodeTrailer, error.code);
  metadata.set(errorDetailsTrailer, detailsBytes(error));
  const retryAfter = retryAfterSecondsOf(error);
  if (retryAfter !== null) metadata.set(retryAfterTrailer, String(retryAfter));
  return { code: grpcStatusByErrorCode[error.code], details: error.message, metadata };
}

/** The same status as the fast carrier sends it: trailers as HTTP/2 headers, `-bin` in base64. */
export function toCallFailure(error: EssError | GrpcFailure): CallFailure {
  if (!(error instanceof EssError)) return { code: error.code, details: error.details };
  const retryAfter = retryAfterSecondsOf(error);
  return {
    code: grpcStatusByErrorCode[error.code],
    details: error.message,
    trailers: {
      [errorCodeTrailer]: error.code,
      [errorDetailsTrailer]: detailsBytes(error).toString("base64"),
      ...(retryAfter === null ? {} : { [retryAfterTrailer]: String(retryAfter) }),
    },
  };
}

function detailsBytes(error: EssError): Buffer {
  return Buffer.from(JSON.stringify(error.details), "utf8");
}

/** Details JSON (UTF-8 bytes or text) back to an object; `{}` when absent or garbled. */
function parseDetails(raw: Buffer | string | undefined): ErrorDetails {
  if (raw === undefined || raw.length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(Buffer.isBuffer(raw) ? raw.toString("utf8") : raw);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as ErrorDetails;
  } catch {
    // Details are informative; garbled details still leave the code and message.
  }
  return {};
}

/**
 * A failed call back to the EssError the server raised. A status without our trailer came from
 * gRPC itself (no connection, message too large, deadline) and maps to the nearest code.
 */
export function fromServiceError(error: Partial<grpc.ServiceError>): EssError {
  const metadata = error.metadata;
  return fromStatus(
    error.code,
    error.details,
    metadata?.get(errorCodeTrailer)[0],
    metadata?.get(errorDetailsTrailer)[0],
  );
}

/**
 * The same from a status's parts: code, message, and the first `error-code` and
 * `error-details-bin` values (the benchmark's load generator, bench/grpc-load/, reads them from
 * the trailers itself).
 */
export function fromStatus(
  grpcCode: grpc.status | undefined,
  details: string | undefined,
  code: unknown,
  rawDetails: Buffer | string | undefined,
): EssError {
  if (isErrorCode(code)) return new EssError(code, details ?? code, parseDetails(rawDetails));
  switch (grpcCode) {
    case grpc.status.UNAVAILABLE:
    case grpc.status.DEADLINE_EXCEEDED:
    case grpc.status.CANCELLED:
      return new EssError("UNAVAILABLE", "the RPC server is unavailable");
    case grpc.status.RESOURCE_EXHAUSTED:
      return new EssError("PAYLOAD_TOO_LARGE", "the request is too large");
    case grpc.status.UNAUTHENTICATED:
      return new EssError("UNAUTHENTICATED", details ?? "unauthenticated");
    default:
      return new EssError("INTERNAL", "internal error");
  }
}

/**
 * Streams.AppendSession answers a failed append in a message instead of a status: the same
 * code, message and details the unary call puts in its status and trailers.
 */
export function toPbSessionError(error: EssError): SessionError__Output {
  return { code: error.code, message: error.message, details: detailsBytes(error) };
}

/** An AppendSession error message back to the EssError the server raised. */
export function fromPbSessionError(error: SessionError__Output): EssError {
  if (!isErrorCode(error.code)) return new EssError("INTERNAL", "internal error");
  return new EssError(error.code, error.message, parseDetails(error.details));
}

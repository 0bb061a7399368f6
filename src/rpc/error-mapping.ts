/**
 * EssError <-> gRPC status (DESIGN.md section 5). The status carries the mapped gRPC code
 * and our message; trailers carry our code (`error-code`) and details as JSON
 * (`error-details-bin`), so a client can rebuild the same EssError. INTERNAL never carries
 * internals: toEssError has already replaced anything unexpected by a bare "internal error".
 */
import * as grpc from "@grpc/grpc-js";
import { EssError, errorCodes } from "../errors.js";
import type { ErrorCode, ErrorDetails } from "../errors.js";

export const grpcStatusByErrorCode = {
  INVALID_JSON: grpc.status.INVALID_ARGUMENT,
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  CONFIRMATION_REQUIRED: grpc.status.INVALID_ARGUMENT,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
  STREAM_NOT_FOUND: grpc.status.NOT_FOUND,
  TENANT_NOT_FOUND: grpc.status.NOT_FOUND,
  USER_NOT_FOUND: grpc.status.NOT_FOUND,
  NOT_FOUND: grpc.status.NOT_FOUND,
  METHOD_NOT_ALLOWED: grpc.status.UNIMPLEMENTED,
  WRONG_EXPECTED_REVISION: grpc.status.ABORTED,
  SCAVENGE_IN_PROGRESS: grpc.status.ABORTED,
  USER_EXISTS: grpc.status.ALREADY_EXISTS,
  PAYLOAD_TOO_LARGE: grpc.status.RESOURCE_EXHAUSTED,
  UNSUPPORTED_MEDIA_TYPE: grpc.status.INVALID_ARGUMENT,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  INTERNAL: grpc.status.INTERNAL,
} as const satisfies Record<ErrorCode, grpc.status>;

export const errorCodeTrailer = "error-code";
export const errorDetailsTrailer = "error-details-bin";

/** The error object a grpc-js handler passes to its callback (or emits on a stream). */
export function toServiceError(error: EssError): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  metadata.set(errorCodeTrailer, error.code);
  metadata.set(errorDetailsTrailer, Buffer.from(JSON.stringify(error.details), "utf8"));
  return { code: grpcStatusByErrorCode[error.code], details: error.message, metadata };
}

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (errorCodes as readonly string[]).includes(value);
}

/**
 * A failed call back to the EssError the server raised. A status without our trailer came from
 * gRPC itself (no connection, message too large, deadline) and maps to the nearest code.
 */
export function fromServiceError(error: Partial<grpc.ServiceError>): EssError {
  const metadata = error.metadata;
  const code = metadata?.get(errorCodeTrailer)[0];
  if (isErrorCode(code)) {
    let details: ErrorDetails = {};
    const raw = metadata?.get(errorDetailsTrailer)[0];
    if (raw !== undefined) {
      try {
        const parsed: unknown = JSON.parse(Buffer.isBuffer(raw) ? raw.toString("utf8") : raw);
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
          details = parsed as ErrorDetails;
        }
      } catch {
        // Details are informative; a garbled trailer still leaves the code and message.
      }
    }
    return new EssError(code, error.details ?? code, details);
  }
  switch (error.code) {
    case grpc.status.UNAVAILABLE:
    case grpc.status.DEADLINE_EXCEEDED:
    case grpc.status.CANCELLED:
      return new EssError("UNAVAILABLE", "the RPC server is unavailable");
    case grpc.status.RESOURCE_EXHAUSTED:
      return new EssError("PAYLOAD_TOO_LARGE", "the request is too large");
    case grpc.status.UNAUTHENTICATED:
      return new EssError("UNAUTHENTICATED", error.details ?? "unauthenticated");
    default:
      return new EssError("INTERNAL", "internal error");
  }
}

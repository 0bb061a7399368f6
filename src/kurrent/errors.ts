/**
 * EssError -> the status and trailers KurrentDB clients act on (docs/kurrent.md, "Errors"). The
 * clients read an `exception` trailer (and, for some, more trailers they read unconditionally:
 * a missing one crashes the Node client inside a gRPC callback), so every mapping here sets all
 * the trailers its exception needs. ess's own `error-code` trailer rides along for diagnosis.
 */
import * as grpc from "@grpc/grpc-js";
import { limits } from "../limits.js";
import type { EssError } from "../errors.js";
import { errorCodeTrailer, grpcStatusByErrorCode } from "../rpc/error-mapping.js";

export interface KurrentStatus {
  code: grpc.status;
  details: string;
  metadata: grpc.Metadata;
}

/** KurrentDB's expected-version numbers in trailers: a revision, or -1 no_stream, -2 any, -4 stream_exists. */
function expectedVersionText(expected: unknown): string {
  if (expected === "no_stream") return "-1";
  if (expected === "any") return "-2";
  if (expected === "stream_exists") return "-4";
  return String(expected);
}

export function kurrentStatus(error: EssError): KurrentStatus {
  const metadata = new grpc.Metadata();
  metadata.set(errorCodeTrailer, error.code);
  const exception = (name: string, code: grpc.status): KurrentStatus => {
    metadata.set("exception", name);
    return { code, details: error.message, metadata };
  };
  const streamName = typeof error.details.stream_id === "string" ? error.details.stream_id : "";
  switch (error.code) {
    case "UNAUTHENTICATED":
      return exception("access-denied", grpc.status.UNAUTHENTICATED);
    case "PERMISSION_DENIED":
      return exception("access-denied", grpc.status.PERMISSION_DENIED);
    case "WRONG_EXPECTED_REVISION": {
      metadata.set("stream-name", streamName);
      metadata.set("expected-version", expectedVersionText(error.details.expected));
      const actual = error.details.actual;
      metadata.set("actual-version", typeof actual === "number" ? String(actual) : "");
      return exception("wrong-expected-version", grpc.status.FAILED_PRECONDITION);
    }
    case "STREAM_TOMBSTONED":
      metadata.set("stream-name", streamName);
      return exception("stream-deleted", grpc.status.FAILED_PRECONDITION);
    case "PAYLOAD_TOO_LARGE":
      metadata.set("maximum-append-size", String(limits.appendBodyBytesMax));
      return exception("maximum-append-size-exceeded", grpc.status.INVALID_ARGUMENT);
    default:
      return { code: grpcStatusByErrorCode[error.code], details: error.message, metadata };
  }
}

/** The status of a missing `type` or `content-type` in an event's metadata map. */
export function missingMetadataStatus(): KurrentStatus {
  const metadata = new grpc.Metadata();
  metadata.set("exception", "missing-required-metadata-property");
  metadata.set("required-metadata-properties", "type,content-type");
  return {
    code: grpc.status.INVALID_ARGUMENT,
    details: "every event needs the metadata properties type and content-type",
    metadata,
  };
}

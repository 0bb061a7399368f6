/**
 * A gRPC call's status as the load generator's transports read it (./unary-transport.ts,
 * ./session-transport.ts), the same status grpc-js gives for the same bytes: from the trailers,
 * from a trailers-only answer's headers, or, without a gRPC status, from the HTTP status and the
 * RST_STREAM code as grpc-js maps them. The benchmark's client turns it into an EssError with
 * src/rpc/error-mapping.ts's fromStatus, as the product client does grpc-js's.
 */
import * as http2 from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";

/** A call's gRPC status, as grpc-js's StatusObject and ServiceError carry it. */
export interface CallStatus {
  code: grpcStatus;
  details: string;
  /** The `error-code` trailer, when the server sent one. */
  errorCode: string | undefined;
  /** The first value of the `error-details-bin` trailer, base64-decoded. */
  errorDetails: Buffer | undefined;
}

const {
  NGHTTP2_CANCEL,
  NGHTTP2_NO_ERROR,
  NGHTTP2_REFUSED_STREAM,
  NGHTTP2_ENHANCE_YOUR_CALM,
  NGHTTP2_INADEQUATE_SECURITY,
} = http2.constants;

/** grpc-js's mapping of an HTTP status without a gRPC status (subchannel-call.ts). */
function statusOfHttpStatus(httpStatus: number): grpcStatus {
  switch (httpStatus) {
    case 400:
      return grpcStatus.INTERNAL;
    case 401:
      return grpcStatus.UNAUTHENTICATED;
    case 403:
      return grpcStatus.PERMISSION_DENIED;
    case 404:
      return grpcStatus.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return grpcStatus.UNAVAILABLE;
    default:
      return grpcStatus.UNKNOWN;
  }
}

export function failure(code: grpcStatus, details: string): CallStatus {
  return { code, details, errorCode: undefined, errorDetails: undefined };
}

function headerText(value: string | string[] | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value[0];
  return String(value);
}

/** The status in headers or trailers; null when they carry none (`grpc-status` absent). */
export function statusOfHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): CallStatus | null {
  const code = headerText(headers["grpc-status"]);
  if (code === undefined) return null;
  let details = "";
  const message = headerText(headers["grpc-message"]);
  if (message !== undefined) {
    try {
      details = decodeURI(message);
    } catch {
      details = message;
    }
  }
  // -bin values are base64; several values of one key arrive joined by ", " (grpc-js reads each).
  const detailsBin = headerText(headers["error-details-bin"]);
  return {
    code: Number(code) as grpcStatus,
    details,
    errorCode: headerText(headers["error-code"]),
    errorDetails:
      detailsBin === undefined ? undefined : Buffer.from(detailsBin.split(",")[0]?.trim() ?? "", "base64"),
  };
}

/** A stream that closed without a gRPC status: what grpc-js reports for it. */
export function statusOfClose(
  rstCode: number,
  httpStatus: number | undefined,
  internalError: NodeJS.ErrnoException | null,
): CallStatus {
  if (httpStatus !== undefined && httpStatus !== 200)
    return failure(statusOfHttpStatus(httpStatus), `Received HTTP status code ${httpStatus}`);
  switch (rstCode) {
    case NGHTTP2_NO_ERROR:
    case NGHTTP2_REFUSED_STREAM:
    case NGHTTP2_CANCEL:
      return failure(
        grpcStatus.UNAVAILABLE,
        internalError?.message ?? `Stream closed with code ${rstCode} without a gRPC status`,
      );
    case NGHTTP2_ENHANCE_YOUR_CALM:
      return failure(grpcStatus.RESOURCE_EXHAUSTED, "Bandwidth exhausted or memory limit exceeded");
    case NGHTTP2_INADEQUATE_SECURITY:
      return failure(grpcStatus.PERMISSION_DENIED, "Protocol not secure enough");
    default:
      if (internalError !== null && internalError.code !== undefined)
        return failure(grpcStatus.UNAVAILABLE, internalError.message);
      return failure(grpcStatus.INTERNAL, `Received RST_STREAM with code ${rstCode}`);
  }
}

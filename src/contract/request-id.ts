/**
 * Request ids (docs/operations.md, "Request ids and logs"): every interface answers each request
 * with one, `x-request-id` (a REST response header, gRPC response metadata, the WebSocket
 * upgrade's response header), and every log line about the request carries it as `request_id`.
 * A client that sends a sane `x-request-id` gets it back, so that it can name its own calls;
 * otherwise the service makes one.
 */
import { randomUUID } from "node:crypto";

export const requestIdHeader = "x-request-id";

/** The longest request id taken from a client. */
export const requestIdCharsMax = 128;

/** Letters, digits and `-._~:@/+=`: nothing that could break a log line or a header. */
const saneRequestId = /^[A-Za-z0-9._~:@/+=-]+$/;

/** A new request id (a random UUID). */
export function newRequestId(): string {
  return randomUUID();
}

/** The client's request id when it is sane (a string of at most 128 safe characters), else a new one. */
export function acceptRequestId(sent: unknown): string {
  return typeof sent === "string" && sent.length <= requestIdCharsMax && saneRequestId.test(sent)
    ? sent
    : newRequestId();
}

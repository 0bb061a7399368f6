/**
 * The Append, Read and ReadAll requests checked and turned into the hand-written codec's messages
 * (src/rpc/codec/) before they are sent: the same parse* functions as the in-process operations
 * (src/operations/validate.ts), so a bad request fails with the same EssError without a round
 * trip. Event data and metadata stay text until encoded. (The other operations' messages:
 * src/rpc/convert.ts, toPbRequest, in ./service-operations.ts.)
 */
import { binaryContentType } from "../contract/bodies.js";
import type { AppendRequest, ReadAllRequest, ReadRequest } from "../contract/bodies.js";
import { parseAppendRequest, parseReadAllRequest, parseReadRequest } from "../operations/validate.js";
import type { AppendRequestMessage } from "../rpc/codec/append.js";
import type { ReadAllRequestMessage, ReadRequestMessage } from "../rpc/codec/read-requests.js";

export function appendMessage(request: AppendRequest): AppendRequestMessage {
  const parsed = parseAppendRequest(request);
  return {
    stream_id: parsed.stream_id,
    tenant: parsed.tenant ?? undefined,
    events: parsed.events.map((e) => ({
      event_type: e.event_type,
      data: e.data.bytes ?? e.data.text,
      metadata: e.metadata.isBinary ? undefined : e.metadata.text,
      event_id: e.event_id ?? undefined,
      content_type: e.data.isBinary ? binaryContentType : undefined,
      metadata_bytes: e.metadata.bytes ?? undefined,
    })),
    expected_revision: String(parsed.expected_revision),
  };
}

export function readMessage(request: ReadRequest): ReadRequestMessage {
  const parsed = parseReadRequest(request);
  return {
    stream_id: parsed.stream_id,
    tenant: parsed.tenant ?? undefined,
    from: parsed.from ?? undefined,
    limit: parsed.limit,
    direction: parsed.direction,
  };
}

export function readAllMessage(request: ReadAllRequest): ReadAllRequestMessage {
  const parsed = parseReadAllRequest(request);
  const filter = parsed.filter;
  return {
    tenant: parsed.tenant ?? undefined,
    from_position: parsed.from_position ?? undefined,
    limit: parsed.limit,
    direction: parsed.direction,
    stream_prefix: filter.stream_prefix,
    event_type_prefix: filter.event_type_prefix,
    stream_regex: filter.stream_regex ?? undefined,
    event_type_regex: filter.event_type_regex ?? undefined,
  };
}

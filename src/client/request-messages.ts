/**
 * Requests checked and turned into messages before they are sent: the same parse* functions as
 * the in-process operations (src/operations/validate.ts), so a bad request fails with the same
 * EssError without a round trip. Append, Read and ReadAll become the hand-written codec's
 * messages (src/rpc/codec/), in which event data and metadata stay text until encoded.
 */
import { binaryContentType } from "../contract/bodies.js";
import type {
  AppendRequest,
  DeleteStreamRequest,
  ListStreamsRequest,
  PageRequest,
  ReadAllRequest,
  ReadRequest,
  SetMetadataRequest,
  SetRetentionRequest,
  StreamRequest,
} from "../contract/bodies.js";
import {
  parseAppendRequest,
  parseDeleteRequest,
  parseListStreamsRequest,
  parsePageRequest,
  parseReadAllRequest,
  parseReadRequest,
  parseSetMetadataRequest,
  parseSetRetentionRequest,
  parseStreamRequest,
} from "../operations/validate.js";
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

export function streamMessage(request: StreamRequest) {
  const parsed = parseStreamRequest(request);
  return { stream_id: parsed.stream_id, tenant: parsed.tenant ?? undefined };
}

export function deleteMessage(request: DeleteStreamRequest) {
  const parsed = parseDeleteRequest(request);
  return {
    stream_id: parsed.stream_id,
    tenant: parsed.tenant ?? undefined,
    expected_revision: String(parsed.expected_revision),
    tombstone: parsed.tombstone,
  };
}

export function setMetadataMessage(request: SetMetadataRequest) {
  const parsed = parseSetMetadataRequest(request);
  return {
    stream_id: parsed.stream_id,
    tenant: parsed.tenant ?? undefined,
    metadata: Buffer.from(JSON.stringify(parsed.metadata), "utf8"),
    expected_metadata_revision: String(parsed.expected_metadata_revision),
  };
}

export function setRetentionMessage(request: SetRetentionRequest) {
  const parsed = parseSetRetentionRequest(request);
  return {
    stream_id: parsed.stream_id,
    tenant: parsed.tenant ?? undefined,
    max_age_seconds: parsed.retention.max_age_seconds ?? undefined,
    max_count: parsed.retention.max_count ?? undefined,
    truncate_before: parsed.retention.truncate_before ?? undefined,
  };
}

export function listStreamsMessage(request: ListStreamsRequest) {
  const parsed = parseListStreamsRequest(request);
  return {
    tenant: parsed.tenant ?? undefined,
    prefix: parsed.prefix ?? undefined,
    limit: parsed.limit,
    cursor: parsed.cursor ?? undefined,
  };
}

export function pageMessage(request: PageRequest) {
  const parsed = parsePageRequest(request);
  return { limit: parsed.limit, cursor: parsed.cursor ?? undefined };
}

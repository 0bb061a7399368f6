/**
 * The hand-written codecs of the requests of `Streams.Read` and `Streams.ReadAll` (./wire.ts holds
 * their invariants): encoded by the client, decoded by the server.
 */
import { assert } from "../../errors.js";
import type { ReadAllRequest__Output } from "../generated/ess/v1/ReadAllRequest.js";
import type { ReadRequest__Output } from "../generated/ess/v1/ReadRequest.js";
import { VARINT, LENGTH_DELIMITED, key, readerFor } from "./wire.js";
import {
  varintBytes,
  assertUint64,
  assertUint32,
  utf8Bytes,
  delimitedFieldBytes,
  writeTextField,
  writeVarintField,
  optionalTextFieldBytes,
  writeOptionalTextField,
} from "./writer.js";

// ---- ReadRequest, ReadAllRequest (client) ----

/** A ReadRequest as the client builds it; an undefined optional field is left unset. */
export interface ReadRequestMessage {
  stream_id: string;
  tenant?: string | undefined;
  from?: number | undefined;
  limit?: number | undefined;
  direction?: string | undefined;
}

const readRequestKeys = {
  stream_id: key(1, LENGTH_DELIMITED),
  tenant: key(2, LENGTH_DELIMITED),
  from: key(3, VARINT),
  limit: key(4, VARINT),
  direction: key(5, LENGTH_DELIMITED),
};

export function encodeReadRequest(message: ReadRequestMessage): Buffer {
  const k = readRequestKeys;
  const { from, limit } = message;
  if (from !== undefined) assertUint64(from, "from");
  if (limit !== undefined) assertUint32(limit, "limit");
  const streamIdBytes = utf8Bytes(message.stream_id);
  const size =
    delimitedFieldBytes(streamIdBytes) +
    optionalTextFieldBytes(message.tenant) +
    (from === undefined ? 0 : 1 + varintBytes(from)) +
    (limit === undefined ? 0 : 1 + varintBytes(limit)) +
    optionalTextFieldBytes(message.direction);
  const buf = Buffer.allocUnsafe(size);
  let pos = writeTextField(buf, 0, k.stream_id, message.stream_id, streamIdBytes);
  pos = writeOptionalTextField(buf, pos, k.tenant, message.tenant);
  if (from !== undefined) pos = writeVarintField(buf, pos, k.from, from);
  if (limit !== undefined) pos = writeVarintField(buf, pos, k.limit, limit);
  pos = writeOptionalTextField(buf, pos, k.direction, message.direction);
  assert(pos === size, "ReadRequest: the bytes written are the bytes counted");
  return buf;
}

/** A ReadAllRequest as the client builds it; an undefined optional field is left unset. */
export interface ReadAllRequestMessage {
  tenant?: string | undefined;
  from_position?: number | undefined;
  limit?: number | undefined;
}

const readAllRequestKeys = {
  tenant: key(1, LENGTH_DELIMITED),
  from_position: key(2, VARINT),
  limit: key(3, VARINT),
};

export function encodeReadAllRequest(message: ReadAllRequestMessage): Buffer {
  const k = readAllRequestKeys;
  const { from_position: from, limit } = message;
  if (from !== undefined) assertUint64(from, "from_position");
  if (limit !== undefined) assertUint32(limit, "limit");
  const size =
    optionalTextFieldBytes(message.tenant) +
    (from === undefined ? 0 : 1 + varintBytes(from)) +
    (limit === undefined ? 0 : 1 + varintBytes(limit));
  const buf = Buffer.allocUnsafe(size);
  let pos = writeOptionalTextField(buf, 0, k.tenant, message.tenant);
  if (from !== undefined) pos = writeVarintField(buf, pos, k.from_position, from);
  if (limit !== undefined) pos = writeVarintField(buf, pos, k.limit, limit);
  assert(pos === size, "ReadAllRequest: the bytes written are the bytes counted");
  return buf;
}

// ---- ReadRequest, ReadAllRequest (server) ----

/** ReadRequest as proto-loader decodes it. */
export function decodeReadRequest(buf: Buffer): ReadRequest__Output {
  const k = readRequestKeys;
  const r = readerFor(buf);
  let streamId = "";
  let tenant: string | undefined;
  let from: number | undefined;
  let limit: number | undefined;
  let direction: string | undefined;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.stream_id:
        streamId = r.string("stream_id");
        break;
      case k.tenant:
        tenant = r.string("tenant");
        break;
      case k.from:
        from = r.uint64();
        break;
      case k.limit:
        limit = r.varint32();
        break;
      case k.direction:
        direction = r.string("direction");
        break;
      default:
        r.skip(fieldKey);
    }
  }
  const request: ReadRequest__Output = { stream_id: streamId };
  if (tenant !== undefined) request.tenant = tenant;
  if (from !== undefined) request.from = from;
  if (limit !== undefined) request.limit = limit;
  if (direction !== undefined) request.direction = direction;
  return request;
}

/** ReadAllRequest as proto-loader decodes it. */
export function decodeReadAllRequest(buf: Buffer): ReadAllRequest__Output {
  const k = readAllRequestKeys;
  const r = readerFor(buf);
  let tenant: string | undefined;
  let from: number | undefined;
  let limit: number | undefined;
  while (r.pos < r.end) {
    const fieldKey = r.varint32();
    switch (fieldKey) {
      case k.tenant:
        tenant = r.string("tenant");
        break;
      case k.from_position:
        from = r.uint64();
        break;
      case k.limit:
        limit = r.varint32();
        break;
      default:
        r.skip(fieldKey);
    }
  }
  const request: ReadAllRequest__Output = {};
  if (tenant !== undefined) request.tenant = tenant;
  if (from !== undefined) request.from_position = from;
  if (limit !== undefined) request.limit = limit;
  return request;
}

/**
 * The hand-written codecs of the requests of `Streams.Read` and `Streams.ReadAll` (./wire.ts holds
 * their invariants): encoded by the client, decoded by the server.
 */
import { assert } from "../../errors.js";
import type { ReadAllRequest__Output } from "../generated/ess/v1/ReadAllRequest.js";
import type { ReadRequest__Output } from "../generated/ess/v1/ReadRequest.js";
import { messageDecoder } from "./decoder.js";
import { VARINT, LENGTH_DELIMITED, key } from "./wire.js";
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
  direction?: string | undefined;
  stream_prefix?: readonly string[] | undefined;
  event_type_prefix?: readonly string[] | undefined;
  stream_regex?: string | undefined;
  event_type_regex?: string | undefined;
}

const readAllRequestKeys = {
  tenant: key(1, LENGTH_DELIMITED),
  from_position: key(2, VARINT),
  limit: key(3, VARINT),
  direction: key(4, LENGTH_DELIMITED),
  stream_prefix: key(5, LENGTH_DELIMITED),
  event_type_prefix: key(6, LENGTH_DELIMITED),
  stream_regex: key(7, LENGTH_DELIMITED),
  event_type_regex: key(8, LENGTH_DELIMITED),
};

export function encodeReadAllRequest(message: ReadAllRequestMessage): Buffer {
  const k = readAllRequestKeys;
  const { from_position: from, limit } = message;
  if (from !== undefined) assertUint64(from, "from_position");
  if (limit !== undefined) assertUint32(limit, "limit");
  const streamPrefixes = message.stream_prefix ?? [];
  const typePrefixes = message.event_type_prefix ?? [];
  const size =
    optionalTextFieldBytes(message.tenant) +
    (from === undefined ? 0 : 1 + varintBytes(from)) +
    (limit === undefined ? 0 : 1 + varintBytes(limit)) +
    optionalTextFieldBytes(message.direction) +
    repeatedTextFieldBytes(streamPrefixes) +
    repeatedTextFieldBytes(typePrefixes) +
    optionalTextFieldBytes(message.stream_regex) +
    optionalTextFieldBytes(message.event_type_regex);
  const buf = Buffer.allocUnsafe(size);
  let pos = writeOptionalTextField(buf, 0, k.tenant, message.tenant);
  if (from !== undefined) pos = writeVarintField(buf, pos, k.from_position, from);
  if (limit !== undefined) pos = writeVarintField(buf, pos, k.limit, limit);
  pos = writeOptionalTextField(buf, pos, k.direction, message.direction);
  for (const p of streamPrefixes) pos = writeOptionalTextField(buf, pos, k.stream_prefix, p);
  for (const p of typePrefixes) pos = writeOptionalTextField(buf, pos, k.event_type_prefix, p);
  pos = writeOptionalTextField(buf, pos, k.stream_regex, message.stream_regex);
  pos = writeOptionalTextField(buf, pos, k.event_type_regex, message.event_type_regex);
  assert(pos === size, "ReadAllRequest: the bytes written are the bytes counted");
  return buf;
}

function repeatedTextFieldBytes(texts: readonly string[]): number {
  let bytes = 0;
  for (const text of texts) bytes += optionalTextFieldBytes(text);
  return bytes;
}

// ---- ReadRequest, ReadAllRequest (server) ----

/** ReadRequest as proto-loader decodes it. */
export const decodeReadRequest = messageDecoder<ReadRequest__Output>("ReadRequest");

/** ReadAllRequest as proto-loader decodes it. */
export const decodeReadAllRequest = messageDecoder<ReadAllRequest__Output>("ReadAllRequest");

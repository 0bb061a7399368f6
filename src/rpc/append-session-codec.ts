/**
 * Hand-written protobuf codecs for Streams.AppendSession's two messages, built on the
 * AppendRequest and AppendResult codecs of ./codec.ts and holding to its invariants: the
 * encoders write exactly what proto-loader's encoder writes for the objects the code used to
 * build (fields in number order, plain fields also at their default), the decoders read any
 * valid encoding and give proto-loader's decoded shape (unknown fields skipped; an embedded
 * message sent twice: the last one, not a merge). Every append of a session crosses them, so
 * they are a per-append cost on both sides.
 *
 *   AppendSessionRequest  { 1: correlation_id varint, 2: append AppendRequest }
 *   AppendSessionResponse { 1: correlation_id varint, 2: result AppendResult | 3: error AppendError }
 *   AppendError           { 1: code string, 2: message string, 3: details bytes }
 */
import type * as grpc from "@grpc/grpc-js";
import { assert } from "../errors.js";
import type { AppendResult } from "../storage/engine.js";
import {
  decodeAppendRequest,
  decodeAppendResult,
  encodeAppendRequest,
  encodeAppendResult,
  key as fieldKey,
  LENGTH_DELIMITED,
  readerFor,
  VARINT,
  varintBytes,
  writeVarint,
  type AppendRequestMessage,
} from "./codec.js";
import type { AppendError__Output } from "./generated/ess/v1/AppendError.js";
import type { AppendSessionRequest__Output } from "./generated/ess/v1/AppendSessionRequest.js";

/** Field 1 of both messages. */
const correlationIdKey = fieldKey(1, VARINT);
const requestKeys = { append: fieldKey(2, LENGTH_DELIMITED) };
const responseKeys = {
  result: fieldKey(2, LENGTH_DELIMITED),
  error: fieldKey(3, LENGTH_DELIMITED),
};
const errorKeys = {
  code: fieldKey(1, LENGTH_DELIMITED),
  message: fieldKey(2, LENGTH_DELIMITED),
  details: fieldKey(3, LENGTH_DELIMITED),
};

/** An answer as the server builds it: the operation's result, or the error's code, message, details JSON. */
export type AppendSessionAnswer =
  { correlation_id: number; result: AppendResult } | { correlation_id: number; error: AppendError__Output };

/** An answer as the client reads it: `result` or `error` set (neither: a server that sent no outcome). */
export interface DecodedAppendSessionAnswer {
  correlation_id: number;
  result?: AppendResult;
  error?: AppendError__Output;
}

/** A message whose payload is `correlation_id` and one embedded message under `embeddedKey`. */
function wrap(correlationId: number, embeddedKey: number, embedded: Buffer): Buffer {
  const size = 1 + varintBytes(correlationId) + 1 + varintBytes(embedded.length) + embedded.length;
  const buf = Buffer.allocUnsafe(size);
  buf[0] = correlationIdKey;
  let pos = writeVarint(buf, 1, correlationId);
  buf[pos++] = embeddedKey;
  pos = writeVarint(buf, pos, embedded.length);
  embedded.copy(buf, pos);
  return buf;
}

// ---- server ----

export function decodeAppendSessionRequest(buf: Buffer): AppendSessionRequest__Output {
  const r = readerFor(buf);
  let correlationId = 0;
  let append: AppendSessionRequest__Output["append"] = null;
  while (r.pos < r.end) {
    const key = r.varint32();
    switch (key) {
      case correlationIdKey:
        correlationId = r.uint64();
        break;
      case requestKeys.append: {
        const end = r.delimitedEnd();
        append = decodeAppendRequest(buf.subarray(r.pos, end));
        r.pos = end;
        break;
      }
      default:
        r.skip(key & 7);
    }
  }
  return { correlation_id: correlationId, append };
}

function encodeAppendError(error: AppendError__Output): Buffer {
  const codeBytes = Buffer.byteLength(error.code, "utf8");
  const messageBytes = Buffer.byteLength(error.message, "utf8");
  const size =
    1 + varintBytes(codeBytes) + codeBytes +
    1 + varintBytes(messageBytes) + messageBytes +
    1 + varintBytes(error.details.length) + error.details.length; // prettier-ignore
  const buf = Buffer.allocUnsafe(size);
  buf[0] = errorKeys.code;
  let pos = writeVarint(buf, 1, codeBytes);
  pos += buf.write(error.code, pos, codeBytes, "utf8");
  buf[pos++] = errorKeys.message;
  pos = writeVarint(buf, pos, messageBytes);
  pos += buf.write(error.message, pos, messageBytes, "utf8");
  buf[pos++] = errorKeys.details;
  pos = writeVarint(buf, pos, error.details.length);
  error.details.copy(buf, pos);
  return buf;
}

export function encodeAppendSessionResponse(answer: AppendSessionAnswer): Buffer {
  return "result" in answer
    ? wrap(answer.correlation_id, responseKeys.result, encodeAppendResult(answer.result))
    : wrap(answer.correlation_id, responseKeys.error, encodeAppendError(answer.error));
}

// ---- client ----

export function encodeAppendSessionRequest(request: {
  correlation_id: number;
  append: AppendRequestMessage;
}): Buffer {
  return wrap(request.correlation_id, requestKeys.append, encodeAppendRequest(request.append));
}

function decodeAppendError(buf: Buffer): AppendError__Output {
  const r = readerFor(buf);
  const error: AppendError__Output = { code: "", message: "", details: Buffer.alloc(0) };
  while (r.pos < r.end) {
    const key = r.varint32();
    switch (key) {
      case errorKeys.code:
        error.code = r.string();
        break;
      case errorKeys.message:
        error.message = r.string();
        break;
      case errorKeys.details:
        error.details = r.bytes();
        break;
      default:
        r.skip(key & 7);
    }
  }
  return error;
}

export function decodeAppendSessionResponse(buf: Buffer): DecodedAppendSessionAnswer {
  const r = readerFor(buf);
  const answer: DecodedAppendSessionAnswer = { correlation_id: 0 };
  while (r.pos < r.end) {
    const key = r.varint32();
    switch (key) {
      case correlationIdKey:
        answer.correlation_id = r.uint64();
        break;
      case responseKeys.result: {
        const end = r.delimitedEnd();
        answer.result = decodeAppendResult(buf.subarray(r.pos, end));
        r.pos = end;
        break;
      }
      case responseKeys.error: {
        const end = r.delimitedEnd();
        answer.error = decodeAppendError(buf.subarray(r.pos, end));
        r.pos = end;
        break;
      }
      default:
        r.skip(key & 7);
    }
  }
  return answer;
}

/** The ess.v1.Streams service definition with AppendSession on these codecs. */
export function withAppendSessionCodecs(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const session = service.AppendSession;
  assert(session !== undefined, "ess.v1.Streams has AppendSession");
  return {
    ...service,
    AppendSession: {
      ...session,
      requestDeserialize: decodeAppendSessionRequest,
      responseSerialize: encodeAppendSessionResponse,
    },
  };
}

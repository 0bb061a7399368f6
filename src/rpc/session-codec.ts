/**
 * Hand-written codecs of the messages of Streams.AppendSession and ReadSession, built on ./codec/
 * and holding to its invariants (./codec/wire.ts). Every request of a session crosses them, on
 * both sides.
 *
 *   AppendSessionRequest  { 1: correlation_id, 2: append AppendRequest, 3: appends (repeated) }
 *   AppendSessionEntry    { 1: correlation_id, 2: append AppendRequest }
 *   AppendSessionResponse { 1: correlation_id, 2: result | 3: error, 4: outcomes (repeated) }
 *   AppendSessionOutcome  { 1: correlation_id, 2: result AppendResult | 3: error SessionError }
 *   ReadSessionRequest    { 1: correlation_id, 2: read ReadRequest }
 *   ReadSessionResponse   { 1: correlation_id, 2: result ReadResult | 3: error SessionError }
 *   SessionError          { 1: code string, 2: message string, 3: details bytes }
 *
 * An entry and an outcome have the fields of a one-append message, so a message of several is
 * the first one's fields followed by each other one's bytes under field 3 or 4 (docs/rpc.md,
 * "Several appends in one message").
 */
import type { AppendResult, ReadStreamResult } from "../contract/bodies.js";
import { messageDecoder } from "./codec/decoder.js";
import { key as fieldKey, LENGTH_DELIMITED, readerFor, VARINT } from "./codec/wire.js";
import {
  delimitedFieldBytes,
  utf8Bytes,
  varintBytes,
  writeBytesField,
  writeTextField,
  writeVarint,
  type MessagePrefix,
} from "./codec/writer.js";
import { assert } from "../errors.js";
import {
  appendResultBytes,
  decodeAppendRequest,
  decodeAppendResult,
  encodeAppendRequest,
  encodeAppendResult,
  writeAppendResult,
  type AppendRequestMessage,
} from "./codec/append.js";
import { encodeReadRequest, type ReadRequestMessage } from "./codec/read-requests.js";
import { decodeReadResult, encodeReadResult } from "./codec/read-results.js";
import type { SessionError__Output } from "./generated/ess/v1/SessionError.js";
import { GRPC_FRAME_HEAD_BYTES, grpcFramePrefix } from "./grpc-frame.js";
import type { AppendRequest__Output } from "./generated/ess/v1/AppendRequest.js";
import type { AppendSessionRequest__Output } from "./generated/ess/v1/AppendSessionRequest.js";
import type { ReadSessionRequest__Output } from "./generated/ess/v1/ReadSessionRequest.js";

/** Field 1 of both messages. */
const correlationIdKey = fieldKey(1, VARINT);
/** Field 2 of both requests: the append, the read. */
const requestKeys = { payload: fieldKey(2, LENGTH_DELIMITED) };
/** Field 3 of AppendSessionRequest: further appends. */
const appendsKey = fieldKey(3, LENGTH_DELIMITED);
const responseKeys = {
  result: fieldKey(2, LENGTH_DELIMITED),
  error: fieldKey(3, LENGTH_DELIMITED),
  /** AppendSessionResponse only: further answers. */
  outcomes: fieldKey(4, LENGTH_DELIMITED),
};
const errorKeys = {
  code: fieldKey(1, LENGTH_DELIMITED),
  message: fieldKey(2, LENGTH_DELIMITED),
  details: fieldKey(3, LENGTH_DELIMITED),
};

/** An answer as the server builds it: the operation's result, or the error's code, message, details JSON. */
export type SessionAnswer<Result> =
  { correlation_id: number; result: Result } | { correlation_id: number; error: SessionError__Output };
export type AppendSessionAnswer = SessionAnswer<AppendResult>;
export type ReadSessionAnswer = SessionAnswer<ReadStreamResult>;

/**
 * An answer as the client reads it: `result` or `error` set (neither: a server that sent no
 * outcome); an append session's answer message also has `outcomes`, its further answers (each
 * without `outcomes` of its own).
 */
export interface DecodedSessionAnswer<Result> {
  correlation_id: number;
  result?: Result;
  error?: SessionError__Output;
  outcomes?: DecodedSessionAnswer<Result>[];
}
export type DecodedAppendSessionAnswer = DecodedSessionAnswer<AppendResult> & {
  outcomes: DecodedSessionAnswer<AppendResult>[];
};

/**
 * What comes before a session message's embedded message: `correlation_id`, then the field's key
 * and length; `framed`, the gRPC frame head before all that (./grpc-frame.ts).
 */
function sessionPrefix(correlationId: number, embeddedKey: number, framed = false): MessagePrefix {
  const frameHead = framed ? GRPC_FRAME_HEAD_BYTES : 0;
  const messageHead = (size: number): number => 1 + varintBytes(correlationId) + 1 + varintBytes(size);
  return {
    bytes: (size) => frameHead + messageHead(size),
    write(buf, size) {
      if (framed) grpcFramePrefix.write(buf, messageHead(size) + size);
      buf[frameHead] = correlationIdKey;
      const pos = writeVarint(buf, frameHead + 1, correlationId);
      buf[pos] = embeddedKey;
      writeVarint(buf, pos + 1, size);
    },
  };
}

/** A message whose payload is `correlation_id` and one embedded message under `embeddedKey`. */
function wrap(correlationId: number, embeddedKey: number, embedded: Buffer, framed = false): Buffer {
  const prefix = sessionPrefix(correlationId, embeddedKey, framed);
  const head = prefix.bytes(embedded.length);
  const buf = Buffer.allocUnsafe(head + embedded.length);
  prefix.write(buf, embedded.length);
  embedded.copy(buf, head);
  return buf;
}

// ---- server ----

/**
 * A session request's correlation id and its payload (field 2) decoded by `decodePayload`; null
 * when absent. With `entries` (AppendSessionRequest), field 3's messages are decoded too, each as
 * an entry (which has no field 3 of its own), in the order they came.
 */
function decodeSessionRequest<P>(
  buf: Buffer,
  decodePayload: (bytes: Buffer) => P,
  entries?: { correlation_id: number; payload: P | null }[],
): { correlation_id: number; payload: P | null } {
  const r = readerFor(buf);
  let correlationId = 0;
  let payload: P | null = null;
  while (r.pos < r.end) {
    const key = r.varint32();
    switch (key) {
      case correlationIdKey:
        correlationId = r.uint64();
        break;
      case requestKeys.payload:
        payload = decodePayload(r.bytes());
        break;
      default:
        if (key === appendsKey && entries !== undefined)
          entries.push(decodeSessionRequest(r.bytes(), decodePayload));
        else r.skip(key);
    }
  }
  return { correlation_id: correlationId, payload };
}

export function decodeAppendSessionRequest(buf: Buffer): AppendSessionRequest__Output {
  const entries: { correlation_id: number; payload: AppendRequest__Output | null }[] = [];
  const { correlation_id, payload } = decodeSessionRequest(buf, decodeAppendRequest, entries);
  return {
    correlation_id,
    append: payload,
    appends: entries.map((entry) => ({ correlation_id: entry.correlation_id, append: entry.payload })),
  };
}

export const decodeReadSessionRequest = messageDecoder<ReadSessionRequest__Output>("ReadSessionRequest");

function encodeSessionError(error: SessionError__Output): Buffer {
  const { code, message, details } = error;
  const codeBytes = utf8Bytes(code);
  const messageBytes = utf8Bytes(message);
  const buf = Buffer.allocUnsafe(
    delimitedFieldBytes(codeBytes) + delimitedFieldBytes(messageBytes) + delimitedFieldBytes(details.length),
  );
  let pos = writeTextField(buf, 0, errorKeys.code, code, codeBytes);
  pos = writeTextField(buf, pos, errorKeys.message, message, messageBytes);
  writeBytesField(buf, pos, errorKeys.details, details, 0, details.length);
  return buf;
}

/** An answer, its result encoded in place after the prefix (a read's page is tens of KiB). */
function encodeSessionResponse<Result>(
  answer: SessionAnswer<Result>,
  encodeResult: (result: Result, prefix: MessagePrefix) => Buffer,
  framed: boolean,
): Buffer {
  const id = answer.correlation_id;
  return "result" in answer
    ? encodeResult(answer.result, sessionPrefix(id, responseKeys.result, framed))
    : wrap(id, responseKeys.error, encodeSessionError(answer.error), framed);
}

/** One answer's fields: its correlation id, then its result or error of `inner` bytes. */
function answerBytes(correlationId: number, inner: number): number {
  return 1 + varintBytes(correlationId) + 1 + varintBytes(inner) + inner;
}

/**
 * A message of several append answers: the first one's fields, then each other one under
 * `outcomes`, all written into one buffer (sizes first, then each answer in place). A group
 * commit's answers leave in one such message; a buffer of its own for each answer, copied in,
 * cost an allocation and a copy per append.
 */
function encodeAppendSessionResponses(answers: readonly AppendSessionAnswer[], framed: boolean): Buffer {
  const first = answers[0];
  if (first === undefined) throw new Error("a session answer message carries at least one answer");
  if (answers.length === 1) return encodeSessionResponse(first, encodeAppendResult, framed);
  const count = answers.length;
  /** Per answer: its AppendResult's (or SessionError's) bytes, and its stream id's UTF-8 bytes. */
  const innerBytes = new Array<number>(count);
  const streamIdBytes = new Array<number>(count);
  /** The errors' messages, encoded while counting (an error is rare and short). */
  let errors: Buffer[] | null = null;
  let size = 0;
  for (let i = 0; i < count; i++) {
    const answer = answers[i]!;
    let inner: number;
    if ("result" in answer) {
      const idBytes = utf8Bytes(answer.result.stream_id);
      streamIdBytes[i] = idBytes;
      inner = appendResultBytes(answer.result, idBytes);
    } else {
      errors ??= new Array<Buffer>(count);
      const error = encodeSessionError(answer.error);
      errors[i] = error;
      streamIdBytes[i] = 0;
      inner = error.length;
    }
    innerBytes[i] = inner;
    const part = answerBytes(answer.correlation_id, inner);
    size += i === 0 ? part : 1 + varintBytes(part) + part;
  }
  const head = framed ? GRPC_FRAME_HEAD_BYTES : 0;
  const buf = Buffer.allocUnsafe(head + size);
  if (framed) grpcFramePrefix.write(buf, size);
  let pos = head;
  for (let i = 0; i < count; i++) {
    const answer = answers[i]!;
    const id = answer.correlation_id;
    const inner = innerBytes[i]!;
    if (i > 0) {
      buf[pos] = responseKeys.outcomes;
      pos = writeVarint(buf, pos + 1, answerBytes(id, inner));
    }
    buf[pos] = correlationIdKey;
    pos = writeVarint(buf, pos + 1, id);
    if ("result" in answer) {
      buf[pos] = responseKeys.result;
      pos = writeVarint(buf, pos + 1, inner);
      pos = writeAppendResult(buf, pos, answer.result, streamIdBytes[i]!);
    } else {
      buf[pos] = responseKeys.error;
      pos = writeVarint(buf, pos + 1, inner);
      pos += errors![i]!.copy(buf, pos);
    }
  }
  assert(pos === head + size, "AppendSessionResponse: the bytes written are the bytes counted");
  return buf;
}

/**
 * One message of a session's answers: one answer as fields 1 to 3; several (only to a client that
 * sent several appends in a message) as the first one's fields and the others in `outcomes`.
 */
export function encodeAppendSessionResponse(answers: readonly AppendSessionAnswer[]): Buffer {
  return encodeAppendSessionResponses(answers, false);
}

/** A read session's one answer; a ReadSessionResponse carries no more than one. */
function onlyAnswer<A>(answers: readonly A[]): A {
  if (answers.length !== 1) throw new Error("a read session's answer message carries one read's answer");
  return answers[0]!;
}

/** The result as the unary Read's codec encodes it (stored event bytes copied as they are). */
export function encodeReadSessionResponse(answers: readonly ReadSessionAnswer[]): Buffer {
  return encodeSessionResponse(onlyAnswer(answers), encodeReadResult, false);
}

/** The answers as a whole gRPC frame, for the fast carrier (./fast-carrier/session-call.ts). */
export function encodeAppendSessionFrame(answers: readonly AppendSessionAnswer[]): Buffer {
  return encodeAppendSessionResponses(answers, true);
}

export function encodeReadSessionFrame(answers: readonly ReadSessionAnswer[]): Buffer {
  return encodeSessionResponse(onlyAnswer(answers), encodeReadResult, true);
}

// ---- client ----

/** One append's request message (and, with `appends`, the further appends of the same message). */
export function encodeAppendSessionRequest(request: {
  correlation_id: number;
  append: AppendRequestMessage;
  appends?: readonly { correlation_id: number; append: AppendRequestMessage }[];
}): Buffer {
  const first = wrap(request.correlation_id, requestKeys.payload, encodeAppendRequest(request.append));
  if (request.appends === undefined || request.appends.length === 0) return first;
  return joinAppendSessionRequests([
    first,
    ...request.appends.map((entry) =>
      wrap(entry.correlation_id, requestKeys.payload, encodeAppendRequest(entry.append)),
    ),
  ]);
}

/**
 * One message carrying the appends of one-append messages (as encodeAppendSessionRequest makes
 * them): the first one's bytes, then each other one's as an entry of `appends` (an entry has the
 * fields of a one-append message). One message is returned as it is.
 */
export function joinAppendSessionRequests(messages: readonly Buffer[]): Buffer {
  const first = messages[0];
  if (first === undefined) throw new Error("a session request message carries at least one append");
  if (messages.length === 1) return first;
  let size = first.length;
  for (let i = 1; i < messages.length; i++) size += appendsEntryBytes(messages[i]!.length);
  const buf = Buffer.allocUnsafe(size);
  let pos = first.copy(buf, 0);
  for (let i = 1; i < messages.length; i++) {
    const message = messages[i]!;
    buf[pos] = appendsKey;
    pos = writeVarint(buf, pos + 1, message.length);
    pos += message.copy(buf, pos);
  }
  return buf;
}

/** Bytes a one-append message of `bytes` bytes takes as an entry of `appends`. */
export function appendsEntryBytes(bytes: number): number {
  return 1 + varintBytes(bytes) + bytes;
}

export function encodeReadSessionRequest(request: {
  correlation_id: number;
  read: ReadRequestMessage;
}): Buffer {
  return wrap(request.correlation_id, requestKeys.payload, encodeReadRequest(request.read));
}

const decodeSessionError = messageDecoder<SessionError__Output>("SessionError");

/** An answer message; with `outcomes` (AppendSessionResponse), field 4's answers are read into it. */
function decodeSessionResponse<Result>(
  buf: Buffer,
  decodeResult: (bytes: Buffer) => Result,
  outcomes?: DecodedSessionAnswer<Result>[],
): DecodedSessionAnswer<Result> {
  const r = readerFor(buf);
  const answer: DecodedSessionAnswer<Result> = { correlation_id: 0 };
  while (r.pos < r.end) {
    const key = r.varint32();
    switch (key) {
      case correlationIdKey:
        answer.correlation_id = r.uint64();
        break;
      case responseKeys.result:
        answer.result = decodeResult(r.bytes());
        break;
      case responseKeys.error:
        answer.error = decodeSessionError(r.bytes());
        break;
      default:
        if (key === responseKeys.outcomes && outcomes !== undefined) {
          outcomes.push(decodeSessionResponse(r.bytes(), decodeResult));
        } else r.skip(key);
    }
  }
  return answer;
}

export function decodeAppendSessionResponse(buf: Buffer): DecodedAppendSessionAnswer {
  const outcomes: DecodedSessionAnswer<AppendResult>[] = [];
  const answer = decodeSessionResponse(buf, decodeAppendResult, outcomes) as DecodedAppendSessionAnswer;
  answer.outcomes = outcomes;
  return answer;
}

export function decodeReadSessionResponse(buf: Buffer): DecodedSessionAnswer<ReadStreamResult> {
  return decodeSessionResponse(buf, decodeReadResult);
}

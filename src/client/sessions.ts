/**
 * The client's side of Streams.AppendSession and Streams.ReadSession, whatever carries the call
 * (grpc-js here, ./grpc-session-call.ts; the benchmark's load generator plugs in its own):
 * requests are numbered with correlation ids counting up from 1 per session, each answer settles
 * the request with its id in whatever order answers come, and when the call ends every request
 * still waiting fails with the call's status.
 */
import type { AppendResult, ReadStreamResult } from "../contract/bodies.js";
import { EssError } from "../errors.js";
import { limits } from "../limits.js";
import type { AppendRequestMessage } from "../rpc/codec/append.js";
import type { ReadRequestMessage } from "../rpc/codec/read-requests.js";
import { fromPbSessionError } from "../rpc/error-mapping.js";
import { proto } from "../rpc/proto.js";
import {
  decodeAppendSessionResponse,
  decodeReadSessionResponse,
  encodeAppendSessionRequest,
  encodeReadSessionRequest,
  type DecodedSessionAnswer,
} from "../rpc/session-codec.js";
import { PendingRequests } from "./pending-requests.js";

/** What differs between the two kinds of session; the rest is `openSession` below. */
export interface SessionKind<Payload, Result> {
  /** "append", "read": for the errors of a session that ended or was closed. */
  noun: string;
  path: string;
  encode(correlationId: number, payload: Payload): Buffer;
  decode(answer: Buffer): DecodedSessionAnswer<Result>;
  /** The largest answer message taken: a longer one is a broken or hostile server. */
  answerBytesMax: number;
}

export const appendSessionKind: SessionKind<AppendRequestMessage, AppendResult> = {
  noun: "append",
  path: proto.ess.v1.Streams.service.AppendSession.path,
  encode: (correlation_id, append) => encodeAppendSessionRequest({ correlation_id, append }),
  decode: decodeAppendSessionResponse,
  // A result or an error of well under a KiB.
  answerBytesMax: 4 * 1024 * 1024,
};

export const readSessionKind: SessionKind<ReadRequestMessage, ReadStreamResult> = {
  noun: "read",
  path: proto.ess.v1.Streams.service.ReadSession.path,
  encode: (correlation_id, read) => encodeReadSessionRequest({ correlation_id, read }),
  decode: decodeReadSessionResponse,
  // A full read page, as the unary Read may answer too.
  answerBytesMax: limits.rpcClientAnswerBytesMax,
};

/** One session call as `openSession` drives it, whichever transport carries it. */
export interface SessionCall {
  /** One encoded request message. */
  send(message: Buffer): void;
  halfClose(): void;
  /** Holds the process open while requests wait for answers (or lets it exit). */
  hold(busy: boolean): void;
}

export interface SessionCallHandlers<Result> {
  answer(answer: DecodedSessionAnswer<Result>): void;
  /** Once, when the call has ended: the error its waiting requests fail with. */
  ended(error: EssError): void;
}

/** A session as its owner uses it. */
export interface Session<Payload, Result> {
  /**
   * Sends one request; `payload` checks and builds it, so that a bad request is rejected (its
   * promise, not a throw) before anything is sent.
   */
  request(payload: () => Payload): Promise<Result>;
  /** Half-closes the call; resolves once the call has ended. */
  close(): Promise<void>;
}

/** What requests still waiting fail with when a session ended with OK (after a half-close). */
export const sessionEnded = (noun: string): EssError =>
  new EssError("UNAVAILABLE", `the ${noun} session has ended`);

interface PendingRequest<Result> {
  id: number;
  resolve(result: Result): void;
  reject(error: EssError): void;
}

/**
 * A session on the call `open` makes. When the call ends, every request still waiting is
 * rejected with the call's status (UNAVAILABLE when it ended with OK yet left requests
 * unanswered); later requests too.
 */
export function openSession<Payload, Result>(
  kind: SessionKind<Payload, Result>,
  open: (handlers: SessionCallHandlers<Result>) => SessionCall,
): Session<Payload, Result> {
  const pending = new PendingRequests<PendingRequest<Result>>();
  let nextId = 1;
  let endError: EssError | null = null;
  let halfClosed = false;
  let resolveEnded: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    resolveEnded = resolve;
  });
  const call = open({
    answer(answer) {
      const waiting = pending.take(answer.correlation_id);
      if (waiting === undefined) return;
      if (pending.size === 0) call.hold(false);
      if (answer.result) waiting.resolve(answer.result);
      else if (answer.error) waiting.reject(fromPbSessionError(answer.error));
      else waiting.reject(new EssError("INTERNAL", "internal error"));
    },
    ended(error) {
      endError ??= error;
      for (const waiting of pending.takeAll()) waiting.reject(endError);
      resolveEnded();
    },
  });

  return {
    request(payload) {
      if (endError !== null) return Promise.reject(endError);
      if (halfClosed)
        return Promise.reject(new EssError("UNAVAILABLE", `the ${kind.noun} session is closed`));
      const id = nextId++;
      try {
        call.send(kind.encode(id, payload()));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      return new Promise((resolve, reject) => {
        if (pending.size === 0) call.hold(true);
        pending.add({ id, resolve, reject });
      });
    },
    close() {
      if (!halfClosed) {
        halfClosed = true;
        call.halfClose();
      }
      return ended;
    },
  };
}

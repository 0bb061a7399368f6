/**
 * The client's side of Streams.AppendSession and Streams.ReadSession, whatever carries the call
 * (grpc-js here, ./grpc-session-call.ts; the benchmark's load generator plugs in its own):
 * requests are numbered with correlation ids counting up from 1 per session, each answer settles
 * the request with its id in whatever order answers come, and when the call ends every request
 * still waiting fails with the call's status.
 *
 * Appends leave several to a message (docs/rpc.md, "Several appends in one message"): the appends
 * requested in one tick, or while the session's previous message is still being written, are
 * joined into one message, up to limits.sessionAppendsPerMessageMax appends and
 * limits.sessionMessageBytesMax bytes; a lone append leaves at the end of its tick, alone, in the
 * one-append form every server takes. The API stays one call per append, and each append keeps
 * its own result or error. Reads leave one per message, as they are requested.
 */
import type { AppendResult, ReadStreamResult } from "../contract/bodies.js";
import { EssError } from "../errors.js";
import { limits } from "../limits.js";
import type { AppendRequestMessage } from "../rpc/codec/append.js";
import type { ReadRequestMessage } from "../rpc/codec/read-requests.js";
import { fromPbSessionError } from "../rpc/error-mapping.js";
import { proto } from "../rpc/proto.js";
import {
  appendsEntryBytes,
  decodeAppendSessionResponse,
  decodeReadSessionResponse,
  encodeAppendSessionRequest,
  encodeReadSessionRequest,
  joinAppendSessionRequests,
  type DecodedSessionAnswer,
} from "../rpc/session-codec.js";
import { PendingRequests } from "./pending-requests.js";

/** What differs between the two kinds of session; the rest is `openSession` below. */
export interface SessionKind<Payload, Result> {
  /** "append", "read": for the errors of a session that ended or was closed. */
  noun: string;
  path: string;
  /** One request's message. */
  encode(correlationId: number, payload: Payload): Buffer;
  /**
   * Joins requests' messages into one message (AppendSession's `appends`), with the bytes one
   * more takes in it; absent: each request leaves as a message of its own.
   */
  join?: { messages(messages: readonly Buffer[]): Buffer; entryBytes(bytes: number): number };
  /** An answer message: one answer, and any further ones in its `outcomes`. */
  decode(answer: Buffer): DecodedSessionAnswer<Result>;
  /** The largest answer message taken: a longer one is a broken or hostile server. */
  answerBytesMax: number;
}

export const appendSessionKind: SessionKind<AppendRequestMessage, AppendResult> = {
  noun: "append",
  path: proto.ess.v1.Streams.service.AppendSession.path,
  encode: (correlation_id, append) => encodeAppendSessionRequest({ correlation_id, append }),
  join: { messages: joinAppendSessionRequests, entryBytes: appendsEntryBytes },
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
  /**
   * One encoded request message; `written` (if given) runs once the transport has written it to
   * its connection (or given up on it).
   */
  send(message: Buffer, written?: () => void): void;
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
  const settle = (answer: DecodedSessionAnswer<Result>): void => {
    const waiting = pending.take(answer.correlation_id);
    if (waiting === undefined) return;
    if (pending.size === 0) call.hold(false);
    if (answer.result) waiting.resolve(answer.result);
    else if (answer.error) waiting.reject(fromPbSessionError(answer.error));
    else waiting.reject(new EssError("INTERNAL", "internal error"));
  };
  const call = open({
    answer(answer) {
      settle(answer);
      const more = answer.outcomes;
      if (more !== undefined) for (let i = 0; i < more.length; i++) settle(more[i]!);
    },
    ended(error) {
      endError ??= error;
      for (const waiting of pending.takeAll()) waiting.reject(endError);
      resolveEnded();
    },
  });

  const outgoing =
    kind.join === undefined ? null : new OutgoingMessages(kind.join, call, () => endError === null);
  return {
    request(payload) {
      if (endError !== null) return Promise.reject(endError);
      if (halfClosed)
        return Promise.reject(new EssError("UNAVAILABLE", `the ${kind.noun} session is closed`));
      const id = nextId++;
      try {
        const message = kind.encode(id, payload());
        if (outgoing === null) call.send(message);
        else outgoing.add(message);
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
        // The requests gathered so far leave before the half-close.
        outgoing?.sendNow();
        call.halfClose();
      }
      return ended;
    },
  };
}

/**
 * The requests of a session that joins them (SessionKind.join): they wait to be joined until the
 * end of the tick in which the first of them came, and longer while a message of the session is
 * still being written; a message leaves as soon as it is full (limits.sessionAppendsPerMessageMax
 * requests, or another would take it past limits.sessionMessageBytesMax bytes).
 */
class OutgoingMessages {
  private waiting: Buffer[] = [];
  /** Bytes of the message the waiting requests make. */
  private bytes = 0;
  private scheduled = false;
  /** Messages handed to the call and not yet written. */
  private writing = 0;
  private readonly written = (): void => {
    this.writing--;
    if (this.writing === 0 && !this.scheduled) this.sendNow();
  };
  private readonly endOfTick = (): void => {
    this.scheduled = false;
    if (this.writing === 0) this.sendNow();
  };

  constructor(
    private readonly join: NonNullable<SessionKind<unknown, unknown>["join"]>,
    private readonly call: SessionCall,
    /** False once the call has ended: what still waits is dropped (its requests failed with it). */
    private readonly open: () => boolean,
  ) {}

  add(message: Buffer): void {
    const more = this.waiting.length === 0 ? message.length : this.join.entryBytes(message.length);
    if (this.waiting.length > 0 && this.bytes + more > limits.sessionMessageBytesMax) this.sendNow();
    this.waiting.push(message);
    this.bytes += this.waiting.length === 1 ? message.length : more;
    if (this.waiting.length >= limits.sessionAppendsPerMessageMax) this.sendNow();
    else if (!this.scheduled && this.writing === 0) {
      this.scheduled = true;
      // After this tick's promise jobs too: the appends an application issues concurrently.
      process.nextTick(this.endOfTick);
    }
  }

  /** Sends the waiting requests as one message, whatever is being written. */
  sendNow(): void {
    if (this.waiting.length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    this.bytes = 0;
    if (!this.open()) return;
    this.writing++;
    this.call.send(waiting.length === 1 ? waiting[0]! : this.join.messages(waiting), this.written);
  }
}

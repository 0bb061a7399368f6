/**
 * A gRPC method, defined once for every carrier: its path, its kind, whether it needs a token,
 * how its request is decoded, how its answer is encoded, and what serves it. The carriers
 * (../grpc-js-carrier.ts for every method, ../fast-carrier/ for the methods where it is measured
 * to matter) only move bytes: a handler here never learns which one serves its call, and holds
 * no carrier's type.
 *
 * What every carrier keeps, for every method:
 * - an "authenticated" method's token is verified before a byte of its request is decoded: a call
 *   without a valid token is UNAUTHENTICATED whatever it sent (docs/auth.md, "Order of checks");
 *   a session checks its token itself, once, before it takes its first request;
 * - `decode` throws an INVALID_ARGUMENT EssError for bytes that are not a valid message of its
 *   type or whose text is not UTF-8 (../malformed-request.ts), answered with that error; any other
 *   throw is a bug, answered INTERNAL ("Error deserializing request", as grpc-js answers);
 * - a unary call is answered once, through `done`.
 */
import type { status as GrpcStatus } from "@grpc/grpc-js";
import type { EssError } from "../../errors.js";
import { toEssError } from "../../errors.js";
import type { CallContext } from "../../operations/contract.js";
import type { BudgetedStream, ConnectionReadBudget } from "../connection-read-budget.js";
import type { SessionChannel } from "../pipelined-session.js";
import type { SessionAnswer } from "../session-codec.js";

/** Which part of the server carried a call (in CallContext, for the slow-operation log). */
export type Carrier = NonNullable<CallContext["carrier"]>;

/** A status of gRPC's own with no error of the contract behind it (grpc.health.v1's NOT_FOUND). */
export interface GrpcFailure {
  readonly code: GrpcStatus;
  readonly details: string;
}

/** Why a call failed: an error of the contract (status and error trailers), or a bare gRPC status. */
export type Failure = EssError | GrpcFailure;

/** An operation's outcome: its result, or the failure to answer with. */
export type Outcome<Result> = { error: null; result: Result } | { error: Failure };

/** "public": no token needed (Auth.Login, the health checks); "authenticated": a valid token first. */
export type Access = "public" | "authenticated";

interface MethodBase<Request> {
  /** The HTTP/2 `:path`: `/ess.v1.Streams/Append`. */
  readonly path: string;
  readonly access: Access;
  /** The request message's bytes (without the gRPC frame head) as the request. */
  readonly decode: (message: Buffer) => Request;
}

/** What a unary method's handler sees of its call. */
export interface UnaryCall {
  /** The caller: the authorization header's token (verified for an authenticated method). */
  readonly ctx: CallContext;
  /** The client went away or the deadline passed: nothing more reaches it. */
  readonly cancelled: boolean;
  /** The call's stream, closed once the answer is written or the call is gone (the read budget watches it). */
  readonly stream: BudgetedStream;
  /** The read budget of the call's connection (../connection-read-budget.ts). */
  readBudget(): ConnectionReadBudget;
}

export interface UnaryMethod<Request, Result> extends MethodBase<Request> {
  readonly kind: "unary";
  readonly encode: (result: Result) => Buffer;
  /**
   * The answer as a whole gRPC frame (head and message), for a carrier that writes frames itself;
   * without it such a carrier frames `encode`'s message.
   */
  readonly encodeFrame?: (result: Result) => Buffer;
  readonly serve: (call: UnaryCall, request: Request, done: (outcome: Outcome<Result>) => void) => void;
}

/** What a server-streaming method's handler sees of its call. */
export interface ServerStreamCall<Message> {
  readonly ctx: CallContext;
  /** The client's address and port, for logs. */
  readonly peer: string;
  /** Nothing more can be written: ended here, cancelled or reset by the client, past its deadline. */
  readonly ended: boolean;
  /**
   * Hands one message to HTTP/2; `written` runs once it is written to the socket, or dropped with
   * the call. Nothing happens once the call has ended.
   */
  write(message: Message, written: () => void): void;
  /** Ends the call with OK (null) or the failure's status, after the messages written before. */
  end(failure: Failure | null): void;
  /**
   * Resets the call's HTTP/2 stream (RST_STREAM CANCEL): what is queued for it is dropped, not
   * sent first, and no status is sent. False when the carrier cannot (the call goes on as it was).
   */
  reset(): boolean;
  /** Runs `listener` once, when the call ends, whichever side ends it. */
  onEnd(listener: () => void): void;
  /**
   * Runs `listener` once, when the call's stream is closed (its status written, reset, or its
   * connection gone): later than onEnd while a status waits behind messages the client does not take.
   */
  onClosed(listener: () => void): void;
}

export interface ServerStreamMethod<Request, Message> extends MethodBase<Request> {
  readonly kind: "server-stream";
  readonly encode: (message: Message) => Buffer;
  readonly serve: (call: ServerStreamCall<Message>, request: Request) => void;
}

/** A bidirectional stream of requests and answers (Streams.AppendSession, ReadSession: ../pipelined-session.ts). */
export interface SessionMethod<Request, Result> extends MethodBase<Request> {
  readonly kind: "session";
  /** One answer message: one answer, or several (../pipelined-session.ts). */
  readonly encode: (answers: readonly SessionAnswer<Result>[]) => Buffer;
  /** The answer message as a whole gRPC frame (head and message), for a carrier that writes frames itself. */
  readonly encodeFrame: (answers: readonly SessionAnswer<Result>[]) => Buffer;
  /** Opens a session on its call; `ctx` holds the call's token, not yet verified. */
  readonly open: (channel: SessionChannel<Request, Result>, ctx: CallContext) => void;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- a table holds methods of every request and result type; each carrier treats them alike */
export type AnyUnaryMethod = UnaryMethod<any, any>;
export type AnyServerStreamMethod = ServerStreamMethod<any, any>;
export type AnySessionMethod = SessionMethod<any, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

export type RpcMethod = AnyUnaryMethod | AnyServerStreamMethod | AnySessionMethod;

/**
 * Runs an operation and reports its outcome: a rejection or a synchronous throw (INVALID_JSON
 * from the bytes) becomes the EssError to answer with.
 */
export function runOperation<Request, Result>(
  run: (ctx: CallContext, request: Request) => Promise<Result>,
  ctx: CallContext,
  request: Request,
  done: (outcome: Outcome<Result>) => void,
): void {
  let pending: Promise<Result>;
  try {
    pending = run(ctx, request);
  } catch (error) {
    pending = Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  pending.then(
    (result) => done({ error: null, result }),
    (error: unknown) => done({ error: toEssError(error) }),
  );
}

/** A unary method's `serve` that runs an operation in the call's context. */
export function servedByOperation<Request, Result>(
  run: (ctx: CallContext, request: Request) => Promise<Result>,
): UnaryMethod<Request, Result>["serve"] {
  return (call, request, done) => runOperation(run, call.ctx, request, done);
}

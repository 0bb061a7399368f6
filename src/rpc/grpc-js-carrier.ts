/**
 * The grpc-js carrier: every method of the table (./methods/) on a grpc-js Server, through its
 * public API only (`Server#register`; `addService` for server reflection, grpc-js's own). It
 * serves what the fast carrier leaves to it (./fast-carrier/: compressed calls, the methods it
 * does not take, unknown paths), or every call when the fast carrier is off
 * (SERVICE_RPC_FAST_CARRIER=false; docs/rpc.md, "Carriers").
 *
 * - Unary methods are registered as server-streaming ones. grpc-js's unary API does not tell
 *   when an answer has been written, which a connection's read budget waits for
 *   (./connection-read-budget.ts); a server-streaming handler's write callback does. On the wire
 *   the two are the same: one message, then the status.
 * - Requests are kept as bytes until the call's token is verified (./methods/admission.ts); a
 *   session decodes its requests as it reads them, and reads none before it has authenticated.
 * - A call's peer (its connection, for the read budget and the login throttle) is grpc-js's
 *   `getPeer()`, or behind the fast carrier's hop the hop's `x-ess-forwarded-peer` header, which
 *   the hop always sets itself (./fast-carrier/hop.ts).
 */
import * as grpc from "@grpc/grpc-js";
import { ReflectionService } from "@grpc/reflection";
import { contextOfHeader } from "../operations/authenticate.js";
import { contextWith, type CallContext } from "../operations/contract.js";
import { limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type {
  BudgetedStream,
  ConnectionReadBudget,
  ConnectionReadBudgets,
} from "./connection-read-budget.js";
import { toServiceError } from "./error-mapping.js";
import { acceptRequestId, requestIdHeader } from "../contract/request-id.js";
import { orMalformed, type MalformedRequest } from "./malformed-request.js";
import { admitCall, callContext, type Admission } from "./methods/admission.js";
import type {
  AnyServerStreamMethod,
  AnySessionMethod,
  AnyUnaryMethod,
  Failure,
  Outcome,
  RpcMethod,
  ServerStreamCall,
  UnaryCall,
} from "./methods/method.js";
import type { SessionChannel } from "./pipelined-session.js";
import { packageDefinition, receiveMessageBytesMax } from "./proto.js";
import type { SessionAnswer } from "./session-codec.js";

/** The hop's header naming the client's connection (`address:port`); read only behind the hop. */
export const forwardedPeerHeader = "x-ess-forwarded-peer";

export interface GrpcJsCarrierOptions {
  admission: Admission;
  readBudgets: ConnectionReadBudgets;
  /** Every call comes through the fast carrier's hop, which names the client's connection. */
  behindHop: boolean;
}

/** grpc-js's own diagnostics go to our logger (at debug), not raw to stderr. */
function routeGrpcLogs(logger: Logger): void {
  const log = (...args: unknown[]): void => logger.debug("grpc", { detail: args.map(String).join(" ") });
  grpc.setLogger({ error: log, info: log, debug: log });
}

/** A grpc-js Server with every method of `methods`, grpc.health.v1 among them, and reflection. */
export function createGrpcJsCarrier(
  methods: Iterable<RpcMethod>,
  options: GrpcJsCarrierOptions,
  logger: Logger,
): grpc.Server {
  routeGrpcLogs(logger);
  const server = new grpc.Server({
    // No channelz bookkeeping per call (nothing here reads it; docs/rpc.md, "Per-call cost").
    "grpc.enable_channelz": 0,
    "grpc.max_receive_message_length": receiveMessageBytesMax,
    "grpc.max_send_message_length": -1,
    // What one connection can make the server hold: limits.ts and docs/rpc.md, "Per-connection
    // bounds". grpc-node.max_session_memory stays at grpc-js's default (no limit): past it
    // node:http2 resets new streams with ENHANCE_YOUR_CALM, which clients report as
    // RESOURCE_EXHAUSTED without retrying, and closes the connection after 100 of them, even for
    // a client that reads its answers; unary reads wait for their connection's budget instead.
    // Behind the hop the client's own connection holds the streams limit, and a relayed stream
    // may close here a moment after the client's: the hop's connection takes no limit of its own.
    ...(options.behindHop ? {} : { "grpc.max_concurrent_streams": limits.rpcConnectionStreamsMax }),
  });
  for (const method of methods) {
    if (method.kind === "session") {
      server.register(method.path, sessionHandler(method), method.encode, orMalformed(method.decode), "bidi");
    } else {
      server.register(
        method.path,
        admittedHandler(method, options),
        method.encode,
        keepBytes,
        "serverStream",
      );
    }
  }
  new ReflectionService(packageDefinition).addToServer(server);
  return server;
}

/** The request's bytes as they came: decoded once the token is verified. */
function keepBytes(message: Buffer): Buffer {
  return message;
}

type SurfaceCall = { readonly metadata: grpc.Metadata; getPeer(): string };

function peerOf(call: SurfaceCall, behindHop: boolean): string {
  if (behindHop) {
    const forwarded = call.metadata.get(forwardedPeerHeader)[0];
    if (typeof forwarded === "string") return forwarded;
  }
  return call.getPeer();
}

function headerContext(call: SurfaceCall, requestId: CallRequestId): CallContext {
  return contextWith(contextOfHeader(call.metadata.get("authorization")[0]), {
    carrier: "grpc-js",
    request_id: requestId.id,
  });
}

/**
 * A call's request id (../contract/request-id.ts), answered where the fast carrier answers it
 * (./fast-carrier/grpc-answers.ts): in the response headers, sent before the first message or
 * an OK end, or in a trailers-only failure's metadata.
 */
class CallRequestId {
  readonly id: string;
  private sent = false;

  constructor(private readonly call: SurfaceCall & { sendMetadata(metadata: grpc.Metadata): void }) {
    this.id = acceptRequestId(call.metadata.get(requestIdHeader)[0]);
  }

  /** Before the first message or an OK end: the headers, with the id. */
  beforeAnswer(): void {
    if (this.sent) return;
    this.sent = true;
    const metadata = new grpc.Metadata();
    metadata.set(requestIdHeader, this.id);
    this.call.sendMetadata(metadata);
  }

  /** A failure's status; before any headers, with the id in its (trailers-only) metadata. */
  failure(failure: Failure): Partial<grpc.StatusObject> {
    const status = toServiceError(failure);
    if (this.sent) return status;
    const metadata = status.metadata ?? new grpc.Metadata();
    metadata.set(requestIdHeader, this.id);
    return { ...status, metadata };
  }
}

type StreamCall<Message> = grpc.ServerWritableStream<Buffer, Message>;

/**
 * A unary call on grpc-js: its own stand-in for the call's stream, closed once the answer is
 * written (the write's callback) or the call fails or is cancelled.
 */
class GrpcJsUnaryCall<Result> implements UnaryCall, BudgetedStream {
  closed = false;
  private closeListeners: (() => void)[] = [];
  private budget: ConnectionReadBudget | null = null;

  constructor(
    private readonly call: StreamCall<Result>,
    readonly ctx: CallContext,
    private readonly peer: string,
    private readonly budgets: ConnectionReadBudgets,
    private readonly requestId: CallRequestId,
  ) {
    call.on("cancelled", this.close);
  }

  get cancelled(): boolean {
    return this.call.cancelled;
  }

  get destroyed(): boolean {
    return this.closed;
  }

  get stream(): BudgetedStream {
    return this;
  }

  once(_event: "close", listener: () => void): this {
    this.closeListeners.push(listener);
    return this;
  }

  readBudget(): ConnectionReadBudget {
    this.budget ??= this.budgets.hold(this.peer);
    return this.budget;
  }

  readonly done = (outcome: Outcome<Result>): void => {
    if (outcome.error !== null) return this.fail(outcome.error);
    this.requestId.beforeAnswer();
    this.call.write(outcome.result, this.close);
    this.call.end();
  };

  fail(failure: Failure): void {
    this.call.emit("error", this.requestId.failure(failure));
    this.close();
  }

  private readonly close = (): void => {
    if (this.closed) return;
    this.closed = true;
    if (this.budget !== null) this.budgets.release(this.peer);
    const listeners = this.closeListeners;
    this.closeListeners = [];
    for (const listener of listeners) listener();
  };
}

/** A server-streaming call on grpc-js. */
class GrpcJsServerStreamCall<Message> implements ServerStreamCall<Message> {
  ended = false;
  private endListeners: (() => void)[] = [];
  private closedListeners: (() => void)[] | null = [];

  constructor(
    private readonly call: StreamCall<Message>,
    readonly ctx: CallContext,
    readonly peer: string,
    private readonly requestId: CallRequestId,
  ) {
    call.on("cancelled", this.closed);
    call.on("close", this.closed);
    call.on("error", this.markEnded);
  }

  write(message: Message, written: () => void): void {
    if (this.ended) return;
    this.requestId.beforeAnswer();
    this.call.write(message, written);
  }

  end(failure: Failure | null): void {
    if (this.ended) return;
    this.markEnded();
    if (this.call.cancelled) return;
    if (failure !== null) {
      this.call.emit("error", this.requestId.failure(failure));
      return;
    }
    this.requestId.beforeAnswer();
    this.call.end();
  }

  /**
   * grpc-js has no public way to end a server call without its status, which would wait behind
   * the messages queued for a client that does not read them: nothing to do here, and the caller
   * ends the call with a status instead (docs/rpc.md, "Slow and stalled subscribers").
   */
  reset(): boolean {
    return false;
  }

  onEnd(listener: () => void): void {
    if (this.ended) listener();
    else this.endListeners.push(listener);
  }

  onClosed(listener: () => void): void {
    if (this.closedListeners === null) listener();
    else this.closedListeners.push(listener);
  }

  private readonly markEnded = (): void => {
    if (this.ended) return;
    this.ended = true;
    const listeners = this.endListeners;
    this.endListeners = [];
    for (const listener of listeners) listener();
  };

  private readonly closed = (): void => {
    this.markEnded();
    const listeners = this.closedListeners;
    if (listeners === null) return;
    this.closedListeners = null;
    for (const listener of listeners) listener();
  };
}

/** A unary or server-streaming method's handler: the call admitted (./methods/admission.ts), then served. */
function admittedHandler(
  method: AnyUnaryMethod | AnyServerStreamMethod,
  options: GrpcJsCarrierOptions,
): grpc.handleServerStreamingCall<Buffer, unknown> {
  return (call) => {
    const peer = peerOf(call, options.behindHop);
    const requestId = new CallRequestId(call);
    const ctx = callContext(method.access, headerContext(call, requestId), () => peer);
    admitCall(
      method,
      ctx,
      call.request,
      options.admission,
      (admitted, request) => {
        if (method.kind === "server-stream") {
          method.serve(new GrpcJsServerStreamCall(call, admitted, peer, requestId), request);
          return;
        }
        const unaryCall = new GrpcJsUnaryCall(call, admitted, peer, options.readBudgets, requestId);
        method.serve(unaryCall, request, unaryCall.done);
      },
      (failure) => call.emit("error", requestId.failure(failure)),
    );
  };
}

type SessionCall<Request, Result> = grpc.ServerDuplexStream<
  Request | MalformedRequest,
  readonly SessionAnswer<Result>[]
>;

/**
 * A session's channel on a grpc-js call. Each answer costs a socket write of its own: grpc-js's
 * stream object hands one message at a time to HTTP/2 and waits for it to be written before the
 * next (its Writable has no _writev; grpc/grpc-node#2899). The fast carrier writes the answers of
 * a turn together.
 */
function grpcSessionChannel<Request, Result>(
  call: SessionCall<Request, Result>,
  requestId: CallRequestId,
): SessionChannel<Request, Result> {
  return {
    listen(events) {
      // The deserializer gives a MalformedRequest for bad bytes (./malformed-request.ts).
      call.on("data", (request: Request | MalformedRequest) => events.request(request));
      call.on("end", () => events.end());
      call.on("drain", () => events.drain());
      call.on("cancelled", () => events.gone());
      call.on("close", () => events.gone());
      call.on("error", () => events.gone());
      call.pause();
    },
    pause: () => call.pause(),
    resume: () => call.resume(),
    send: (answers, flushed) => {
      requestId.beforeAnswer();
      return call.write(answers, flushed);
    },
    end(status) {
      if (call.cancelled) return;
      if (status !== null) {
        call.emit("error", requestId.failure(status));
        return;
      }
      requestId.beforeAnswer();
      call.end();
    },
  };
}

function sessionHandler(method: AnySessionMethod): grpc.handleBidiStreamingCall<unknown, unknown> {
  return (call) => {
    const requestId = new CallRequestId(call);
    method.open(grpcSessionChannel(call, requestId), headerContext(call, requestId));
  };
}

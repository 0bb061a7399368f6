/**
 * The gRPC server: services ess.v1.{Streams, Admin, Auth, Health}, the standard
 * grpc.health.v1.Health, and server reflection. It only translates: message -> operation
 * request, operation result -> message, EssError -> gRPC status (./error-mapping.ts). Every
 * rule (validation, auth, tenancy) lives in the operations.
 *
 * The bearer token comes from the `authorization: Bearer <token>` metadata. Shutdown stops
 * accepting calls, ends the long-lived streams (health Watch, Subscribe) and waits for the
 * calls in flight, so an append that was accepted is answered before the engine closes.
 *
 * What one client connection can make the server hold is bounded: at most
 * limits.rpcConnectionStreamsMax calls open at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS),
 * unary reads by the bytes of their unwritten answers (./connection-read-budget.ts), sessions by
 * their own bounds (./pipelined-session.ts).
 */
import type * as http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { ReflectionService } from "@grpc/reflection";
import type { ListenAddress } from "../config/config.js";
import { formatAddress } from "../config/config.js";
import { EssError, isEssError, toEssError } from "../errors.js";
import { contextOfHeader } from "../operations/authenticate.js";
import { limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { CallContext, Operations, ReadOptions } from "../operations/contract.js";
import type { AppendResult, EventRecord, ReadAllResult, ReadStreamResult } from "../contract/bodies.js";
import { eventPayloadBytes } from "../storage/stored-event.js";
import {
  decodeAppendRequest,
  decodeReadAllRequest,
  decodeReadRequest,
  encodeAppendResult,
  encodeReadAllResult,
  encodeReadResult,
  withStreamsCodecs,
  type MessagePrefix,
  type StreamsCodecHandlers,
} from "./codec.js";
import * as convert from "./convert.js";
import { toCallFailure, toServiceError } from "./error-mapping.js";
import { authenticatedDecode } from "./authenticated-decode.js";
import type { AdminHandlers } from "./generated/ess/v1/Admin.js";
import type { AppendRequest__Output } from "./generated/ess/v1/AppendRequest.js";
import type { AppendSessionRequest__Output } from "./generated/ess/v1/AppendSessionRequest.js";
import type { AuthHandlers } from "./generated/ess/v1/Auth.js";
import type { HealthHandlers } from "./generated/ess/v1/Health.js";
import type { ReadRequest__Output } from "./generated/ess/v1/ReadRequest.js";
import type { ReadAllRequest__Output } from "./generated/ess/v1/ReadAllRequest.js";
import type { ReadSessionRequest__Output } from "./generated/ess/v1/ReadSessionRequest.js";
import type { SubscribeRequest__Output } from "./generated/ess/v1/SubscribeRequest.js";
import type { SubscribeResponse } from "./generated/ess/v1/SubscribeResponse.js";
import type { HealthHandlers as GrpcHealthHandlers } from "./generated/grpc-health/grpc/health/v1/Health.js";
import type { HealthCheckResponse } from "./generated/grpc-health/grpc/health/v1/HealthCheckResponse.js";
import { packageDefinition, proto, receiveMessageBytesMax } from "./proto.js";
import {
  grpcSessionChannel,
  PipelinedSession,
  type AppendSessionCall,
  type ReadSessionCall,
  type SessionChannel,
  type SessionOptions,
} from "./pipelined-session.js";
import {
  decodeAppendSessionRequest,
  decodeReadSessionRequest,
  encodeAppendSessionFrame,
  encodeReadSessionFrame,
  withSessionCodecs,
} from "./session-codec.js";
import { sessionFastPath } from "./session-fast-path.js";
import { TurnQueue } from "./turn-queue.js";
import { ConnectionReadBudget } from "./connection-read-budget.js";
import { callHttp2Stream, serverHttp2Servers } from "./grpc-call-internals.js";
import { grpcFramePrefix } from "./grpc-frame.js";
import { serveFastPath } from "./fast-path.js";
import { refusingMalformed, withMalformedRequests } from "./malformed-request.js";
import { unaryFastPath, type FastUnaryHandler, type FastUnaryMethod } from "./unary-fast-path.js";

export type SubscribeCall = grpc.ServerWritableStream<SubscribeRequest__Output, SubscribeResponse>;

export interface RpcServerOptions {
  operations: Operations;
  address: ListenAddress;
  logger: Logger;
  /**
   * Serves Streams.Subscribe (the subscription logic plugs in here); without it the RPC
   * answers UNIMPLEMENTED. It must end the call when the call is cancelled.
   */
  subscribe?: (ctx: CallContext, call: SubscribeCall) => void;
  /**
   * Streams.AppendSession and ReadSession check the session's token with it once at the start
   * and end the session when the token expires. Without it, a bad token fails the first
   * request instead.
   */
  authenticate?: (ctx: CallContext) => Promise<{ expires_at_ms: number }>;
  /** Requests run at once per AppendSession or ReadSession. Default limits.sessionInFlightMax. */
  sessionInFlightMax?: number;
}

export interface RpcServer {
  /** The bound address (with the real port when port 0 was asked). */
  readonly address: ListenAddress;
  /**
   * Stops accepting calls, ends streaming calls, waits up to `graceMs` for the calls in
   * flight, then cuts what is left.
   */
  close(graceMs?: number): Promise<void>;
}

/** The caller's context from the call's metadata. */
export function callContext(metadata: grpc.Metadata): CallContext {
  return contextOfAuthorization(metadata.get("authorization")[0]);
}

/**
 * The caller's context from its `authorization` header value (../contract/rules.ts: the rule
 * every interface shares; a malformed header fails authentication).
 */
function contextOfAuthorization(value: unknown): CallContext {
  if (typeof value !== "string") return { token: null };
  // A client sends the same header on call after call: parsed once (a fresh context each time).
  if (value !== lastAuthorization) {
    lastContext = contextOfHeader(value);
    lastAuthorization = value;
  }
  return { ...lastContext };
}
let lastAuthorization: string | null = null;
let lastContext: CallContext = { token: null };

/**
 * The contexts of grpc-js calls authenticated before their message was decoded
 * (./authenticated-decode.ts), by call.
 */
const authenticatedContexts = new WeakMap<object, CallContext>();

/** A grpc-js call's context: the authenticated one, else the one its metadata gives. */
function contextOfCall(call: { metadata: grpc.Metadata }): CallContext {
  return authenticatedContexts.get(call) ?? callContext(call.metadata);
}

/** The host part of grpc-js's peer string ("127.0.0.1:5000", "[::1]:5000"); null when not an IP peer. */
export function peerAddress(peer: string): string | null {
  const match = /^\[(.+)\]:\d+$/.exec(peer) ?? /^([^:]+):\d+$/.exec(peer);
  return match?.[1] ?? null;
}

function unary<Req, Res, Out>(
  run: (ctx: CallContext, request: Req) => Promise<Res>,
  toMessage: (result: Res) => Out,
): grpc.handleUnaryCall<Req, Out> {
  return (call, callback) => {
    const ctx = { ...contextOfCall(call), client_address: peerAddress(call.getPeer()) };
    runOperation(run, ctx, call.request, (outcome) => {
      if (outcome.error === null) callback(null, toMessage(outcome.result));
      else callback(toServiceError(outcome.error));
    });
  };
}

/** An operation's outcome: its result, or the EssError to answer with. */
type Outcome<Res> = { error: null; result: Res } | { error: EssError };

function runOperation<Req, Res>(
  run: (ctx: CallContext, request: Req) => Promise<Res>,
  ctx: CallContext,
  request: Req,
  done: (outcome: Outcome<Res>) => void,
): void {
  let pending: Promise<Res>;
  try {
    pending = run(ctx, request);
  } catch (error) {
    // A synchronous throw is answered like a rejection.
    pending = Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  pending.then(
    (result) => done({ error: null, result }),
    (error: unknown) => done({ error: toEssError(error) }),
  );
}

/**
 * What the hot unary methods (Append, Read, ReadAll) need of a call, whether grpc-js carries it
 * or the fast path (./unary-fast-path.ts) does.
 */
interface HotCall {
  readonly ctx: CallContext;
  /** The call's HTTP/2 stream; null when grpc-js keeps it out of reach (./grpc-call-internals.ts). */
  readonly stream: http2.ServerHttp2Stream | null;
  readonly cancelled: boolean;
}

/** A hot unary method, once for both paths: its codec and how a call is served. */
interface HotMethod<Req, Res> {
  decode(message: Buffer): Req;
  encode(result: Res, prefix?: MessagePrefix): Buffer;
  serve(call: HotCall, request: Req, done: (outcome: Outcome<Res>) => void): void;
}

function servedByOperation<Req, Res>(
  run: (ctx: CallContext, request: Req) => Promise<Res>,
): HotMethod<Req, Res>["serve"] {
  return (call, request, done) => runOperation(run, call.ctx, request, done);
}

/** The grpc-js handler of a hot method (the codecs of ./codec.ts encode what it answers). */
function grpcHandler<Req, Res>(method: HotMethod<Req, Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const hotCall: HotCall = {
      ctx: contextOfCall(call),
      stream: callHttp2Stream(call),
      get cancelled() {
        return call.cancelled;
      },
    };
    method.serve(hotCall, call.request, (outcome) => {
      if (outcome.error === null) callback(null, outcome.result);
      else callback(toServiceError(outcome.error));
    });
  };
}

/**
 * The fast-path handler of a hot method: the same rule, answered straight on the stream. The
 * token is verified before the message is decoded, as on the grpc-js path.
 */
function fastHandler<Req, Res>(
  method: HotMethod<Req, Res>,
  authenticate: Operations["authenticate"],
): FastUnaryHandler {
  return (call, message) => {
    const ctx = contextOfAuthorization(call.authorization);
    authenticate(ctx).then(
      (caller) => serveDecoded(method, call, message, { ...ctx, caller }),
      (error: unknown) => call.fail(toCallFailure(toEssError(error))),
    );
  };
}

function serveDecoded<Req, Res>(
  method: HotMethod<Req, Res>,
  call: Parameters<FastUnaryHandler>[0],
  message: Buffer,
  ctx: CallContext,
): void {
  let request: Req;
  try {
    request = method.decode(message);
  } catch (error) {
    // Bad bytes (not protobuf, text not UTF-8): INVALID_ARGUMENT, as on the grpc-js path
    // (./malformed-request.ts). Anything else is a bug, answered as grpc-js answers a
    // deserializer that throws.
    call.fail(
      isEssError(error)
        ? toCallFailure(error)
        : { code: grpc.status.INTERNAL, details: "Error deserializing request" },
    );
    return;
  }
  const hotCall: HotCall = {
    ctx,
    stream: call.stream,
    get cancelled() {
      return call.cancelled;
    },
  };
  method.serve(hotCall, request, (outcome) => {
    if (outcome.error !== null) {
      call.fail(toCallFailure(outcome.error));
      return;
    }
    let frame: Buffer;
    try {
      frame = method.encode(outcome.result, grpcFramePrefix);
    } catch (error) {
      call.fail(toCallFailure(toEssError(error)));
      return;
    }
    call.answer(frame);
  });
}

/** A read's result: a page of events. */
interface ReadPage {
  events: EventRecord[];
}

/** An answer's weight in its connection's budget: its events' data and metadata, as sessions weigh theirs. */
function pageBytes(page: ReadPage): number {
  let bytes = 0;
  for (const event of page.events) bytes += eventPayloadBytes(event);
  return bytes;
}

/**
 * Runs unary Reads and ReadAlls within their connection's budget (./connection-read-budget.ts),
 * then one per turn through the server's queue (./turn-queue.ts), so each answer leaves before the
 * next read of the same batch starts. A call cancelled while it waited is not run. Without the
 * call's HTTP/2 stream (./grpc-call-internals.ts: another grpc-js version), reads go unbounded by
 * their connection's budget, and the server warns once.
 */
class UnaryReads {
  private readonly budgets = new WeakMap<http2.Http2Session, ConnectionReadBudget>();
  private warned = false;

  constructor(
    private readonly queue: TurnQueue,
    private readonly logger: Logger,
  ) {}

  serve<Req, Res extends ReadPage>(
    run: (ctx: CallContext, request: Req) => Promise<Res>,
  ): HotMethod<Req, Res>["serve"] {
    return (call, request, done) => {
      const session = call.stream?.session;
      if (call.stream === null || session === undefined) {
        this.warnUnbounded();
        this.queue.run(() => {
          if (!call.cancelled) runOperation(run, call.ctx, request, done);
        });
        return;
      }
      this.budgetOf(session).admit(call.stream, (grant) =>
        this.queue.run(() => {
          if (call.cancelled) {
            grant.release();
            return;
          }
          runOperation(run, call.ctx, request, (outcome) => {
            grant.settle(outcome.error === null ? pageBytes(outcome.result) : 0);
            done(outcome);
          });
        }),
      );
    };
  }

  private budgetOf(session: http2.Http2Session): ConnectionReadBudget {
    let budget = this.budgets.get(session);
    if (budget === undefined) {
      budget = new ConnectionReadBudget(limits.rpcConnectionUnwrittenReadBytesMax, limits.readPageBytesMax);
      this.budgets.set(session, budget);
    }
    return budget;
  }

  private warnUnbounded(): void {
    if (this.warned) return;
    this.warned = true;
    this.logger.warn("grpc-js call without its HTTP/2 stream: unary reads are not bounded per connection");
  }
}

/** Reads hand the codecs the stored bytes of event text where the engine has them (./codec.ts). */
const storedBytes: ReadOptions = { storedBytes: true };

type ServingStatus = HealthCheckResponse["status"];

/** grpc-js's own diagnostics go to our logger (at debug), not raw to stderr. */
function routeGrpcLogs(logger: Logger): void {
  grpc.setLogger({
    error: (...args: unknown[]) => logger.debug("grpc", { detail: args.map(String).join(" ") }),
    info: (...args: unknown[]) => logger.debug("grpc", { detail: args.map(String).join(" ") }),
    debug: (...args: unknown[]) => logger.debug("grpc", { detail: args.map(String).join(" ") }),
  });
}

export async function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  routeGrpcLogs(options.logger);
  const ops = options.operations;
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
    "grpc.max_concurrent_streams": limits.rpcConnectionStreamsMax,
  });
  /** Long-lived calls to end at shutdown, or tryShutdown would wait for them forever. */
  const streamingCalls = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  /** Append and read sessions to end at shutdown, after answering their requests in flight. */
  const sessions = new Set<{ shutdown(): void }>();
  let closing = false;
  /** Reads and ReadAlls run one per turn of the event loop, so their answers leave as they are ready. */
  const reads = new TurnQueue();
  const unaryReads = new UnaryReads(reads, options.logger);

  /** What a session's requests run: everything but its channel, context and the server's bounds. */
  type SessionRules<Request, Payload, Result> = Pick<
    SessionOptions<Request, Payload, Result>,
    "payloadField" | "payloadOf" | "run" | "schedule" | "answerBytes" | "runningBytes"
  >;

  function openSession<Request extends { correlation_id: number }, Payload, Result>(
    channel: SessionChannel<Request, Result>,
    ctx: CallContext,
    rules: SessionRules<Request, Payload, Result>,
  ): void {
    if (closing) {
      channel.end(new EssError("UNAVAILABLE", "the service is shutting down"));
      return;
    }
    const session = new PipelinedSession<Request, Payload, Result>(
      channel,
      ctx,
      { ...rules, authenticate: options.authenticate, inFlightMax: options.sessionInFlightMax },
      () => sessions.delete(session),
    );
    sessions.add(session);
    session.start();
  }

  const appendSession: SessionRules<AppendSessionRequest__Output, AppendRequest__Output, AppendResult> = {
    payloadField: "append",
    payloadOf: (r) => r.append,
    run: (ctx, append) => ops.append(ctx, convert.fromPbAppendRequest(append)),
  };
  // Reads of a session take their turns in the same queue as unary reads, and wait while the
  // session's unwritten answers, with a whole page for each read running, weigh
  // limits.sessionUnwrittenBytesMax.
  const readSession: SessionRules<ReadSessionRequest__Output, ReadRequest__Output, ReadStreamResult> = {
    payloadField: "read",
    payloadOf: (r) => r.read,
    run: (ctx, read) => ops.read(ctx, convert.fromPbReadRequest(read), storedBytes),
    schedule: (task) => reads.run(task),
    answerBytes: pageBytes,
    runningBytes: limits.readPageBytesMax,
  };

  // Append, Read and ReadAll use the hand-written codecs (./codec.ts): they answer with the
  // operations' results, which the codecs encode directly. Each is served on the fast path
  // (./unary-fast-path.ts) and, for calls it leaves to grpc-js (compressed ones), by grpc-js.
  const hot = {
    Append: {
      decode: decodeAppendRequest,
      encode: encodeAppendResult,
      serve: servedByOperation((ctx, r: AppendRequest__Output) =>
        ops.append(ctx, convert.fromPbAppendRequest(r)),
      ),
    } satisfies HotMethod<AppendRequest__Output, AppendResult>,
    Read: {
      decode: decodeReadRequest,
      encode: encodeReadResult,
      serve: unaryReads.serve((ctx, r: ReadRequest__Output) =>
        ops.read(ctx, convert.fromPbReadRequest(r), storedBytes),
      ),
    } satisfies HotMethod<ReadRequest__Output, ReadStreamResult>,
    ReadAll: {
      decode: decodeReadAllRequest,
      encode: encodeReadAllResult,
      serve: unaryReads.serve((ctx, r: ReadAllRequest__Output) =>
        ops.readAll(ctx, { tenant: r.tenant, from_position: r.from_position, limit: r.limit }, storedBytes),
      ),
    } satisfies HotMethod<ReadAllRequest__Output, ReadAllResult>,
  };

  const streams: StreamsCodecHandlers = {
    Append: grpcHandler(hot.Append),
    Read: grpcHandler(hot.Read),
    GetInfo: unary(
      (ctx, r) => ops.getInfo(ctx, { stream_id: r.stream_id, tenant: r.tenant }),
      convert.toPbStreamInfo,
    ),
    List: unary(
      (ctx, r) => ops.list(ctx, { tenant: r.tenant, prefix: r.prefix, limit: r.limit, cursor: r.cursor }),
      convert.toPbStreamList,
    ),
    ReadAll: grpcHandler(hot.ReadAll),
    SetRetention: unary(
      (ctx, r) =>
        ops.setRetention(ctx, {
          stream_id: r.stream_id,
          tenant: r.tenant,
          max_age_seconds: r.max_age_seconds,
          max_count: r.max_count,
          truncate_before: r.truncate_before,
        }),
      convert.toPbStreamInfo,
    ),
    Delete: unary(
      (ctx, r) => ops.delete(ctx, { stream_id: r.stream_id, tenant: r.tenant }),
      convert.toPbStreamInfo,
    ),
    // Sessions are served on the fast path (./session-fast-path.ts); grpc-js serves the
    // compressed ones.
    AppendSession: (call: AppendSessionCall) =>
      openSession(
        grpcSessionChannel<AppendSessionRequest__Output, AppendResult>(call),
        callContext(call.metadata),
        appendSession,
      ),
    ReadSession: (call: ReadSessionCall) =>
      openSession(
        grpcSessionChannel<ReadSessionRequest__Output, ReadStreamResult>(call),
        callContext(call.metadata),
        readSession,
      ),
    Subscribe: (call) => {
      if (!options.subscribe) {
        call.emit("error", {
          code: grpc.status.UNIMPLEMENTED,
          details: "Streams.Subscribe is not available",
        });
        return;
      }
      if (closing) {
        call.emit("error", toServiceError(new EssError("UNAVAILABLE", "the service is shutting down")));
        return;
      }
      streamingCalls.add(call);
      const forget = () => streamingCalls.delete(call);
      call.on("finish", forget);
      call.on("cancelled", forget);
      call.on("close", forget);
      options.subscribe(contextOfCall(call), call);
    },
  };

  const admin: AdminHandlers = {
    ListStreams: unary(
      (ctx, r) =>
        ops.listStreams(ctx, { tenant: r.tenant, prefix: r.prefix, limit: r.limit, cursor: r.cursor }),
      convert.toPbStreamList,
    ),
    Verify: unary((ctx) => ops.verify(ctx), convert.toPbVerifyResult),
    GetStorageStatus: unary((ctx) => ops.getStorageStatus(ctx), convert.toPbStorageStatus),
    ListTenants: unary(
      (ctx, r) => ops.listTenants(ctx, { limit: r.limit, cursor: r.cursor }),
      convert.toPbTenantList,
    ),
    GetTenant: unary((ctx, r) => ops.getTenant(ctx, { tenant_id: r.tenant_id }), convert.toPbTenantDetail),
    Scavenge: unary(
      (ctx, r) => ops.scavenge(ctx, { dry_run: r.dry_run, confirm: r.confirm }),
      convert.toPbScavengeResult,
    ),
    StartJob: unary(
      (ctx, r) => ops.startJob(ctx, { kind: r.kind, dry_run: r.dry_run, confirm: r.confirm }),
      convert.toPbJob,
    ),
    GetJob: unary((ctx, r) => ops.getJob(ctx, { job_id: r.job_id }), convert.toPbJob),
    ListJobs: unary((ctx, r) => ops.listJobs(ctx, { limit: r.limit, cursor: r.cursor }), convert.toPbJobList),
    CreateUser: unary(
      (ctx, r) =>
        ops.createUser(ctx, {
          username: r.username,
          password: r.password,
          tenant_id: r.tenant_id,
          role: r.role,
        }),
      convert.toPbUser,
    ),
    ListUsers: unary(
      (ctx, r) => ops.listUsers(ctx, { limit: r.limit, cursor: r.cursor }),
      convert.toPbUserList,
    ),
    DeleteUser: unary((ctx, r) => ops.deleteUser(ctx, { username: r.username }), convert.toPbUser),
  };

  const auth: AuthHandlers = {
    Login: unary(
      (ctx, r) => ops.login(ctx, { username: r.username, password: r.password }),
      convert.toPbLoginResult,
    ),
    WhoAmI: unary((ctx) => ops.authenticate(ctx), convert.toPbWhoAmIResult),
  };

  const health: HealthHandlers = {
    Check: unary(() => ops.check(), convert.toPbHealthResult),
  };

  // grpc.health.v1: "" is the whole server; each ess.v1 service answers the same.
  const knownServices = ["", "ess.v1.Streams", "ess.v1.Admin", "ess.v1.Auth", "ess.v1.Health"];
  const servingStatus = async (): Promise<ServingStatus> => {
    if (closing) return "NOT_SERVING";
    try {
      // Writable storage serves, even "degraded" by a damaged record: the node still answers
      // every other read, and a probe taking it out of rotation would not mend the record.
      return (await ops.check()).storage.writable ? "SERVING" : "NOT_SERVING";
    } catch {
      return "NOT_SERVING";
    }
  };
  const grpcHealth: GrpcHealthHandlers = {
    Check: (call, callback) => {
      if (!knownServices.includes(call.request.service)) {
        callback({ code: grpc.status.NOT_FOUND, details: `unknown service '${call.request.service}'` });
        return;
      }
      void servingStatus().then((status) => callback(null, { status }));
    },
    List: (_call, callback) => {
      void servingStatus().then((status) =>
        callback(null, { statuses: Object.fromEntries(knownServices.map((name) => [name, { status }])) }),
      );
    },
    Watch: (call) => {
      const known = knownServices.includes(call.request.service);
      let last: ServingStatus | null = null;
      const send = async () => {
        const status: ServingStatus = known ? await servingStatus() : "SERVICE_UNKNOWN";
        if (status !== last && !call.cancelled && call.writable) {
          last = status;
          call.write({ status });
        }
      };
      // Polled: health changes rarely and a watcher only needs to learn it within a second.
      const timer = setInterval(() => void send(), 1000);
      const stop = () => {
        clearInterval(timer);
        streamingCalls.delete(call);
      };
      streamingCalls.add(call);
      call.on("cancelled", stop);
      call.on("close", stop);
      call.on("finish", stop);
      void send();
    },
  };

  // Every call is authenticated before its message is decoded (./authenticated-decode.ts), and
  // a request that is not valid protobuf is answered INVALID_ARGUMENT (./malformed-request.ts):
  // the deserializers give a MalformedRequest instead of throwing, and the handlers answer it.
  const add = <H extends object>(
    service: grpc.ServiceDefinition,
    handlers: H,
    publicMethods: string[],
    handWritten: readonly string[] = [],
  ): void => {
    const checked = withMalformedRequests(service, handWritten);
    const wrapped = authenticatedDecode(
      checked,
      refusingMalformed(checked, handlers as grpc.UntypedServiceImplementation),
      {
        contextOf: callContext,
        authenticate: (ctx: CallContext) => ops.authenticate(ctx),
        contexts: authenticatedContexts,
        // The hand-written decoders check their text fields themselves: no second walk.
        checkingDecoders: new Set<unknown>(handWritten.map((name) => checked[name]?.requestDeserialize)),
        publicMethods: new Set(publicMethods),
      },
    );
    server.addService(wrapped.service, wrapped.handlers);
  };
  add(
    withSessionCodecs(withStreamsCodecs(proto.ess.v1.Streams.service)),
    streams,
    [],
    ["Append", "Read", "ReadAll", "AppendSession", "ReadSession"],
  );
  add(proto.ess.v1.Admin.service, admin, []);
  add(proto.ess.v1.Auth.service, auth, ["Login"]);
  add(proto.ess.v1.Health.service, health, ["Check"]);
  add(proto.grpc.health.v1.Health.service, grpcHealth, ["Check", "List", "Watch"]);
  new ReflectionService(packageDefinition).addToServer(server);

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      formatAddress(options.address),
      grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)),
    );
  });
  const address: ListenAddress = { host: options.address.host, port };

  const http2Servers = serverHttp2Servers(server);
  if (http2Servers === null) {
    options.logger.warn("grpc-js keeps its HTTP/2 servers out of reach: the unary fast path is off");
  } else {
    const streamsPath = "/ess.v1.Streams/";
    const authenticate: Operations["authenticate"] = (ctx) => ops.authenticate(ctx);
    serveFastPath(
      http2Servers,
      new Map([
        ...unaryFastPath(
          new Map<string, FastUnaryMethod>([
            // Fast-path calls that wait for the end of the turn (./unary-fast-path.ts): appends
            // that arrive together on a connection run in halves (./burst-queue.ts); reads all
            // run then, paced by their TurnQueue.
            [
              `${streamsPath}Append`,
              {
                handler: fastHandler(hot.Append, authenticate),
                burstSplitMin: limits.unaryAppendBurstSplitMin,
              },
            ],
            [
              `${streamsPath}Read`,
              { handler: fastHandler(hot.Read, authenticate), burstSplitMin: Number.POSITIVE_INFINITY },
            ],
            [
              `${streamsPath}ReadAll`,
              { handler: fastHandler(hot.ReadAll, authenticate), burstSplitMin: Number.POSITIVE_INFINITY },
            ],
          ]),
          receiveMessageBytesMax,
        ),
        [
          `${streamsPath}AppendSession`,
          sessionFastPath(
            { decode: decodeAppendSessionRequest, encodeFrame: encodeAppendSessionFrame },
            receiveMessageBytesMax,
            (call) => openSession(call, contextOfAuthorization(call.authorization), appendSession),
          ),
        ],
        [
          `${streamsPath}ReadSession`,
          sessionFastPath(
            { decode: decodeReadSessionRequest, encodeFrame: encodeReadSessionFrame },
            receiveMessageBytesMax,
            (call) => openSession(call, contextOfAuthorization(call.authorization), readSession),
          ),
        ],
      ]),
    );
  }

  return {
    address,
    async close(graceMs = 30_000): Promise<void> {
      closing = true;
      for (const call of streamingCalls) {
        // A final status tells the client the stream ended because the server is going away.
        call.emit("error", toServiceError(new EssError("UNAVAILABLE", "the service is shutting down")));
      }
      streamingCalls.clear();
      for (const session of sessions) session.shutdown();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          options.logger.warn("rpc calls still running after the grace period; cutting them", {
            grace_ms: graceMs,
          });
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/**
 * The `Operations` interface over gRPC: every operation calls the matching RPC of a remote
 * `ess` server (used by `ess gateway --upstream host:port`, `ess user ...` and the tests).
 *
 * It answers exactly as the in-process operations would: requests are validated with the same
 * functions (src/operations/validate.ts) before they are sent, so bad input fails with the same
 * EssError, and a failed call is turned back into the EssError the server raised (from the
 * `error-code` and `error-details-bin` trailers). Event data/metadata travel as the JSON text's
 * UTF-8 bytes and come back as the same text. Append, Read and ReadAll use the hand-written codecs of
 * ./codec.ts (the load generator's and the upstream gateway's hot calls); the rest the generic one.
 */
/* eslint-disable @typescript-eslint/unbound-method --
   unary() takes a generated client method and always calls it with its client as `this`. */
import * as grpc from "@grpc/grpc-js";
import type {
  AppendRequest,
  AppendResult,
  CreateUserRequest,
  HealthResult,
  ListStreamsRequest,
  LoginRequest,
  LoginResult,
  PageRequest,
  ReadAllRequest,
  ReadAllResult,
  ReadRequest,
  ReadStreamResult,
  ScavengeRequest,
  ScavengeResult,
  SetRetentionRequest,
  StorageStatus,
  StreamInfo,
  StreamList,
  StreamRequest,
  TenantDetail,
  TenantList,
  TenantRequest,
  User,
  UserList,
  UsernameRequest,
  VerifyResult,
} from "../contract/bodies.js";
import type { CallContext, Caller, Operations } from "../operations/contract.js";
import {
  parseAppendRequest,
  parseCreateUserRequest,
  parseListStreamsRequest,
  parseLoginRequest,
  parsePageRequest,
  parseReadAllRequest,
  parseReadRequest,
  parseScavengeRequest,
  parseSetRetentionRequest,
  parseStreamRequest,
  parseTenantRequest,
  parseUsernameRequest,
} from "../operations/validate.js";
import { EssError } from "../errors.js";
import type { ParsedAppend } from "../operations/validate.js";
import * as codec from "./codec.js";
import * as convert from "./convert.js";
import { fromPbSessionError, fromServiceError, fromStatus } from "./error-mapping.js";
import { isPlainAddress, UnaryCallError, UnaryTransport } from "./unary-transport.js";
import { LeanSessionCall } from "./session-transport.js";
import { PendingRequests } from "./pending-requests.js";
import {
  decodeAppendSessionResponse,
  decodeReadSessionResponse,
  encodeAppendSessionRequest,
  encodeReadSessionRequest,
  type DecodedSessionAnswer,
} from "./session-codec.js";
import { limits } from "../limits.js";
import type { AdminClient } from "./generated/ess/v1/Admin.js";
import type { AuthClient } from "./generated/ess/v1/Auth.js";
import type { HealthClient } from "./generated/ess/v1/Health.js";
import type { StreamsClient } from "./generated/ess/v1/Streams.js";
import { proto } from "./proto.js";

export interface RpcClientOptions {
  /** host:port of the RPC server. */
  address: string;
  /** Milliseconds each call may take before it fails with UNAVAILABLE. Default: no deadline. */
  deadlineMs?: number;
  /** Defaults to plaintext (the service listens without TLS). */
  credentials?: grpc.ChannelCredentials;
}

/**
 * Appends pipelined over one Streams.AppendSession call (one HTTP/2 stream): `append` answers
 * exactly as the unary `append` would, with the same result or the same EssError. The caller
 * bounds how many appends it keeps in flight, as with unary calls; the server reads at most
 * limits.sessionInFlightMax at once and HTTP/2 flow control holds the rest back.
 */
export interface AppendSession {
  append(request: AppendRequest): Promise<AppendResult>;
  /**
   * Half-closes the session: appends already sent are answered, new ones are refused
   * (UNAVAILABLE). Resolves once the server has ended the session.
   */
  close(): Promise<void>;
}

/**
 * Reads pipelined over one Streams.ReadSession call (one HTTP/2 stream): `read` answers exactly
 * as the unary `read` would. As with AppendSession, the caller bounds how many reads it keeps in
 * flight, and the server reads at most limits.sessionInFlightMax requests at once.
 */
export interface ReadSession {
  read(request: ReadRequest): Promise<ReadStreamResult>;
  /** Half-closes the session, as AppendSession's close does. */
  close(): Promise<void>;
}

export interface RpcClient extends Operations {
  /** The underlying clients, for calls outside the Operations interface (Subscribe). */
  readonly grpc: { streams: StreamsClient; admin: AdminClient; auth: AuthClient; health: HealthClient };
  /** Metadata carrying the context's bearer token. */
  metadataFor(ctx: CallContext | null): grpc.Metadata;
  /**
   * Opens a Streams.AppendSession with the context's token. A missing, bad or expired token
   * ends it with UNAUTHENTICATED, which every append still waiting then rejects with. No
   * deadline applies to the session (it is long-lived).
   */
  openAppendSession(ctx: CallContext): AppendSession;
  /** Opens a Streams.ReadSession with the context's token, as openAppendSession does. */
  openReadSession(ctx: CallContext): ReadSession;
  close(): void;
}

type UnaryMethod<Req, Res> = (
  argument: Req,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: grpc.requestCallback<Res>,
) => grpc.ClientUnaryCall;

/** Method paths of the Streams calls that use the hand-written codecs ("/ess.v1.Streams/Append"). */
const streamsPaths = {
  Append: proto.ess.v1.Streams.service.Append.path,
  Read: proto.ess.v1.Streams.service.Read.path,
  ReadAll: proto.ess.v1.Streams.service.ReadAll.path,
};

/** What differs between the two kinds of session; the rest is `openSession` below. */
interface SessionKind<Payload, Result> {
  /** "append", "read": for the errors of a session that ended or was closed. */
  noun: string;
  path: string;
  encode(correlationId: number, payload: Payload): Buffer;
  decode(answer: Buffer): DecodedSessionAnswer<Result>;
  /** The largest answer the lean transport takes (./session-transport.ts). */
  answerBytesMax: number;
}

const appendSessionKind: SessionKind<codec.AppendRequestMessage, AppendResult> = {
  noun: "append",
  path: proto.ess.v1.Streams.service.AppendSession.path,
  encode: (correlation_id, append) => encodeAppendSessionRequest({ correlation_id, append }),
  decode: decodeAppendSessionResponse,
  // A result or an error of well under a KiB.
  answerBytesMax: 4 * 1024 * 1024,
};

const readSessionKind: SessionKind<codec.ReadRequestMessage, ReadStreamResult> = {
  noun: "read",
  path: proto.ess.v1.Streams.service.ReadSession.path,
  encode: (correlation_id, read) => encodeReadSessionRequest({ correlation_id, read }),
  decode: decodeReadSessionResponse,
  // A full read page, as the unary Read may answer too.
  answerBytesMax: limits.rpcClientAnswerBytesMax,
};

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const credentials = options.credentials ?? grpc.credentials.createInsecure();
  const channelOptions: grpc.ChannelOptions = {
    // Read pages stay within limits.readPageBytesMax of payloads (~4 MiB as messages); a larger
    // answer is a broken or hostile server, refused before it is buffered.
    "grpc.max_receive_message_length": limits.rpcClientAnswerBytesMax,
    "grpc.max_send_message_length": -1,
    // No channelz bookkeeping per call (nothing reads it).
    "grpc.enable_channelz": 0,
  };
  const streams = new proto.ess.v1.Streams(options.address, credentials, channelOptions);
  const shared = { ...channelOptions, channelOverride: streams.getChannel() };
  const admin = new proto.ess.v1.Admin(options.address, credentials, shared);
  const auth = new proto.ess.v1.Auth(options.address, credentials, shared);
  const health = new proto.ess.v1.Health(options.address, credentials, shared);
  /**
   * Append sessions through grpc-js (when the lean transport does not apply) get a channel of
   * their own without grpc-js's retry layer, which would wait for each message to reach the
   * socket before sending the next. A session is never retried anyway (a failed session fails
   * its appends). Opened on first use.
   */
  let sessionStreams: StreamsClient | null = null;
  /** Lean sessions not ended yet: close() ends them. */
  const leanSessions = new Set<LeanSessionCall>();

  /** A session over the lean transport on a plaintext host:port, else through grpc-js. */
  function openKind<Payload, Result>(kind: SessionKind<Payload, Result>, ctx: CallContext) {
    if (lean !== null) {
      const token = ctx.token ?? null;
      return openSession(kind, (handlers) =>
        leanSessionCall(options.address, kind, token, handlers, leanSessions),
      );
    }
    sessionStreams ??= new proto.ess.v1.Streams(options.address, credentials, {
      ...channelOptions,
      "grpc.enable_retries": 0,
    });
    const streamsClient = sessionStreams;
    return openSession(kind, (handlers) =>
      grpcJsSessionCall(streamsClient, kind, metadataFor(ctx), handlers),
    );
  }

  const metadataFor = (ctx: CallContext | null): grpc.Metadata => {
    const metadata = new grpc.Metadata();
    if (ctx?.token) metadata.set("authorization", `Bearer ${ctx.token}`);
    return metadata;
  };

  function unary<Req, Res>(
    client: grpc.Client,
    method: UnaryMethod<Req, Res>,
    request: Req,
    ctx: CallContext | null,
  ): Promise<Res> {
    const callOptions: grpc.CallOptions = {};
    if (options.deadlineMs !== undefined) callOptions.deadline = Date.now() + options.deadlineMs;
    return new Promise((resolve, reject) => {
      method.call(client, request, metadataFor(ctx), callOptions, (error, response) => {
        if (error) reject(fromServiceError(error));
        else if (response === undefined) reject(fromServiceError({ code: grpc.status.INTERNAL }));
        else resolve(response);
      });
    });
  }

  /**
   * Append, Read and ReadAll on a plaintext host:port go over the lean transport of
   * ./unary-transport.ts (a fraction of grpc-js's client CPU per call); with other credentials
   * or target syntaxes, through grpc-js.
   */
  const lean =
    options.credentials === undefined && isPlainAddress(options.address)
      ? new UnaryTransport({ address: options.address, deadlineMs: options.deadlineMs })
      : null;

  /** A Streams call on the hand-written codecs (./codec.ts): no generic encode/decode, no convert step. */
  function streamsCall<Req, Res>(
    method: keyof typeof streamsPaths,
    encode: (request: Req) => Buffer,
    decode: (message: Buffer) => Res,
    request: Req,
    ctx: CallContext | null,
  ): Promise<Res> {
    if (lean !== null) {
      return lean.call(streamsPaths[method], encode, decode, request, ctx?.token ?? null).catch(leanError);
    }
    const callOptions: grpc.CallOptions = {};
    if (options.deadlineMs !== undefined) callOptions.deadline = Date.now() + options.deadlineMs;
    return new Promise((resolve, reject) => {
      streams.makeUnaryRequest(
        streamsPaths[method],
        encode,
        decode,
        request,
        metadataFor(ctx),
        callOptions,
        (error, response) => {
          if (error) reject(fromServiceError(error));
          else if (response === undefined) reject(fromServiceError({ code: grpc.status.INTERNAL }));
          else resolve(response);
        },
      );
    });
  }

  const ops: RpcClient = {
    grpc: { streams, admin, auth, health },
    metadataFor,
    close() {
      lean?.close();
      for (const call of leanSessions) call.destroy();
      sessionStreams?.close();
      streams.close();
      admin.close();
      auth.close();
      health.close();
    },

    /**
     * Asks the server who the token belongs to (Auth.WhoAmI): `ess gateway --upstream` has no
     * signing key, so this is how it authenticates a request before it reads the body.
     */
    async authenticate(ctx: CallContext): Promise<Caller> {
      return convert.fromPbWhoAmIResult(await unary(auth, auth.WhoAmI, {}, ctx));
    },

    async check(): Promise<HealthResult> {
      return convert.fromPbHealthResult(await unary(health, health.Check, {}, null));
    },

    async login(ctx: CallContext, request: LoginRequest): Promise<LoginResult> {
      const parsed = parseLoginRequest(request);
      return convert.fromPbLoginResult(await unary(auth, auth.Login, parsed, ctx));
    },

    async append(ctx: CallContext, request: AppendRequest): Promise<AppendResult> {
      const message = codecAppendMessage(parseAppendRequest(request));
      return streamsCall("Append", codec.encodeAppendRequest, codec.decodeAppendResult, message, ctx);
    },

    openAppendSession(ctx: CallContext): AppendSession {
      const session = openKind(appendSessionKind, ctx);
      return {
        append: (request) => session.request(() => codecAppendMessage(parseAppendRequest(request))),
        close: () => session.close(),
      };
    },

    openReadSession(ctx: CallContext): ReadSession {
      const session = openKind(readSessionKind, ctx);
      return {
        read: (request) => session.request(() => readMessage(parseReadRequest(request))),
        close: () => session.close(),
      };
    },

    async read(ctx: CallContext, request: ReadRequest): Promise<ReadStreamResult> {
      const message = readMessage(parseReadRequest(request));
      return streamsCall("Read", codec.encodeReadRequest, codec.decodeReadResult, message, ctx);
    },

    async getInfo(ctx: CallContext, request: StreamRequest): Promise<StreamInfo> {
      const parsed = parseStreamRequest(request);
      const message = { stream_id: parsed.stream_id, tenant: parsed.tenant ?? undefined };
      return convert.fromPbStreamInfo(await unary(streams, streams.GetInfo, message, ctx));
    },

    async list(ctx: CallContext, request: ListStreamsRequest): Promise<StreamList> {
      const message = listStreamsMessage(request);
      return convert.fromPbStreamList(await unary(streams, streams.List, message, ctx));
    },

    async readAll(ctx: CallContext, request: ReadAllRequest): Promise<ReadAllResult> {
      const parsed = parseReadAllRequest(request);
      const message: codec.ReadAllRequestMessage = {
        tenant: parsed.tenant ?? undefined,
        from_position: parsed.from_position,
        limit: parsed.limit,
      };
      return streamsCall("ReadAll", codec.encodeReadAllRequest, codec.decodeReadAllResult, message, ctx);
    },

    async setRetention(ctx: CallContext, request: SetRetentionRequest): Promise<StreamInfo> {
      const parsed = parseSetRetentionRequest(request);
      const message = {
        stream_id: parsed.stream_id,
        tenant: parsed.tenant ?? undefined,
        max_age_seconds: parsed.retention.max_age_seconds ?? undefined,
        max_count: parsed.retention.max_count ?? undefined,
        truncate_before: parsed.retention.truncate_before ?? undefined,
      };
      return convert.fromPbStreamInfo(await unary(streams, streams.SetRetention, message, ctx));
    },

    async delete(ctx: CallContext, request: StreamRequest): Promise<StreamInfo> {
      const parsed = parseStreamRequest(request);
      const message = { stream_id: parsed.stream_id, tenant: parsed.tenant ?? undefined };
      return convert.fromPbStreamInfo(await unary(streams, streams.Delete, message, ctx));
    },

    async listStreams(ctx: CallContext, request: ListStreamsRequest): Promise<StreamList> {
      const message = listStreamsMessage(request);
      return convert.fromPbStreamList(await unary(admin, admin.ListStreams, message, ctx));
    },

    async verify(ctx: CallContext): Promise<VerifyResult> {
      return convert.fromPbVerifyResult(await unary(admin, admin.Verify, {}, ctx));
    },

    async getStorageStatus(ctx: CallContext): Promise<StorageStatus> {
      return convert.fromPbStorageStatus(await unary(admin, admin.GetStorageStatus, {}, ctx));
    },

    async listTenants(ctx: CallContext, request: PageRequest): Promise<TenantList> {
      const message = pageMessage(request);
      return convert.fromPbTenantList(await unary(admin, admin.ListTenants, message, ctx));
    },

    async getTenant(ctx: CallContext, request: TenantRequest): Promise<TenantDetail> {
      const parsed = parseTenantRequest(request);
      return convert.fromPbTenantDetail(await unary(admin, admin.GetTenant, parsed, ctx));
    },

    async scavenge(ctx: CallContext, request: ScavengeRequest): Promise<ScavengeResult> {
      const parsed = parseScavengeRequest(request);
      return convert.fromPbScavengeResult(await unary(admin, admin.Scavenge, parsed, ctx));
    },

    async createUser(ctx: CallContext, request: CreateUserRequest): Promise<User> {
      const parsed = parseCreateUserRequest(request);
      return convert.fromPbUser(await unary(admin, admin.CreateUser, parsed, ctx));
    },

    async listUsers(ctx: CallContext, request: PageRequest): Promise<UserList> {
      const message = pageMessage(request);
      return convert.fromPbUserList(await unary(admin, admin.ListUsers, message, ctx));
    },

    async deleteUser(ctx: CallContext, request: UsernameRequest): Promise<User> {
      const parsed = parseUsernameRequest(request);
      return convert.fromPbUser(await unary(admin, admin.DeleteUser, parsed, ctx));
    },
  };
  return ops;
}

/** A lean call's failure as the EssError grpc-js's ServiceError would have given (fromServiceError). */
function leanError(error: unknown): never {
  if (error instanceof UnaryCallError) {
    const s = error.status;
    throw fromStatus(s.code, s.details, s.errorCode, s.errorDetails);
  }
  // A decoder's error on a malformed answer: grpc-js reports it as INTERNAL.
  throw fromServiceError({ code: grpc.status.INTERNAL });
}

/** The unary Append's message for the hand-written codec: data/metadata stay text until encoded. */
function codecAppendMessage(parsed: ParsedAppend): codec.AppendRequestMessage {
  return {
    stream_id: parsed.stream_id,
    tenant: parsed.tenant ?? undefined,
    events: parsed.events.map((e) => ({
      event_type: e.event_type,
      data: e.data,
      metadata: e.metadata,
      event_id: e.event_id ?? undefined,
    })),
    expected_revision: String(parsed.expected_revision),
  };
}

function readMessage(parsed: ReturnType<typeof parseReadRequest>): codec.ReadRequestMessage {
  return {
    stream_id: parsed.stream_id,
    tenant: parsed.tenant ?? undefined,
    from: parsed.from ?? undefined,
    limit: parsed.limit,
    direction: parsed.direction,
  };
}

interface PendingRequest<Result> {
  id: number;
  resolve(result: Result): void;
  reject(error: EssError): void;
}

/** One session call as the session logic below drives it, whichever transport carries it. */
interface SessionCall {
  /** One encoded request message. */
  send(message: Buffer): void;
  halfClose(): void;
  /** Holds the process open while requests wait for answers (or lets it exit). */
  hold(busy: boolean): void;
}

interface SessionCallHandlers<Result> {
  answer(answer: DecodedSessionAnswer<Result>): void;
  /** Once, when the call has ended: the error its waiting requests fail with. */
  ended(error: EssError): void;
}

/** What requests still waiting fail with when a session ended with OK (after a half-close). */
const sessionEnded = (noun: string): EssError => new EssError("UNAVAILABLE", `the ${noun} session has ended`);

/** The session over the lean transport (./session-transport.ts). */
function leanSessionCall<Result>(
  address: string,
  kind: SessionKind<unknown, Result>,
  token: string | null,
  handlers: SessionCallHandlers<Result>,
  open: Set<LeanSessionCall>,
): SessionCall {
  const call = new LeanSessionCall(address, kind.path, token, kind.answerBytesMax, {
    message: (message) => handlers.answer(kind.decode(message)),
    end: (status) => {
      open.delete(call);
      handlers.ended(
        status.code === grpc.status.OK
          ? sessionEnded(kind.noun)
          : fromStatus(status.code, status.details, status.errorCode, status.errorDetails),
      );
    },
  });
  open.add(call);
  return {
    send: (message) => call.send(message),
    halfClose: () => call.halfClose(),
    hold: (busy) => call.hold(busy),
  };
}

/**
 * The session through grpc-js (TLS or other credentials, grpc-js target syntaxes). Its stream
 * object writes one message at a time and waits for each to reach the socket
 * (grpc/grpc-node#2899), so here every request costs a socket write of its own.
 */
function grpcJsSessionCall<Result>(
  streams: StreamsClient,
  kind: SessionKind<unknown, Result>,
  metadata: grpc.Metadata,
  handlers: SessionCallHandlers<Result>,
): SessionCall {
  const call = streams.makeBidiStreamRequest(
    kind.path,
    (message: Buffer) => message,
    (answer: Buffer) => kind.decode(answer),
    metadata,
    {},
  );
  call.on("data", (answer: DecodedSessionAnswer<Result>) => handlers.answer(answer));
  call.on("error", (error: grpc.ServiceError) => handlers.ended(fromServiceError(error)));
  call.on("status", (status: grpc.StatusObject) => {
    if (status.code === grpc.status.OK) handlers.ended(sessionEnded(kind.noun));
  });
  return {
    send: (message) => call.write(message),
    halfClose: () => call.end(),
    // grpc-js holds the process open while the call is open.
    hold: () => undefined,
  };
}

/**
 * Correlation ids count up from 1 per session; each answer settles the request with its id,
 * whatever order answers come in. When the call ends, every request still waiting is rejected
 * with the call's status (UNAVAILABLE when it ended with OK yet left requests unanswered).
 * `request` takes a function that checks and builds the payload, so that a bad request is
 * rejected (its promise, not a throw) before anything is sent.
 */
function openSession<Payload, Result>(
  kind: SessionKind<Payload, Result>,
  open: (handlers: SessionCallHandlers<Result>) => SessionCall,
): { request(payload: () => Payload): Promise<Result>; close(): Promise<void> } {
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
    request(payload: () => Payload): Promise<Result> {
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
    close(): Promise<void> {
      if (!halfClosed) {
        halfClosed = true;
        call.halfClose();
      }
      return ended;
    },
  };
}

function listStreamsMessage(request: ListStreamsRequest) {
  const parsed = parseListStreamsRequest(request);
  return {
    tenant: parsed.tenant ?? undefined,
    prefix: parsed.prefix ?? undefined,
    limit: parsed.limit,
    cursor: parsed.cursor ?? undefined,
  };
}

function pageMessage(request: PageRequest) {
  const parsed = parsePageRequest(request);
  return { limit: parsed.limit, cursor: parsed.cursor ?? undefined };
}

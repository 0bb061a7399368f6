/**
 * The RPC operations as the transports see them: one method per RPC of docs/contract.md "REST routes"
 * (the proto services Streams, Admin, Auth, Health). Every rule lives behind this interface:
 * validation and limits, authentication, authorization by role, tenant scoping, the scavenge
 * confirm rule and error codes. The gRPC server, the REST gateway (in-process or through
 * `ess gateway --upstream`) and the WebSocket interface only translate to and from it.
 *
 * Requests and results are the contract's bodies (../contract/bodies.ts): requests carry what
 * the client sent, loosely typed where a transport cannot type it (a REST query string is
 * text), and the operations validate every field and throw EssError (INVALID_ARGUMENT, ...) for
 * bad input. This module adds only what the operations themselves define: the call context,
 * the Operations interface and its RPC names.
 */
import type { Caller } from "./authenticate.js";
import type { ErrorCode } from "../errors.js";
import type {
  AppendRequest,
  AppendResult,
  CreateUserRequest,
  DeleteStreamRequest,
  HealthResult,
  Job,
  JobList,
  JobRequest,
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
  SetMetadataRequest,
  SetRetentionRequest,
  StartJobRequest,
  StorageStatus,
  StreamInfo,
  StreamList,
  StreamMetadata,
  StreamRequest,
  TenantDetail,
  TenantList,
  TenantRequest,
  User,
  UserList,
  UsernameRequest,
  VerifyResult,
} from "../contract/bodies.js";

/** Who is calling: the bearer token as received (without "Bearer "), or null when none was sent. */
export interface CallContext {
  token: string | null;
  /** True when the header was there but not `Bearer <token>` (../contract/rules.ts): UNAUTHENTICATED. */
  malformedAuthorization?: boolean;
  /**
   * The caller an interface already authenticated (`Operations.authenticate`) before it read
   * the request, so the operation does not verify the token twice. Only a Caller that
   * `authenticate` itself returned counts (./authenticate.ts); anything else is ignored.
   */
  caller?: Caller;
  /**
   * The client's IP address as the interface sees it, for the login throttle: REST gives the
   * request's remote address, the gRPC server its calls' peer (on the generic unary path, which
   * Login takes). Absent when unknown. The gRPC client does not pass it on, so behind
   * `ess gateway --upstream` the RPC server sees the gateway's own address.
   */
  client_address?: string | null;
  /**
   * Which part of an interface carried the call, for the slow-operation log: the gRPC server's
   * fast carrier or grpc-js (docs/rpc.md, "Carriers"), the REST gateway, the WebSocket interface
   * or the KurrentDB listener (docs/kurrent.md).
   * Absent for a call made in-process.
   */
  carrier?: "fast" | "grpc-js" | "rest" | "ws" | "kurrent";
  /**
   * The request id (../contract/request-id.ts) the interface answers with (`x-request-id`), carried
   * by every log line about the call. Absent for a call made in-process.
   */
  request_id?: string;
  /**
   * Set by an interface on the `authenticate` it runs before it reads a request (REST's
   * bearer check): not a request of its own, so the metrics do not count it (the operation
   * that follows is counted, or the refusal through `refused`).
   */
  admission?: boolean;
}

export type { Caller };

/**
 * `ctx` with `changes` over it, as `{ ...ctx, ...changes }` makes it. Object.assign, not an
 * object spread followed by keys the spread object lacks: Node 20's V8 (11.3) builds that on a
 * slow path, about 2 µs each, and a call made several such contexts (BENCHMARKS.md, "Session of
 * 2026-11-27, 15:15–18:15 UTC").
 */
export function contextWith(ctx: CallContext, changes: Partial<CallContext>): CallContext {
  return Object.assign({}, ctx, changes);
}

export interface Operations {
  /**
   * Who the context's token belongs to, or UNAUTHENTICATED. The interfaces call it before they
   * read a request's body or message (a request is authenticated before it is parsed), then pass
   * the caller on in `CallContext.caller`.
   */
  authenticate(ctx: CallContext): Promise<Caller>;
  // Health
  /** `ctx` names the interface for the metrics; the check needs no token. */
  check(ctx?: CallContext): Promise<HealthResult>;
  // Auth
  login(ctx: CallContext, request: LoginRequest): Promise<LoginResult>;
  // Streams
  append(ctx: CallContext, request: AppendRequest): Promise<AppendResult>;
  read(ctx: CallContext, request: ReadRequest): Promise<ReadStreamResult>;
  getInfo(ctx: CallContext, request: StreamRequest): Promise<StreamInfo>;
  list(ctx: CallContext, request: ListStreamsRequest): Promise<StreamList>;
  readAll(ctx: CallContext, request: ReadAllRequest): Promise<ReadAllResult>;
  setRetention(ctx: CallContext, request: SetRetentionRequest): Promise<StreamInfo>;
  delete(ctx: CallContext, request: DeleteStreamRequest): Promise<StreamInfo>;
  getMetadata(ctx: CallContext, request: StreamRequest): Promise<StreamMetadata>;
  setMetadata(ctx: CallContext, request: SetMetadataRequest): Promise<StreamMetadata>;
  // Admin
  listStreams(ctx: CallContext, request: ListStreamsRequest): Promise<StreamList>;
  verify(ctx: CallContext): Promise<VerifyResult>;
  getStorageStatus(ctx: CallContext): Promise<StorageStatus>;
  listTenants(ctx: CallContext, request: PageRequest): Promise<TenantList>;
  getTenant(ctx: CallContext, request: TenantRequest): Promise<TenantDetail>;
  scavenge(ctx: CallContext, request: ScavengeRequest): Promise<ScavengeResult>;
  /** Starts a verify or scavenge job; refused as the synchronous route would refuse it. */
  startJob(ctx: CallContext, request: StartJobRequest): Promise<Job>;
  /** JOB_NOT_FOUND for an id this process does not know (any more). */
  getJob(ctx: CallContext, request: JobRequest): Promise<Job>;
  listJobs(ctx: CallContext, request: PageRequest): Promise<JobList>;
  createUser(ctx: CallContext, request: CreateUserRequest): Promise<User>;
  listUsers(ctx: CallContext, request: PageRequest): Promise<UserList>;
  deleteUser(ctx: CallContext, request: UsernameRequest): Promise<User>;
  /**
   * An interface tells of a request for `operation` that it refused before the operation ran
   * (a bad token, a body or message that fails its schema): counted in the service's metrics
   * (docs/operations.md, "Metrics"). Optional: the gRPC client has nothing to count.
   */
  refused?(ctx: CallContext, operation: OperationName, code: ErrorCode): void;
}

/** Maps each operation to its proto service and RPC name (used for logs, docs and the gateway). */
export const rpcNames = {
  authenticate: "Auth.WhoAmI",
  check: "Health.Check",
  login: "Auth.Login",
  append: "Streams.Append",
  read: "Streams.Read",
  getInfo: "Streams.GetInfo",
  list: "Streams.List",
  readAll: "Streams.ReadAll",
  setRetention: "Streams.SetRetention",
  delete: "Streams.Delete",
  getMetadata: "Streams.GetMetadata",
  setMetadata: "Streams.SetMetadata",
  listStreams: "Admin.ListStreams",
  verify: "Admin.Verify",
  getStorageStatus: "Admin.GetStorageStatus",
  listTenants: "Admin.ListTenants",
  getTenant: "Admin.GetTenant",
  scavenge: "Admin.Scavenge",
  startJob: "Admin.StartJob",
  getJob: "Admin.GetJob",
  listJobs: "Admin.ListJobs",
  createUser: "Admin.CreateUser",
  listUsers: "Admin.ListUsers",
  deleteUser: "Admin.DeleteUser",
} as const satisfies Record<Exclude<keyof Operations, "refused">, string>;

/** The operation of an RPC name ("Streams.Append" → "append"), for the interfaces' metrics. */
export const operationOfRpcName: ReadonlyMap<string, OperationName> = new Map(
  Object.entries(rpcNames).map(([operation, rpc]) => [rpc, operation as OperationName]),
);

/** An operation's name: the Operations methods that run a request. */
export type OperationName = keyof typeof rpcNames;

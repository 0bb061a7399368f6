/**
 * The REST routes of docs/contract.md "REST routes", as data: each route names the one operation it
 * calls, who may call it, the schemas of its path, query and body, and its success response.
 * The gateway (./app.ts) registers exactly these routes and the OpenAPI document (./openapi.ts)
 * describes exactly these, so the two cannot drift apart.
 */
import type { CallContext, OperationName, Operations } from "../operations/contract.js";
import { rpcNames } from "../operations/contract.js";
import * as s from "./schemas/index.js";
import type { JsonSchema } from "./schemas/index.js";
import { keepEventPayloadText } from "./raw-json.js";
import { serializeEventsResult } from "./serialize.js";

/** public: no token; token: any valid token (the operation checks the role); admin: role admin. */
export type Access = "public" | "token" | "admin";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** What a handler receives: the decoded path parameters, the validated query and body. */
export interface RouteInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** The body as sent, for routes with keepBodyText; null otherwise. */
  bodyText: string | null;
}

export interface RouteSpec {
  /** The operation called; "openapi" is the gateway's own document. Also the OpenAPI operationId. */
  operationId: OperationName | "openapi";
  method: HttpMethod;
  /** OpenAPI path template, e.g. /v1/streams/{id}. */
  path: string;
  summary: string;
  access: Access;
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: { schema: JsonSchema; name: string; optional: boolean };
  response: { status: 200 | 201 | 202; schema: JsonSchema; name: string; description: string };
  /** Calls the route's one operation. */
  call(operations: Operations, ctx: CallContext, input: RouteInput): Promise<unknown>;
  /** The handler needs the body's text as well as its parsed value. */
  keepBodyText?: boolean;
  /** Writes the result as JSON text; JSON.stringify unless the route needs better. */
  serialize?: (result: never) => string;
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

export const routes: RouteSpec[] = [
  {
    operationId: "check",
    method: "GET",
    path: "/v1/health",
    summary: "Health check of the service and its storage.",
    access: "public",
    response: {
      status: 200,
      schema: s.healthResult,
      name: "HealthResult",
      description: "The service's health.",
    },
    call: (ops, ctx) => ops.check(ctx),
  },
  {
    operationId: "openapi",
    method: "GET",
    path: "/v1/openapi.json",
    summary: "This OpenAPI 3 document of the gateway.",
    access: "public",
    response: {
      status: 200,
      schema: s.openApiDocument,
      name: "OpenApiDocument",
      description: "The OpenAPI 3.1 document.",
    },
    // Answered by the gateway itself (see app.ts); never calls an operation.
    call: () => Promise.reject(new Error("the OpenAPI route is served by the gateway")),
  },
  {
    operationId: "login",
    method: "POST",
    path: "/v1/auth/login",
    summary: "Exchange a username and password for a bearer token.",
    access: "public",
    body: { schema: s.loginRequest, name: "LoginRequest", optional: false },
    response: { status: 200, schema: s.loginResult, name: "LoginResult", description: "A bearer token." },
    call: (ops, ctx, { body }) => ops.login(ctx, { username: body.username, password: body.password }),
  },
  {
    operationId: "append",
    method: "POST",
    path: "/v1/streams/{id}/append",
    summary: "Append one event or an atomic batch to a stream.",
    access: "token",
    params: s.streamIdParams,
    querystring: s.tenantQuery,
    body: { schema: s.appendRequest, name: "AppendRequest", optional: false },
    response: {
      status: 200,
      schema: s.appendResult,
      name: "AppendResult",
      description: "Where the events went.",
    },
    keepBodyText: true,
    call: (ops, ctx, { params, query, body, bodyText }) => {
      // Payloads go on as the client's own JSON text (stored and read back byte for byte).
      if (bodyText !== null) keepEventPayloadText(body, bodyText);
      // Object.assign, not a spread with new keys after it (slow on Node 20: ../operations/contract.ts, contextWith).
      return ops.append(ctx, Object.assign({}, body, { stream_id: params.id, tenant: str(query.tenant) }));
    },
  },
  {
    operationId: "read",
    method: "GET",
    path: "/v1/streams/{id}",
    summary: "Read a page of a stream's events, forward or backward.",
    access: "token",
    params: s.streamIdParams,
    querystring: s.readQuery,
    response: { status: 200, schema: s.readResult, name: "ReadResult", description: "A page of events." },
    call: (ops, ctx, { params, query }) =>
      ops.read(ctx, {
        stream_id: params.id,
        tenant: query.tenant,
        from: query.from,
        limit: query.limit,
        direction: query.direction,
      }),
    serialize: serializeEventsResult,
  },
  {
    operationId: "getInfo",
    method: "GET",
    path: "/v1/streams/{id}/info",
    summary: "A stream's metadata (answers for a soft-deleted stream too).",
    access: "token",
    params: s.streamIdParams,
    querystring: s.tenantQuery,
    response: {
      status: 200,
      schema: s.streamInfo,
      name: "StreamInfo",
      description: "The stream's metadata.",
    },
    call: (ops, ctx, { params, query }) => ops.getInfo(ctx, { stream_id: params.id, tenant: query.tenant }),
  },
  {
    operationId: "listStreams",
    method: "GET",
    path: "/v1/admin/streams",
    summary: "List streams of every tenant, or of one with ?tenant=.",
    access: "admin",
    querystring: s.streamListQuery,
    response: { status: 200, schema: s.streamList, name: "StreamList", description: "A page of streams." },
    call: (ops, ctx, { query }) =>
      ops.listStreams(ctx, {
        tenant: query.tenant,
        prefix: query.prefix,
        limit: query.limit,
        cursor: query.cursor,
      }),
  },
  {
    operationId: "verify",
    method: "GET",
    path: "/v1/admin/verify",
    summary: "Verify every checksum of the stored data.",
    access: "admin",
    response: {
      status: 200,
      schema: s.verifyResult,
      name: "VerifyResult",
      description: "What was checked and found.",
    },
    call: (ops, ctx) => ops.verify(ctx),
  },
  {
    operationId: "getStorageStatus",
    method: "GET",
    path: "/v1/admin/storage-status",
    summary: "Status of the storage engine.",
    access: "admin",
    response: {
      status: 200,
      schema: s.storageStatus,
      name: "StorageStatus",
      description: "The engine's status.",
    },
    call: (ops, ctx) => ops.getStorageStatus(ctx),
  },
  {
    operationId: "listTenants",
    method: "GET",
    path: "/v1/admin/tenants",
    summary: "Usage of every tenant.",
    access: "admin",
    querystring: s.pageQuery,
    response: {
      status: 200,
      schema: s.tenantList,
      name: "TenantList",
      description: "A page of tenant usage.",
    },
    call: (ops, ctx, { query }) => ops.listTenants(ctx, { limit: query.limit, cursor: query.cursor }),
  },
  {
    operationId: "getTenant",
    method: "GET",
    path: "/v1/admin/tenants/{id}",
    summary: "Usage of one tenant, with its largest streams.",
    access: "admin",
    params: s.tenantIdParams,
    response: {
      status: 200,
      schema: s.tenantDetail,
      name: "TenantDetail",
      description: "The tenant's usage.",
    },
    call: (ops, ctx, { params }) => ops.getTenant(ctx, { tenant_id: params.id }),
  },
  {
    operationId: "scavenge",
    method: "POST",
    path: "/v1/admin/scavenge",
    summary: "Remove events retention and deletes no longer let be read (dry_run, or confirm: true).",
    access: "admin",
    body: { schema: s.scavengeRequest, name: "ScavengeRequest", optional: true },
    response: {
      status: 200,
      schema: s.scavengeResult,
      name: "ScavengeResult",
      description: "What was removed.",
    },
    call: (ops, ctx, { body }) => ops.scavenge(ctx, { dry_run: body.dry_run, confirm: body.confirm }),
  },
  {
    operationId: "startJob",
    method: "POST",
    path: "/v1/admin/jobs",
    summary:
      "Start verify or scavenge as a job in the background; poll it for progress and result (dry_run, or confirm: true for a real scavenge).",
    access: "admin",
    body: { schema: s.startJobRequest, name: "StartJobRequest", optional: false },
    response: {
      status: 202,
      schema: s.jobResult,
      name: "Job",
      description: "The job, queued or already running.",
    },
    call: (ops, ctx, { body }) =>
      ops.startJob(ctx, { kind: body.kind, dry_run: body.dry_run, confirm: body.confirm }),
  },
  {
    operationId: "listJobs",
    method: "GET",
    path: "/v1/admin/jobs",
    summary: "The jobs of this process, newest first (a restart forgets them).",
    access: "admin",
    querystring: s.pageQuery,
    response: { status: 200, schema: s.jobList, name: "JobList", description: "A page of jobs." },
    call: (ops, ctx, { query }) => ops.listJobs(ctx, { limit: query.limit, cursor: query.cursor }),
  },
  {
    operationId: "getJob",
    method: "GET",
    path: "/v1/admin/jobs/{id}",
    summary: "A job: its state, progress, and its result once done.",
    access: "admin",
    params: s.jobIdParams,
    response: { status: 200, schema: s.jobResult, name: "Job", description: "The job." },
    call: (ops, ctx, { params }) => ops.getJob(ctx, { job_id: params.id }),
  },
  {
    operationId: "list",
    method: "GET",
    path: "/v1/streams",
    summary: "List the streams of the caller's tenant.",
    access: "token",
    querystring: s.streamListQuery,
    response: { status: 200, schema: s.streamList, name: "StreamList", description: "A page of streams." },
    call: (ops, ctx, { query }) =>
      ops.list(ctx, { tenant: query.tenant, prefix: query.prefix, limit: query.limit, cursor: query.cursor }),
  },
  {
    operationId: "readAll",
    method: "GET",
    path: "/v1/events",
    summary: "Read the tenant's events in global order, forward or backward, optionally filtered.",
    access: "token",
    querystring: s.readAllQuery,
    response: {
      status: 200,
      schema: s.readAllResult,
      name: "ReadAllResult",
      description:
        "A page of events. A filtered page may hold fewer events than limit, even none; next_position always " +
        "moves past what the page looked at.",
    },
    call: (ops, ctx, { query }) =>
      ops.readAll(ctx, {
        tenant: query.tenant,
        from_position: query.from_position,
        limit: query.limit,
        direction: query.direction,
        stream_prefix: commaList(query.stream_prefix),
        event_type_prefix: commaList(query.event_type_prefix),
        stream_regex: nonEmpty(query.stream_regex),
        event_type_regex: nonEmpty(query.event_type_regex),
      }),
    serialize: serializeEventsResult,
  },
  {
    operationId: "setRetention",
    method: "PUT",
    path: "/v1/streams/{id}/retention",
    summary: "Set a stream's retention; takes effect on reads at once.",
    access: "token",
    params: s.streamIdParams,
    querystring: s.tenantQuery,
    body: { schema: s.retentionRequest, name: "RetentionRequest", optional: false },
    response: {
      status: 200,
      schema: s.streamInfo,
      name: "StreamInfo",
      description: "The stream's metadata.",
    },
    call: (ops, ctx, { params, query, body }) =>
      ops.setRetention(ctx, {
        stream_id: params.id,
        tenant: query.tenant,
        max_age_seconds: body.max_age_seconds,
        max_count: body.max_count,
        truncate_before: body.truncate_before,
      }),
  },
  {
    operationId: "delete",
    method: "DELETE",
    path: "/v1/streams/{id}",
    summary:
      "Soft-delete a stream (appending later continues it), or with ?tombstone=true delete it for good; ?expected_revision= as an append's.",
    access: "token",
    params: s.streamIdParams,
    querystring: s.deleteQuery,
    response: {
      status: 200,
      schema: s.streamInfo,
      name: "StreamInfo",
      description: "The stream's metadata.",
    },
    call: (ops, ctx, { params, query }) =>
      ops.delete(ctx, {
        stream_id: params.id,
        tenant: query.tenant,
        expected_revision: query.expected_revision,
        tombstone: query.tombstone,
      }),
  },
  {
    operationId: "getMetadata",
    method: "GET",
    path: "/v1/streams/{id}/metadata",
    summary: "A stream's metadata document (also of a stream with no event, and after a soft delete).",
    access: "token",
    params: s.streamIdParams,
    querystring: s.tenantQuery,
    response: {
      status: 200,
      schema: s.streamMetadata,
      name: "StreamMetadata",
      description: "The document and its metadata_revision (null and {} when never set).",
    },
    call: (ops, ctx, { params, query }) =>
      ops.getMetadata(ctx, { stream_id: params.id, tenant: query.tenant }),
  },
  {
    operationId: "setMetadata",
    method: "PUT",
    path: "/v1/streams/{id}/metadata",
    summary: "Replace a stream's metadata document; its $maxAge, $maxCount and $tb set the retention.",
    access: "token",
    params: s.streamIdParams,
    querystring: s.tenantQuery,
    body: { schema: s.metadataRequest, name: "MetadataRequest", optional: false },
    response: {
      status: 200,
      schema: s.streamMetadata,
      name: "StreamMetadata",
      description: "The new document and its metadata_revision.",
    },
    call: (ops, ctx, { params, query, body }) =>
      ops.setMetadata(ctx, {
        stream_id: params.id,
        tenant: query.tenant,
        metadata: body.metadata,
        expected_metadata_revision: body.expected_metadata_revision,
      }),
  },
  {
    operationId: "createUser",
    method: "POST",
    path: "/v1/admin/users",
    summary: "Create a user.",
    access: "admin",
    body: { schema: s.createUserRequest, name: "CreateUserRequest", optional: false },
    response: { status: 201, schema: s.user, name: "User", description: "The new user." },
    call: (ops, ctx, { body }) =>
      ops.createUser(ctx, {
        username: body.username,
        password: body.password,
        tenant_id: body.tenant_id,
        role: body.role,
      }),
  },
  {
    operationId: "listUsers",
    method: "GET",
    path: "/v1/admin/users",
    summary: "List users.",
    access: "admin",
    querystring: s.pageQuery,
    response: { status: 200, schema: s.userList, name: "UserList", description: "A page of users." },
    call: (ops, ctx, { query }) => ops.listUsers(ctx, { limit: query.limit, cursor: query.cursor }),
  },
  {
    operationId: "deleteUser",
    method: "DELETE",
    path: "/v1/admin/users/{username}",
    summary: "Delete a user.",
    access: "admin",
    params: s.usernameParams,
    response: { status: 200, schema: s.user, name: "User", description: "The deleted user." },
    call: (ops, ctx, { params }) => ops.deleteUser(ctx, { username: params.username }),
  },
];

/** `/v1/streams/{id}` → `/v1/streams/:id` (Fastify's syntax). */
export function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}

/** The RPC name of a route's operation, for docs and logs. */
export function rpcNameOf(route: RouteSpec): string | null {
  return route.operationId === "openapi" ? null : rpcNames[route.operationId];
}

/** A query parameter holding a comma-separated list; absent or empty: no list. */
function commaList(value: unknown): unknown {
  return typeof value === "string" && value !== "" ? value.split(",") : undefined;
}

/** A query parameter where an empty value means absent. */
function nonEmpty(value: unknown): unknown {
  return value === "" ? undefined : value;
}

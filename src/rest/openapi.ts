/**
 * The OpenAPI 3.1 document of the gateway, generated from the route table and the schemas the
 * gateway validates with (./routes.ts, ./schemas/). It is version "2.0.0" of the service's
 * HTTP interface (the original specification labels the REST interface version 2; paths stay
 * under /v1). The document depends on nothing that changes at run time, so the copy committed
 * as docs/openapi.json must equal what GET /v1/openapi.json serves (a test holds that).
 */
import { requestIdCharsMax } from "../contract/request-id.js";
import { errorCodes } from "../errors.js";
import { codesForStatus } from "./http-errors.js";
import { routes, rpcNameOf, type RouteSpec } from "./routes.js";
import { errorResponse, type JsonSchema } from "./schemas/index.js";

/** info.version of the document: the HTTP interface's version, not the package's. */
export const httpInterfaceVersion = "2.0.0";

const errorDescriptions: Record<number, string> = {
  400: "Bad input: malformed JSON, a field or parameter that is not valid, a scavenge without confirm.",
  401: "Missing, malformed or expired bearer token, or bad credentials. Carries `WWW-Authenticate: Bearer`.",
  403: "The caller's role may not do this.",
  404: "The stream, tenant, user, job or route does not exist.",
  405: "The path exists but not with this method. Carries an `Allow` header.",
  409: "Conflict: wrong expected revision, a scavenge already running, a username taken.",
  410: "The stream was tombstoned (STREAM_TOMBSTONED): it can never be read, appended to or changed again.",
  413: "The body is larger than the limit; it is refused before it is read.",
  415: "A body was sent without `Content-Type: application/json`.",
  429: "Too many failed logins for this username or from this address, too many logins being checked at once, or too many jobs unfinished. Carries `Retry-After` (seconds).",
  500: "A server-side failure: a bug (INTERNAL, the message holds no internals), or stored bytes that fail their checksum (DATA_CORRUPTED, never served as data).",
  503: "The service is shutting down or its storage is not writable.",
};

/** The error statuses a route can answer with. */
export function errorStatusesOf(route: RouteSpec): number[] {
  const statuses = [400, 404, 405, 500, 503];
  if (route.access !== "public") statuses.push(401, 403);
  // Login is throttled; both hash a password, and hashes take bounded turns (docs/auth.md).
  if (route.operationId === "login" || route.operationId === "createUser") statuses.push(429);
  // At most limits.jobsUnfinishedMax jobs at once (src/operations/jobs.ts).
  if (route.operationId === "startJob") statuses.push(409, 429);
  if (route.operationId === "login") statuses.push(401);
  if (route.body) statuses.push(413, 415);
  if (
    route.operationId === "append" ||
    route.operationId === "scavenge" ||
    route.operationId === "createUser" ||
    route.operationId === "delete" ||
    route.operationId === "setMetadata"
  ) {
    statuses.push(409);
  }
  // A tombstoned stream (docs/errors.md, STREAM_TOMBSTONED).
  if (
    ["append", "read", "setRetention", "delete", "getMetadata", "setMetadata"].includes(route.operationId)
  ) {
    statuses.push(410);
  }
  return [...new Set(statuses)].sort((a, b) => a - b);
}

function parametersOf(route: RouteSpec): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (where: "path" | "query", schema: JsonSchema | undefined): void => {
    if (!schema) return;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: where,
        required: where === "path" || required.has(name),
        ...(description === undefined ? {} : { description }),
        schema: rest,
      });
    }
  };
  add("path", route.params);
  add("query", route.querystring);
  return out;
}

const jsonContent = (schema: JsonSchema): JsonSchema => ({ "application/json": { schema } });
const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const accessSentences: Record<RouteSpec["access"], string> = {
  public: "Needs no token.",
  token: "Needs a bearer token; what the caller may do depends on its role (reader, writer, admin).",
  admin: "Needs a bearer token of role admin.",
};

/** Every operation's description: what it does, who may call it, which RPC operation answers. */
function descriptionOf(route: RouteSpec, rpc: string | null): string {
  const calls = rpc === null ? "Served by the gateway itself." : `Calls the RPC operation ${rpc}.`;
  return `${route.summary} ${accessSentences[route.access]} ${calls}`;
}

/** Every response carries the request's id (docs/operations.md, "Request ids and logs"). */
const requestIdHeaders: JsonSchema = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };

function operationOf(route: RouteSpec): JsonSchema {
  const responses: Record<string, JsonSchema> = {
    [String(route.response.status)]: {
      description: route.response.description,
      headers: requestIdHeaders,
      content: jsonContent(ref(route.response.name)),
    },
  };
  for (const status of errorStatusesOf(route)) {
    const codes = codesForStatus(status).join(", ");
    responses[String(status)] = {
      description: `${errorDescriptions[status] ?? "Error."} Codes: ${codes}.`,
      headers: {
        ...requestIdHeaders,
        ...(status === 401
          ? { "WWW-Authenticate": { description: "Always `Bearer`.", schema: { type: "string" } } }
          : {}),
        ...(status === 405
          ? { Allow: { description: "The methods the path accepts.", schema: { type: "string" } } }
          : {}),
        ...(status === 429
          ? {
              "Retry-After": {
                description: "Seconds to wait before trying again.",
                schema: { type: "integer" },
              },
            }
          : {}),
      },
      content: jsonContent(ref("Error")),
    };
  }
  const rpc = rpcNameOf(route);
  const operation: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    description: descriptionOf(route, rpc),
    tags: [route.path.startsWith("/v1/admin") ? "admin" : route.access === "public" ? "public" : "streams"],
    ...(rpc === null ? {} : { "x-rpc-operation": rpc }),
    parameters: [...parametersOf(route), { $ref: "#/components/parameters/RequestId" }],
    ...(route.body
      ? { requestBody: { required: !route.body.optional, content: jsonContent(ref(route.body.name)) } }
      : {}),
    responses,
    security: route.access === "public" ? [] : [{ bearerAuth: [] }],
  };
  return operation;
}

/** Builds the whole document. Deterministic: the same code gives the same bytes. */
export function buildOpenApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const schemas: Record<string, JsonSchema> = { Error: errorResponse };
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = operationOf(route);
    schemas[route.response.name] = route.response.schema;
    if (route.body) schemas[route.body.name] = route.body.schema;
  }
  const sortedSchemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: "3.1.0",
    info: {
      title: "Event Stream Service REST gateway",
      version: httpInterfaceVersion,
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
      contact: { name: "The ess maintainers (see README.md)" },
      description:
        `info.version (${httpInterfaceVersion}) is the version of this HTTP interface, whose paths stay under /v1; ` +
        "the service's own release is the `version` field of GET /v1/health. " +
        "A JSON gateway over the service's RPC operations: each route calls exactly one operation and " +
        'answers with its result. Errors are `{"error": {"code", "message", "details"}}` with the codes ' +
        `${errorCodes.join(", ")}.`,
    },
    servers: [{ url: "http://127.0.0.1:8081", description: "The default SERVICE_REST_ADDRESS." }],
    tags: [
      { name: "public", description: "Routes that need no token." },
      { name: "streams", description: "Streams and events of the caller's tenant." },
      { name: "admin", description: "Operator routes; role admin." },
    ],
    paths,
    components: {
      schemas: sortedSchemas,
      parameters: {
        RequestId: {
          name: "X-Request-Id",
          in: "header",
          required: false,
          description:
            "An id for this request, answered in the X-Request-Id response header and written in the " +
            "service's log lines about it; 1 to 128 characters of A-Z a-z 0-9 - . _ ~ : @ / + =. " +
            "Any other value, or none, gets a new id.",
          schema: { type: "string", maxLength: requestIdCharsMax },
        },
      },
      headers: {
        RequestId: {
          description: "The request's id: the one the request sent when it was sane, else a new one.",
          schema: { type: "string" },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "The access_token of POST /v1/auth/login, sent as `Authorization: Bearer <token>`.",
        },
      },
    },
  };
}

/** The document as committed in docs/openapi.json: two-space indented, with a final newline. */
export function openApiText(): string {
  return JSON.stringify(buildOpenApiDocument(), null, 2) + "\n";
}

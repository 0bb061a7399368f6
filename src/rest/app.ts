/**
 * The REST gateway as a Fastify app (docs/contract.md "REST routes" and "Errors"). `buildRestApp` returns the
 * app without listening (tests inject requests into it); ./server.ts listens.
 *
 * Invariants:
 * - every route of ./routes.ts calls exactly one operation and answers with its result; the
 *   gateway adds no rule of its own beyond transport concerns (JSON, sizes, the bearer header);
 * - every error, from a route, the router, the body parser, the HTTP parser or a closing
 *   server, is `{"error": {"code", "message", "details"}}` with the status of ./http-errors.ts;
 * - a protected route's request is authenticated (the token verified by the operations'
 *   `authenticate`) before its body is read: without a valid token it is answered 401 whatever
 *   it holds; a body is read only for a route that takes one, and never past `bodyLimit` bytes
 *   (a larger Content-Length is refused before reading);
 * - a body must be UTF-8 and its JSON strings well formed (no lone surrogate escape), or it is
 *   refused with 400 INVALID_ARGUMENT (../contract/rules.ts);
 * - read results are written without parsing the events' JSON text (./serialize.ts).
 */
import { acceptRequestId, newRequestId, requestIdHeader } from "../contract/request-id.js";
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { EssError, invalidArgument, payloadTooLarge, toEssError, upgradeRequired } from "../errors.js";
import { limits } from "../limits.js";
import { logger as defaultLogger, type Logger } from "../logger.js";
import { bearerTokenOf } from "../contract/rules.js";
import {
  contextWith,
  type CallContext,
  type OperationName,
  type Operations,
} from "../operations/contract.js";
import { requireUtf8, requireWellFormedJson } from "../contract/rules.js";
import type { SecureContextHolder, ServerTls } from "../tls/server-tls.js";
import { registerConsole, type ConsoleOptions } from "./console.js";
import { errorBodyText, httpStatusByCode, sendError } from "./http-errors.js";
import { buildOpenApiDocument } from "./openapi.js";
import { fastifyPath, routes, type RouteInput, type RouteSpec } from "./routes.js";
import { compileValidator, type RequestPart } from "./validation.js";

export interface RestAppOptions {
  /** Largest request body in bytes. Default limits.appendBodyBytesMax (4 MiB). */
  bodyLimit?: number;
  logger?: Logger;
  /** The web console at /console/ (./console.ts); null: not served. Default: served, base path derived. */
  console?: ConsoleOptions | null;
  /**
   * The TLS material (SERVICE_TLS_CERT_FILE, SERVICE_TLS_KEY_FILE): the app's server is then an
   * HTTPS server (a WebSocket upgrade on it is WSS) following the material's reloads. Default:
   * plain HTTP.
   */
  tls?: ServerTls | null;
  /**
   * The path whose WebSocket upgrades this listener takes (the WebSocket interface is enabled
   * too: src/ws/rest-upgrade.ts). A plain request there answers 426, as on the WebSocket
   * listener. Default: none (it is then an unknown path, 404).
   */
  webSocketPath?: string;
}

/**
 * Longest path parameter, in characters as sent. An id is at most 200 bytes of UTF-8, which
 * percent-encoded is at most 600 characters; anything longer is refused without reaching the
 * operations.
 */
const paramCharsMax = 3 * limits.idBytesMax + 24;

declare module "fastify" {
  interface FastifyRequest {
    /**
     * The authenticated context (token and caller) of a protected route's request, set by its
     * onRequest hook; null on public routes. A request property (decorateRequest) rather than a
     * WeakMap keyed by the request: one plain store and load per request instead of two
     * ephemeron-table operations.
     */
    essContext: CallContext | null;
    /** The JSON body as sent, set by the body parser; null without a body. */
    essBodyText: string | null;
    /** The route's operation ran (its handler started): an error after that is the operation's, counted by it. */
    essOperationRan: boolean;
  }
  interface FastifyContextConfig {
    /** The route's operation, for counting a request refused before it ran (Operations.refused). */
    essOperation?: OperationName;
  }
}

function unauthenticated(message: string): EssError {
  return new EssError("UNAUTHENTICATED", message);
}

/** Path template → regular expression over the raw path, for the 405 check. */
function pathPattern(path: string): RegExp {
  const escaped = path
    .split(/\{[^}]+\}/)
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^/]+");
  return new RegExp(`^${escaped}$`);
}

function clip(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Turns whatever Fastify or a handler threw into the EssError the client sees. */
function toGatewayError(error: unknown, bodyLimit: number): EssError {
  if (error instanceof EssError) return error;
  const fastifyError = error as Partial<FastifyError> | null;
  const code = typeof fastifyError?.code === "string" ? fastifyError.code : "";
  switch (code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return payloadTooLarge(`the request body is larger than ${bodyLimit} bytes`, {
        limit_bytes: bodyLimit,
      });
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new EssError(
        "UNSUPPORTED_MEDIA_TYPE",
        "a request body must be sent as Content-Type: application/json",
      );
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new EssError("INVALID_JSON", "the request body is not valid JSON");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return invalidArgument("the request body does not match its Content-Length");
    case "FST_ERR_ROUTE_MISSING_CONTENT_TYPE":
      return new EssError("UNSUPPORTED_MEDIA_TYPE", "a request with this method must send a Content-Type");
    case "FST_ERR_ROUTE_MISSING_CONTENT":
      return invalidArgument("this request needs a body");
  }
  // Any other refusal of the framework: never its code or message, which name its internals.
  const status = typeof fastifyError?.statusCode === "number" ? fastifyError.statusCode : 500;
  if (status >= 400 && status < 500) return invalidArgument("the request is not valid");
  return toEssError(error);
}

/**
 * Reads and drops the rest of a request body that will not be used, so that the answer can be
 * read by a client that sends its whole body before reading. Bounded: a body announced longer
 * than limits.restDiscardBodyBytesMax is not read at all, and reading stops past that many bytes
 * or after limits.restDiscardBodyMs; the connection is then closed with the rest unread.
 */
function discardBody(raw: IncomingMessage): Promise<void> {
  const announced = Number(raw.headers["content-length"]);
  if (announced > limits.restDiscardBodyBytesMax) return Promise.resolve();
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off("data", onData);
      raw.off("end", finish);
      raw.off("error", finish);
      raw.off("close", finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > limits.restDiscardBodyBytesMax) finish();
    };
    const timer = setTimeout(finish, limits.restDiscardBodyMs);
    raw.on("data", onData);
    raw.on("end", finish);
    raw.on("error", finish);
    raw.on("close", finish);
    raw.resume();
  });
}

/** Answers, in the contract's error shape, a request Node's HTTP parser refused (it never reaches Fastify). */
function answerUnparsedRequest(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const refusal =
    error.code === "HPE_HEADER_OVERFLOW"
      ? payloadTooLarge("the request headers are too large")
      : invalidArgument("the request is not valid HTTP", { reason: error.code ?? "bad request" });
  const status = httpStatusByCode[refusal.code];
  // An answer to HEAD has no body, and a client would take one as garbage on the connection.
  // Node attaches the bytes it could not parse as `rawPacket` (not in its typings).
  const rawPacket = (error as { rawPacket?: unknown }).rawPacket;
  const isHead = Buffer.isBuffer(rawPacket) && rawPacket.toString("latin1", 0, 5) === "HEAD ";
  const text = errorBodyText(refusal);
  // Only when nothing was written on this connection yet (as Node's own handler does): bytes
  // after an answer already sent, e.g. an unread body behind a 401, must not get a second one.
  if (socket.writable && socket.bytesWritten === 0) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nX-Request-Id: ${newRequestId()}\r\n` +
        `Connection: close\r\n\r\n${isHead ? "" : text}`,
    );
  }
  socket.destroy();
}

/**
 * The one body parser: UTF-8 (not decoded with replacement characters), JSON, well-formed; the
 * text is kept beside the parsed body (see buildRestApp).
 */
function parseJsonBody(
  request: FastifyRequest,
  bytes: string | Buffer,
  done: (error: Error | null, body?: unknown) => void,
): void {
  let text: string;
  let body: unknown;
  try {
    // Bytes that are not UTF-8 are refused, not decoded with replacement characters.
    requireUtf8(bytes as Buffer, "the request body");
    text = (bytes as Buffer).toString("utf8");
  } catch (error) {
    done(toEssError(error), undefined);
    return;
  }
  try {
    body = JSON.parse(text);
  } catch {
    done(new EssError("INVALID_JSON", "the request body is not valid JSON"), undefined);
    return;
  }
  try {
    requireWellFormedJson(text, "", body, true);
  } catch (error) {
    done(toEssError(error), undefined);
    return;
  }
  request.essBodyText = text;
  done(null, body);
}

/**
 * The answer to a request no route takes: 426 on the WebSocket path, 405 with Allow for a method
 * the path does not serve (HEAD wherever GET), else 404.
 */
function notRoutedHandler(
  webSocketPath: string | undefined,
): (request: FastifyRequest, reply: FastifyReply) => void {
  const patterns = new Map<string, { pattern: RegExp; methods: string[] }>();
  for (const route of routes) {
    const entry = patterns.get(route.path) ?? { pattern: pathPattern(route.path), methods: [] };
    entry.methods.push(route.method);
    if (route.method === "GET") entry.methods.push("HEAD");
    patterns.set(route.path, entry);
  }
  return (request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    if (path === webSocketPath) {
      sendError(reply, upgradeRequired(path), { upgrade: "websocket" }, 426);
      return;
    }
    const allowed = [...patterns.values()].find((entry) => entry.pattern.test(path))?.methods;
    if (allowed) {
      sendError(
        reply,
        new EssError("METHOD_NOT_ALLOWED", `${request.method} is not allowed on this path`, {
          method: request.method,
          allowed,
        }),
        { allow: allowed.join(", ") },
      );
      return;
    }
    sendError(
      reply,
      new EssError("NOT_FOUND", `there is no route ${request.method} ${clip(path)}`, {
        method: request.method,
        path: clip(path),
      }),
    );
  };
}

/** Fastify's error handler: every error answered in the contract's shape, a refusal counted. */
function errorHandler(
  operations: Operations,
  bodyLimit: number,
  log: Logger,
  notRouted: (request: FastifyRequest, reply: FastifyReply) => void,
): (error: unknown, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    // A request no route takes (an unknown path, or a method the path does not serve) is 404 or
    // 405 whatever its body: Fastify may refuse that body first (e.g. QUERY without Content-Type).
    if (request.is404) {
      notRouted(request, reply);
      return;
    }
    const essError = toGatewayError(error, bodyLimit);
    if (essError.code === "INTERNAL")
      log.error("request failed", { error: String(error), request_id: request.id });
    // Refused before the operation ran (the body, the schema): the interface counts it.
    const operation = request.essOperationRan ? undefined : request.routeOptions.config.essOperation;
    if (operation !== undefined) operations.refused?.(restContext(request), operation, essError.code);
    if (essError.code === "PAYLOAD_TOO_LARGE" && !request.raw.complete) {
      // Answering while the client still sends would close the connection on unread bytes, which
      // resets it, and the client may never read the 413: read the rest first (bounded).
      void discardBody(request.raw).then(() => sendError(reply, essError));
      return;
    }
    sendError(reply, essError);
  };
}

export function buildRestApp(operations: Operations, options: RestAppOptions = {}): FastifyInstance {
  const bodyLimit = options.bodyLimit ?? limits.appendBodyBytesMax;
  const log = options.logger ?? defaultLogger.child({ component: "rest" });
  let closing = false;

  const app = Fastify({
    // Fastify then makes an https.Server, which is also an http.Server to its typings.
    ...(options.tls ? { https: options.tls.contextOptions() } : {}),
    logger: false,
    // Every request's id (../contract/request-id.ts): the client's sane x-request-id, else a new
    // one. Answered in x-request-id (the first onRequest hook) and carried by its log lines.
    genReqId: (request) => acceptRequestId(request.headers[requestIdHeader]),
    bodyLimit,
    // HEAD works wherever GET does (health probes use it): the GET route's hooks and handler,
    // its status and headers, no body.
    exposeHeadRoutes: true,
    // Answered below in the contract's error shape instead of Fastify's own 503 body.
    return503OnClosing: false,
    routerOptions: { maxParamLength: paramCharsMax },
    // The router's own refusals: a path that is not valid percent-encoding, an over-long id.
    frameworkErrors: (error, _request, reply) => {
      const refusal =
        error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? invalidArgument(`a path parameter is longer than ${paramCharsMax} characters`, {
              location: "path",
            })
          : invalidArgument("the request path is not valid percent-encoding", { location: "path" });
      sendError(reply, refusal);
    },
    // Requests Node's HTTP parser refuses never reach Fastify; answer them in the same shape.
    clientErrorHandler: answerUnparsedRequest,
  });

  // With `https` Fastify's server is an https.Server, which its typings still call http.Server.
  if (options.tls) options.tls.follow(app.server as unknown as SecureContextHolder);
  app.decorateRequest("essContext", null);
  app.decorateRequest("essBodyText", null);
  app.decorateRequest("essOperationRan", false);

  // Only JSON bodies. JSON.parse keeps every key as sent (a "__proto__" key in event data is an
  // own property like any other). The text is kept beside the parsed body: the append route
  // hands the events' payloads on as slices of it (./raw-json.ts), so they are parsed once here
  // and never stringified or parsed again on their way to storage.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, parseJsonBody);

  app.setValidatorCompiler(({ schema, httpPart }) => {
    const part = (httpPart ?? "body") as RequestPart;
    const route = routes.find((r) => r.body?.schema === schema);
    return compileValidator(schema as Record<string, unknown>, part, route?.body?.optional ?? false);
  });
  // Validators return EssErrors, which the error handler sends as they are.
  app.setSchemaErrorFormatter((errors, part) =>
    invalidArgument(`the request ${part} is not valid`, { location: part }),
  );

  const notRouted = notRoutedHandler(options.webSocketPath);

  app.setErrorHandler(errorHandler(operations, bodyLimit, log, notRouted));

  app.setNotFoundHandler(notRouted);

  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });

  // Every request, routed or not, is refused while the gateway closes. The bearer check is a
  // route-level hook of the protected routes only (./routes.ts says which), so it needs no
  // per-request lookup of the route's options (Fastify's request.routeOptions builds and
  // freezes a new object on every read).
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(requestIdHeader, request.id);
    if (closing) {
      sendError(reply, new EssError("UNAVAILABLE", "the service is shutting down"));
      return;
    }
    done();
  });

  const document = JSON.stringify(buildOpenApiDocument());
  for (const route of routes) registerRoute(app, operations, route, document);
  const consoleOptions = options.console === undefined ? { basePath: null } : options.console;
  if (consoleOptions !== null) registerConsole(app, consoleOptions, log);
  return app;
}

/**
 * The onRequest hook of a protected route: the token is verified (the operations'
 * `authenticate`; through `ess gateway --upstream`, the upstream's Auth.WhoAmI) before the body
 * is read, so a client without a valid token cannot make the gateway read, parse or validate a
 * body: it gets 401 whatever it sent. The caller goes on to the operation in the context, which
 * does not verify the token again.
 */
function authenticateFirst(operations: Operations, operation: OperationName) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    // A refusal here is counted as the route's operation's (Operations.refused).
    const refuse = (error: unknown): void => {
      const essError = toEssError(error);
      operations.refused?.(restContext(request), operation, essError.code);
      sendError(reply, essError);
    };
    let token: string | null;
    try {
      token = bearerTokenOf(request.headers.authorization);
    } catch (error) {
      refuse(error);
      return;
    }
    if (token === null) {
      refuse(unauthenticated("this route needs a bearer token: send Authorization: Bearer <token>"));
      return;
    }
    const ctx: CallContext = { token, carrier: "rest", request_id: request.id };
    // The check before the call is no request of its own (CallContext.admission).
    operations.authenticate(contextWith(ctx, { admission: true })).then((caller) => {
      ctx.caller = caller;
      request.essContext = ctx;
      done();
    }, refuse);
  };
}

function registerRoute(
  app: FastifyInstance,
  operations: Operations,
  route: RouteSpec,
  document: string,
): void {
  const serialize = (route.serialize ?? JSON.stringify) as (result: unknown) => string;
  const schema: Record<string, unknown> = {};
  if (route.params) schema.params = route.params;
  if (route.querystring) schema.querystring = route.querystring;
  if (route.body) schema.body = route.body.schema;
  const status = route.response.status;
  const keepBodyText = route.keepBodyText === true;
  const handler =
    route.operationId === "openapi"
      ? (_request: FastifyRequest, reply: FastifyReply): Promise<string> => {
          reply.code(status);
          reply.header("content-type", "application/json; charset=utf-8");
          return Promise.resolve(document);
        }
      : (request: FastifyRequest, reply: FastifyReply): Promise<string> => {
          request.essOperationRan = true;
          reply.code(status);
          reply.header("content-type", "application/json; charset=utf-8");
          const input: RouteInput = {
            params: (request.params ?? {}) as Record<string, string>,
            query: (request.query ?? {}) as Record<string, unknown>,
            body: (request.body ?? {}) as Record<string, unknown>,
            bodyText: keepBodyText ? request.essBodyText : null,
          };
          // The socket's peer, never X-Forwarded-For: a header the client writes cannot pick its throttle.
          const ctx = contextWith(request.essContext ?? { token: null }, {
            client_address: request.socket.remoteAddress ?? null,
            carrier: "rest",
            request_id: request.id,
          });
          return route.call(operations, ctx, input).then(serialize);
        };
  app.route({
    method: route.method,
    url: fastifyPath(route.path),
    schema,
    ...(route.operationId === "openapi" ? {} : { config: { essOperation: route.operationId } }),
    ...(route.access === "public" || route.operationId === "openapi"
      ? {}
      : { onRequest: authenticateFirst(operations, route.operationId) }),
    handler,
  });
}

/** A REST request's context for counting a refusal: no token, its interface and request id. */
function restContext(request: FastifyRequest): CallContext {
  return { token: null, carrier: "rest", request_id: request.id };
}

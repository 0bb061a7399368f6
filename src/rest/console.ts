/**
 * The admin web console (docs/console.md): static files built by
 * `npm run build` from console/ into dist/console-app/, served by the REST gateway at
 * `/console/`. The page calls the same public routes as any client, with a bearer token it keeps
 * in memory only.
 *
 * Invariants:
 * - every answer under /console/ carries a strict Content-Security-Policy: scripts, styles and
 *   every other kind of resource from this origin only, nothing inline, no framing; the page
 *   may connect to this origin over HTTP and WebSocket and nowhere else;
 * - asset paths are relative and the redirect from /console to /console/ is relative too, so a
 *   reverse proxy can mount the service under any prefix; the base path the page calls the API
 *   under is written into index.html (a meta tag, no inline script) only when configured;
 * - the console sets no cookie and reads none: the token travels only in Authorization headers
 *   and the WebSocket's first message.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { EssError } from "../errors.js";
import type { Logger } from "../logger.js";
import { sendError } from "./http-errors.js";

export interface ConsoleOptions {
  /**
   * The path under which browsers reach this listener's root, ending in "/" (e.g. "/ess/"
   * behind a proxy that mounts the service there); null: the page derives it from its own
   * address (the folder above /console/). SERVICE_CONSOLE_BASE_PATH.
   */
  basePath: string | null;
  /** Where the built files are; default dist/console-app beside the compiled server. */
  root?: string;
}

/** dist/src/rest/console.js → dist/console-app/ */
const defaultRoot = fileURLToPath(new URL("../../console-app/", import.meta.url));

const prefix = "/console/";

/** Same-origin WebSocket sources for connect-src: a host header we can vouch for, or none. */
function webSocketSources(request: FastifyRequest): string {
  const host = request.headers.host ?? "";
  // Only a plain host[:port] (or [v6]:port): anything else is not written into a header.
  if (!/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host)) return "";
  return ` ws://${host} wss://${host}`;
}

/**
 * The policy of every console answer. connect-src lists the WebSocket origin beside 'self'
 * because CSP Level 2 browsers do not count ws: as 'self'.
 */
export function contentSecurityPolicy(request: FastifyRequest): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    `connect-src 'self'${webSocketSources(request)}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function setConsoleHeaders(reply: FastifyReply, request: FastifyRequest): void {
  reply.header("content-security-policy", contentSecurityPolicy(request));
  reply.header("x-content-type-options", "nosniff");
  reply.header("x-frame-options", "DENY");
  reply.header("referrer-policy", "no-referrer");
  reply.header("cross-origin-opener-policy", "same-origin");
  reply.header("cross-origin-resource-policy", "same-origin");
  // Revalidated on every load (ETag): an upgraded service never runs an old page.
  reply.header("cache-control", "no-cache");
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Adds the console's routes to the gateway: `/console` redirects to `/console/`, which serves
 * index.html; the other files come from the build folder. When the console was not built, its
 * routes answer 404 with a message saying so, and the gateway serves everything else as usual.
 */
export function registerConsole(app: FastifyInstance, options: ConsoleOptions, log: Logger): void {
  const root = options.root ?? defaultRoot;
  const indexPath = `${root}/index.html`;
  const built = existsSync(indexPath);
  if (!built) {
    log.warn("the web console is not built; /console/ answers 404 (run npm run build)", { root });
  }
  const indexHtml = built
    ? readFileSync(indexPath, "utf8").replace(
        /<meta name="ess-base-path" content="[^"]*"\s*\/?>/,
        `<meta name="ess-base-path" content="${escapeAttribute(options.basePath ?? "")}">`,
      )
    : "";

  // Relative, so that it lands on .../console/ under whatever prefix a proxy added.
  app.get("/console", (_request, reply) => {
    reply.code(308).header("location", "console/").send();
  });

  const sendIndex = (request: FastifyRequest, reply: FastifyReply): void => {
    if (!built) {
      sendError(reply, new EssError("NOT_FOUND", "the web console is not built: run npm run build"));
      return;
    }
    setConsoleHeaders(reply, request);
    reply.code(200).header("content-type", "text/html; charset=utf-8").send(indexHtml);
  };
  app.get(prefix, sendIndex);
  app.get(`${prefix}index.html`, sendIndex);
  if (!built) return;

  void app.register(fastifyStatic, {
    root,
    prefix,
    index: false,
    dotfiles: "ignore",
    cacheControl: false,
    // Paths with no file fall through to the gateway's not-found handler (the contract's shape).
    setHeaders: (reply) => setConsoleHeaders(reply, reply.request),
  });
}

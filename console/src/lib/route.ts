/**
 * The console's pages and their addresses. Everything a page shows is named by its address
 * (the URL's fragment, so the service serves one file and a reverse proxy needs no rewrite):
 * a copied link opens the same view for a colleague. `parseRoute` and `routeHref` are inverse:
 * `parseRoute(routeHref(r))` is `r`.
 *
 *   #/streams?prefix=&cursor=&limit=             streams of the tenant
 *   #/streams/{id}?from=&dir=&limit=             a page of a stream
 *   #/streams/{id}/events/{revision}             one event
 *   #/streams/{id}/live  #/streams/{id}/info     live tail; info, retention, delete
 *   #/all?from=&limit=   #/all/live              the tenant's global order
 *   #/operations  #/tenants  #/tenants/{id}  #/users
 *
 * Every stream page also takes `tenant=` (an admin looking at another tenant).
 */
import { clampLimit, parseStreamView, streamViewParams, type StreamView } from "./paging.js";

export type Route = (
  | { page: "streams"; prefix: string; cursor: string | null; limit: number }
  | { page: "stream"; streamId: string; view: StreamView }
  | { page: "event"; streamId: string; revision: number }
  | { page: "live"; streamId: string }
  | { page: "info"; streamId: string }
  | { page: "all"; from: number; limit: number }
  | { page: "all-live" }
  | { page: "operations" }
  | { page: "tenants" }
  | { page: "tenant"; tenantId: string }
  | { page: "users" }
  | { page: "not-found"; path: string }
) & { tenant: string | null };

export type PageName = Route["page"];

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function wholeNumber(text: string | null): number | null {
  if (text === null || !/^\d{1,16}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** The route of a URL fragment ("#/streams/orders-1?dir=forward"); "" or "#/" is the streams list. */
export function parseRoute(hash: string): Route {
  const text = hash.startsWith("#") ? hash.slice(1) : hash;
  const queryAt = text.indexOf("?");
  const path = queryAt < 0 ? text : text.slice(0, queryAt);
  const params = new URLSearchParams(queryAt < 0 ? "" : text.slice(queryAt + 1));
  const tenant = params.get("tenant") || null;
  const segments = path.split("/").filter((segment) => segment !== "");
  const decoded = segments.map(decodeSegment);
  const [first, second, third, fourth] = decoded;
  const limit = clampLimit(wholeNumber(params.get("limit")));
  const notFound: Route = { page: "not-found", path, tenant };
  if (decoded.some((segment) => segment === null)) return notFound;

  if (segments.length === 0 || (first === "streams" && segments.length === 1)) {
    return {
      page: "streams",
      prefix: params.get("prefix") ?? "",
      cursor: params.get("cursor") || null,
      limit,
      tenant,
    };
  }
  if (first === "streams" && second) {
    if (segments.length === 2)
      return { page: "stream", streamId: second, view: parseStreamView(params), tenant };
    if (segments.length === 3 && third === "live") return { page: "live", streamId: second, tenant };
    if (segments.length === 3 && third === "info") return { page: "info", streamId: second, tenant };
    const revision = wholeNumber(fourth ?? null);
    if (segments.length === 4 && third === "events" && revision !== null) {
      return { page: "event", streamId: second, revision, tenant };
    }
    return notFound;
  }
  if (first === "all") {
    if (segments.length === 1)
      return { page: "all", from: wholeNumber(params.get("from")) ?? 0, limit, tenant };
    if (segments.length === 2 && second === "live") return { page: "all-live", tenant };
    return notFound;
  }
  if (segments.length === 1 && (first === "operations" || first === "tenants" || first === "users")) {
    return { page: first, tenant };
  }
  if (first === "tenants" && second && segments.length === 2)
    return { page: "tenant", tenantId: second, tenant };
  return notFound;
}

function withQuery(path: string, query: Record<string, string | null>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== null && value !== "") params.set(name, value);
  const text = params.toString();
  return text === "" ? `#${path}` : `#${path}?${text}`;
}

const segment = encodeURIComponent;

/** The URL fragment of a route. */
export function routeHref(route: Route): string {
  const tenant = route.tenant;
  const limitParam = (limit: number) => (limit === clampLimit(null) ? null : String(limit));
  switch (route.page) {
    case "streams":
      return withQuery("/streams", {
        prefix: route.prefix,
        cursor: route.cursor,
        limit: limitParam(route.limit),
        tenant,
      });
    case "stream":
      return withQuery(`/streams/${segment(route.streamId)}`, { ...streamViewParams(route.view), tenant });
    case "event":
      return withQuery(`/streams/${segment(route.streamId)}/events/${route.revision}`, { tenant });
    case "live":
      return withQuery(`/streams/${segment(route.streamId)}/live`, { tenant });
    case "info":
      return withQuery(`/streams/${segment(route.streamId)}/info`, { tenant });
    case "all":
      return withQuery("/all", {
        from: route.from === 0 ? null : String(route.from),
        limit: limitParam(route.limit),
        tenant,
      });
    case "all-live":
      return withQuery("/all/live", { tenant });
    case "operations":
    case "tenants":
    case "users":
      return withQuery(`/${route.page}`, { tenant });
    case "tenant":
      return withQuery(`/tenants/${segment(route.tenantId)}`, { tenant });
    case "not-found":
      return withQuery(route.path, { tenant });
  }
}

/**
 * Where an admin's tenant switch leads: lists start again at the top; a page of one stream goes
 * to the new tenant's streams list (the same id there is another stream).
 */
export function routeInTenant(route: Route, tenant: string | null): Route {
  switch (route.page) {
    case "streams":
      return { ...route, cursor: null, tenant };
    case "stream":
    case "event":
    case "live":
    case "info":
      return { page: "streams", prefix: "", cursor: null, limit: clampLimit(null), tenant };
    case "all":
      return { ...route, from: 0, tenant };
    default:
      return { ...route, tenant };
  }
}

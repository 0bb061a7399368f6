import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRoute, routeHref, routeInTenant, type Route } from "../../console/src/lib/route.js";

const routes: Route[] = [
  { page: "streams", prefix: "", cursor: null, limit: 50, tenant: null },
  { page: "streams", prefix: "orders-", cursor: "abc==", limit: 200, tenant: "acme" },
  {
    page: "stream",
    streamId: "orders-1",
    view: { from: null, direction: "backward", limit: 50 },
    tenant: null,
  },
  {
    page: "stream",
    streamId: "a/b c?#%",
    view: { from: 10, direction: "forward", limit: 20 },
    tenant: "globex",
  },
  { page: "event", streamId: "orders-1", revision: 42, tenant: null },
  { page: "live", streamId: "ünïcode", tenant: null },
  { page: "info", streamId: "orders-1", tenant: "acme" },
  { page: "all", from: 0, limit: 50, tenant: null },
  { page: "all", from: 1234, limit: 100, tenant: null },
  { page: "all-live", tenant: null },
  { page: "operations", tenant: null },
  { page: "tenants", tenant: null },
  { page: "tenant", tenantId: "acme", tenant: null },
  { page: "users", tenant: null },
];

test("every route has an address, and the address gives the route back", () => {
  for (const route of routes) assert.deepEqual(parseRoute(routeHref(route)), route, routeHref(route));
});

test("no address is the streams list; an unknown one is not-found", () => {
  assert.equal(parseRoute("").page, "streams");
  assert.equal(parseRoute("#/").page, "streams");
  assert.equal(parseRoute("#/nope").page, "not-found");
  assert.equal(parseRoute("#/streams/x/events/-1").page, "not-found");
  assert.equal(parseRoute("#/streams/%E0%A4%A/live").page, "not-found");
});

test("a tenant switch starts lists over and takes a stream page to the new tenant's list", () => {
  const list = routes[1] as Route;
  assert.deepEqual(routeInTenant(list, "globex"), { ...list, cursor: null, tenant: "globex" });
  assert.deepEqual(routeInTenant(routes[4] as Route, "globex"), {
    page: "streams",
    prefix: "",
    cursor: null,
    limit: 50,
    tenant: "globex",
  });
  assert.deepEqual(routeInTenant(routes[8] as Route, null), {
    page: "all",
    from: 0,
    limit: 100,
    tenant: null,
  });
});

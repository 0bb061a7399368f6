import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { Validator } from "@seriousme/openapi-schema-validator";
import { buildRestApp } from "./app.js";
import { buildOpenApiDocument, openApiText } from "./openapi.js";
import { routes } from "./routes.js";
import { recordingOperations } from "../../test/rest/recording-operations.js";

/** docs/contract.md "REST routes" and docs/rest.md "Jobs", the contract's 22 routes. */
const contractRoutes = [
  "GET /v1/health",
  "GET /v1/openapi.json",
  "POST /v1/auth/login",
  "POST /v1/streams/{id}/append",
  "GET /v1/streams/{id}",
  "GET /v1/streams/{id}/info",
  "GET /v1/admin/streams",
  "GET /v1/admin/verify",
  "GET /v1/admin/storage-status",
  "GET /v1/admin/tenants",
  "GET /v1/admin/tenants/{id}",
  "POST /v1/admin/scavenge",
  "POST /v1/admin/jobs",
  "GET /v1/admin/jobs",
  "GET /v1/admin/jobs/{id}",
  "GET /v1/streams",
  "GET /v1/events",
  "PUT /v1/streams/{id}/retention",
  "DELETE /v1/streams/{id}",
  "GET /v1/streams/{id}/metadata",
  "PUT /v1/streams/{id}/metadata",
  "POST /v1/admin/users",
  "GET /v1/admin/users",
  "DELETE /v1/admin/users/{username}",
];

type Document = {
  info: { version: string };
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
};

function documentedRoutes(document: Document): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

const samplePath = (path: string): string => path.replace(/\{[^}]+\}/g, "sample-1");

test("the served document is a valid OpenAPI 3.1 document labelled version 2 of the HTTP interface", async () => {
  const app = buildRestApp(recordingOperations().operations);
  const response = await app.inject({ method: "GET", url: "/v1/openapi.json" });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers["content-type"]), /^application\/json/);
  const document = response.json<Document & { openapi: string }>();
  const result = await new Validator().validate(document);
  assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 2));
  assert.equal(result.valid, true);
  assert.equal(document.openapi, "3.1.0");
  assert.match(document.info.version, /^2\.\d+\.\d+$/);
  await app.close();
});

test("the document lists exactly the contract's routes and the gateway serves each of them", async () => {
  const document = buildOpenApiDocument() as Document;
  assert.deepEqual(documentedRoutes(document).sort(), [...contractRoutes].sort());
  const app = buildRestApp(recordingOperations().operations);
  await app.ready();
  for (const route of routes) {
    assert.ok(
      app.hasRoute({ method: route.method, url: route.path.replace(/\{([^}]+)\}/g, ":$1") }),
      route.path,
    );
  }
  await app.close();
});

test("every documented path answers 405 with an Allow header for the methods it does not document", async () => {
  const document = buildOpenApiDocument() as Document;
  const app = buildRestApp(recordingOperations().operations);
  for (const [path, item] of Object.entries(document.paths)) {
    const documented = Object.keys(item).map((m) => m.toUpperCase());
    // HEAD is served wherever GET is, without a document entry of its own.
    const allowed = documented.flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m]));
    for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"] as const) {
      if (allowed.includes(method)) continue;
      const response = await app.inject({ method, url: samplePath(path) });
      assert.equal(response.statusCode, 405, `${method} ${path}`);
      assert.equal(response.json<{ error: { code: string } }>().error.code, "METHOD_NOT_ALLOWED");
      assert.deepEqual(
        String(response.headers.allow).split(", ").sort(),
        allowed.sort(),
        `${method} ${path}`,
      );
    }
  }
  await app.close();
});

test("every protected route declares the bearer scheme and every route declares its error responses", () => {
  const document = buildOpenApiDocument() as Document & {
    components: { securitySchemes: Record<string, { type: string; scheme: string }> };
  };
  assert.deepEqual(document.components.securitySchemes.bearerAuth, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "The access_token of POST /v1/auth/login, sent as `Authorization: Bearer <token>`.",
  });
  for (const route of routes) {
    const operation = document.paths[route.path]?.[route.method.toLowerCase()];
    assert.ok(operation, `${route.method} ${route.path}`);
    const isPublic = route.access === "public";
    assert.deepEqual(operation.security, isPublic ? [] : [{ bearerAuth: [] }], route.path);
    for (const status of ["400", "404", "405", "500"])
      assert.ok(operation.responses[status], `${route.path} ${status}`);
    if (!isPublic) assert.ok(operation.responses["401"] && operation.responses["403"], route.path);
    if (route.body) assert.ok(operation.responses["413"] && operation.responses["415"], route.path);
  }
});

test("docs/openapi.json is the document the gateway serves (regenerate with npm run openapi)", async () => {
  const committed = await readFile(new URL("../../../docs/openapi.json", import.meta.url), "utf8");
  assert.equal(committed, openApiText(), "docs/openapi.json is stale: run npm run openapi");
  const app = buildRestApp(recordingOperations().operations);
  const served = await app.inject({ method: "GET", url: "/v1/openapi.json" });
  assert.deepEqual(served.json(), JSON.parse(committed));
  await app.close();
});

import { test } from "node:test";
import { connect, type AddressInfo } from "node:net";
import assert from "node:assert/strict";
import type { InjectOptions } from "fastify";
import { EssError, errorCodes } from "../errors.js";
import { limits } from "../limits.js";
import { Payload } from "../contract/payload.js";
import type { Logger } from "../logger.js";
import { buildRestApp } from "./app.js";
import { httpStatusByCode } from "./http-errors.js";
import { recordingOperations } from "../../test/rest/recording-operations.js";

type ErrorReply = { error: { code: string; message: string; details: Record<string, unknown> } };
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
const auth = { authorization: "Bearer token-1" };
const json = { ...auth, "content-type": "application/json" };

function assertErrorShape(body: unknown, code: string): ErrorReply["error"] {
  const error = (body as ErrorReply).error;
  assert.equal(error.code, code);
  assert.equal(typeof error.message, "string");
  assert.ok(error.message.length > 0);
  assert.equal(typeof error.details, "object");
  assert.deepEqual(Object.keys(body as object), ["error"]);
  return error;
}

test("an unknown route answers 404 NOT_FOUND in the error shape", async () => {
  const app = buildRestApp(recordingOperations().operations);
  const response = await app.inject({ method: "GET", url: "/v1/nothing-here" });
  assert.equal(response.statusCode, 404);
  assertErrorShape(response.json(), "NOT_FOUND");
  await app.close();
});

test("a protected route without a token answers 401 with WWW-Authenticate: Bearer and calls nothing", async () => {
  const { operations, calls } = recordingOperations();
  const app = buildRestApp(operations);
  for (const headers of [{}, { authorization: "Basic dXNlcjpwYXNz" }, { authorization: "Bearer" }]) {
    const response = await app.inject({ method: "GET", url: "/v1/streams/orders-1", headers });
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers["www-authenticate"], "Bearer");
    assertErrorShape(response.json(), "UNAUTHENTICATED");
  }
  assert.deepEqual(calls, []);
  await app.close();
});

test("every error code an operation throws is sent with its HTTP status, message and details", async () => {
  for (const code of errorCodes) {
    const thrown = new EssError(code, `a ${code} happened`, { stream_id: "s-1" });
    const app = buildRestApp(recordingOperations(() => thrown).operations, { logger: quiet });
    const response = await app.inject({ method: "GET", url: "/v1/streams/s-1/info", headers: auth });
    assert.equal(response.statusCode, httpStatusByCode[code], code);
    assert.deepEqual(response.json(), {
      error: { code, message: `a ${code} happened`, details: { stream_id: "s-1" } },
    });
    assert.equal(response.headers["www-authenticate"], code === "UNAUTHENTICATED" ? "Bearer" : undefined);
    await app.close();
  }
});

test("a failure that is not an EssError becomes 500 INTERNAL without internals", async () => {
  const { operations } = recordingOperations();
  operations.check = () => Promise.reject(new Error("secret: /var/lib/ess/segment-7 exploded"));
  const app = buildRestApp(operations, { logger: quiet });
  const response = await app.inject({ method: "GET", url: "/v1/health" });
  assert.equal(response.statusCode, 500);
  const error = assertErrorShape(response.json(), "INTERNAL");
  assert.doesNotMatch(response.body, /secret|segment-7/);
  assert.deepEqual(error.details, {});
  await app.close();
});

test("a body that is not JSON answers 400 INVALID_JSON and calls nothing", async () => {
  const { operations, calls } = recordingOperations();
  const app = buildRestApp(operations);
  for (const payload of ["{", "", "{'a':1}", "nul", '{"event_type":"t","data":{}}x']) {
    const response = await app.inject({
      method: "POST",
      url: "/v1/streams/s/append",
      headers: json,
      payload,
    });
    assert.equal(response.statusCode, 400, payload);
    assertErrorShape(response.json(), "INVALID_JSON");
  }
  assert.deepEqual(calls, []);
  await app.close();
});

test("a body without Content-Type: application/json answers 415 UNSUPPORTED_MEDIA_TYPE", async () => {
  const { operations, calls } = recordingOperations();
  const app = buildRestApp(operations);
  const payload = '{"event_type":"t","data":{}}';
  for (const type of [undefined, "text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
    const headers: Record<string, string> = { ...auth };
    if (type !== undefined) headers["content-type"] = type;
    const response = await app.inject({ method: "POST", url: "/v1/streams/s/append", headers, payload });
    assert.equal(response.statusCode, 415, String(type));
    assertErrorShape(response.json(), "UNSUPPORTED_MEDIA_TYPE");
  }
  const ok = await app.inject({
    method: "POST",
    url: "/v1/streams/s/append",
    headers: { ...auth, "content-type": "application/json; charset=utf-8" },
    payload,
  });
  assert.equal(ok.statusCode, 200);
  assert.equal(calls.length, 1);
  await app.close();
});

test("a body over the append limit answers 413 PAYLOAD_TOO_LARGE and calls nothing", async () => {
  const { operations, calls } = recordingOperations();
  const app = buildRestApp(operations);
  const big = JSON.stringify({ event_type: "t", data: { blob: "x".repeat(limits.appendBodyBytesMax) } });
  const response = await app.inject({
    method: "POST",
    url: "/v1/streams/s/append",
    headers: json,
    payload: big,
  });
  assert.equal(response.statusCode, 413);
  assertErrorShape(response.json(), "PAYLOAD_TOO_LARGE");
  assert.deepEqual(calls, []);
  await app.close();
});

/** Requests the schemas refuse, and the field and part each refusal names. */
const schemaFailureCases: {
  url: string;
  method?: "GET" | "POST" | "PUT";
  body?: unknown;
  field: string;
  location: string;
}[] = [
  { url: "/v1/streams/s?limit=0", field: "limit", location: "query" },
  { url: "/v1/streams/s?limit=1001", field: "limit", location: "query" },
  { url: "/v1/streams/s?limit=ten", field: "limit", location: "query" },
  { url: "/v1/streams/s?direction=sideways", field: "direction", location: "query" },
  { url: "/v1/streams/s?from=-1", field: "from", location: "query" },
  { url: "/v1/streams/s?colour=blue", field: "colour", location: "query" },
  { url: "/v1/events?from_position=x", field: "from_position", location: "query" },
  { url: "/v1/admin/users?limit=0", field: "limit", location: "query" },
  {
    method: "POST",
    url: "/v1/streams/s/append",
    body: { data: {} },
    field: "event_type",
    location: "body",
  },
  {
    method: "POST",
    url: "/v1/streams/s/append",
    body: { event_type: 7, data: {} },
    field: "event_type",
    location: "body",
  },
  {
    method: "POST",
    url: "/v1/streams/s/append",
    body: { event_type: "t", data: [] },
    field: "data",
    location: "body",
  },
  {
    method: "POST",
    url: "/v1/streams/s/append",
    body: { event_type: "t", data: {}, metadata: "m" },
    field: "metadata",
    location: "body",
  },
  {
    method: "POST",
    url: "/v1/streams/s/append",
    body: { event_type: "t", data: {}, expected_revision: -2 },
    field: "expected_revision",
    location: "body",
  },
  // An event without data (nor data_base64) passes the schema: the operations refuse it, naming
  // events[1].data (test/rest/binary.e2e.test.ts).
  { method: "POST", url: "/v1/streams/s/append", body: { events: [] }, field: "events", location: "body" },
  {
    method: "POST",
    url: "/v1/streams/s/append",
    body: { event_type: "t", data: {}, evnt_id: "x" },
    field: "evnt_id",
    location: "body",
  },
  { method: "POST", url: "/v1/streams/s/append", body: [], field: "body", location: "body" },
  { method: "POST", url: "/v1/auth/login", body: { username: "a" }, field: "password", location: "body" },
  {
    method: "PUT",
    url: "/v1/streams/s/retention",
    body: { max_count: "10" },
    field: "max_count",
    location: "body",
  },
  {
    method: "POST",
    url: "/v1/admin/scavenge",
    body: { confirm: "yes" },
    field: "confirm",
    location: "body",
  },
  {
    method: "POST",
    url: "/v1/admin/users",
    body: { username: "u", password: "long-enough", tenant_id: "t", role: "root" },
    field: "role",
    location: "body",
  },
];

test("schema failures answer 400 INVALID_ARGUMENT with details naming the field", async () => {
  const { operations, calls } = recordingOperations();
  const app = buildRestApp(operations);
  for (const c of schemaFailureCases) {
    const response = await app.inject({
      method: c.method ?? "GET",
      url: c.url,
      headers: c.body === undefined ? auth : json,
      ...(c.body === undefined ? {} : { payload: JSON.stringify(c.body) }),
    });
    assert.equal(response.statusCode, 400, c.url);
    const error = assertErrorShape(response.json(), "INVALID_ARGUMENT");
    assert.equal(error.details.field, c.field, `${c.url} ${JSON.stringify(c.body)}`);
    assert.equal(error.details.location, c.location, c.url);
    assert.match(error.message, new RegExp(c.field.replace(/[[\]]/g, "\\$&")));
  }
  assert.deepEqual(calls, []);
  await app.close();
});

test("each route passes the percent-decoded path id, the typed query and the body to its one operation", async () => {
  const { operations, calls } = recordingOperations();
  const app = buildRestApp(operations);
  const inject = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: body === undefined ? auth : json,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  await inject("GET", "/v1/streams/caf%C3%A9%2Forders?from=3&limit=10&direction=backward&tenant=acme");
  await inject("POST", "/v1/streams/s%20one/append?tenant=acme", {
    event_type: "t",
    data: { a: 1 },
    expected_revision: 4,
  });
  await inject("PUT", "/v1/streams/s/retention", { max_count: 5, max_age_seconds: null });
  await inject("DELETE", "/v1/admin/users/b%40b");
  await inject("GET", "/v1/events?from_position=12&limit=2");
  await inject(
    "GET",
    "/v1/events?direction=backward&stream_prefix=a-,b&event_type_regex=%5EX%7CY&stream_regex=",
  );
  await inject("GET", "/v1/admin/tenants/t%25");
  await inject("POST", "/v1/admin/scavenge");
  assert.deepEqual(
    calls.map((c) => [c.operation, c.token, c.request]),
    [
      [
        "read",
        "token-1",
        { stream_id: "café/orders", tenant: "acme", from: 3, limit: 10, direction: "backward" },
      ],
      [
        "append",
        "token-1",
        {
          event_type: "t",
          data: Payload.fromText('{"a":1}'),
          expected_revision: 4,
          stream_id: "s one",
          tenant: "acme",
        },
      ],
      [
        "setRetention",
        "token-1",
        {
          stream_id: "s",
          tenant: undefined,
          max_age_seconds: null,
          max_count: 5,
          truncate_before: undefined,
        },
      ],
      ["deleteUser", "token-1", { username: "b@b" }],
      [
        "readAll",
        "token-1",
        {
          tenant: undefined,
          from_position: 12,
          limit: 2,
          direction: undefined,
          stream_prefix: undefined,
          event_type_prefix: undefined,
          stream_regex: undefined,
          event_type_regex: undefined,
        },
      ],
      [
        "readAll",
        "token-1",
        {
          tenant: undefined,
          from_position: undefined,
          limit: undefined,
          direction: "backward",
          stream_prefix: ["a-", "b"],
          event_type_prefix: undefined,
          stream_regex: undefined,
          event_type_regex: "^X|Y",
        },
      ],
      ["getTenant", "token-1", { tenant_id: "t%" }],
      ["scavenge", "token-1", { dry_run: undefined, confirm: undefined }],
    ],
  );
  await app.close();
});

test("read results embed the stored JSON text of data and metadata byte for byte", async () => {
  const data =
    '{"amount": 1.50, "note":"caf\\u00e9", "big": 12345678901234567890, "nested": {"z":1,"a":[ ]}}';
  const metadata = '{"trace" :"x"}';
  const event = {
    stream_id: "s",
    revision: 0,
    position: 7,
    event_id: "8b1c6f5e-6c1e-4a57-9a39-7d7c0b0f5a11",
    event_type: "t",
    data,
    metadata,
    created_at: "2026-01-01T00:00:00.000Z",
  };
  const app = buildRestApp(
    recordingOperations((name) =>
      name === "read"
        ? { stream_id: "s", direction: "forward", events: [event], next_revision: null, is_end: true }
        : { events: [event, event], next_position: 8, is_end: false },
    ).operations,
  );
  for (const url of ["/v1/streams/s", "/v1/events"]) {
    const response = await app.inject({ method: "GET", url, headers: auth });
    assert.equal(response.statusCode, 200);
    assert.ok(response.body.includes(`"data":${data},"metadata":${metadata}`), response.body);
    const parsed = response.json<{ events: { data: { amount: number } }[] }>();
    assert.equal(parsed.events[0]?.data.amount, 1.5);
  }
  await app.close();
});

test("a request arriving while the gateway closes answers 503 UNAVAILABLE in the error shape", async () => {
  const { operations } = recordingOperations();
  let release = (): void => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let started = (): void => {};
  const inFlight = new Promise<void>((resolve) => (started = resolve));
  operations.check = async () => {
    started();
    await held;
    return { status: "ok", version: "x", uptime_seconds: 1, storage: { engine: "log", writable: true } };
  };
  const app = buildRestApp(operations);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
  const ended = new Promise((resolve) => socket.on("close", resolve));
  socket.write("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
  await inFlight;
  const closed = app.close();
  // The server stops listening only after the preClose hooks ran, so from then on the gateway
  // knows it is closing (a fixed sleep was not enough on a loaded machine).
  while (app.server.listening) await new Promise((resolve) => setTimeout(resolve, 5));
  socket.write("GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  await new Promise((resolve) => setTimeout(resolve, 20));
  release();
  await ended;
  await closed;
  assert.match(received, /^HTTP\/1.1 200 /);
  const second = received.slice(received.indexOf("HTTP/1.1", 1));
  assert.match(second, /^HTTP\/1.1 503 /);
  assert.match(second, /\{"error":\{"code":"UNAVAILABLE","message":"[^"]+","details":\{\}\}\}$/);
});

test("no answer names the framework: its refusals are mapped to the contract's codes and messages", async () => {
  const app = buildRestApp(recordingOperations().operations, { logger: quiet });
  const requests: { method: string; url: string; headers?: Record<string, string>; payload?: string }[] = [
    { method: "QUERY", url: "/v1/health" },
    { method: "QUERY", url: "/v1/health", headers: { "content-type": "application/json" }, payload: "{" },
    { method: "PROPFIND", url: "/v1/nothing", headers: { "content-type": "text/xml" }, payload: "<a/>" },
    { method: "POST", url: "/v1/streams/s/append", headers: { ...json }, payload: "" },
    {
      method: "POST",
      url: "/v1/streams/s/append",
      headers: { ...auth, "content-type": "text/plain" },
      payload: "x",
    },
    {
      method: "POST",
      url: "/v1/streams/s/append",
      headers: { ...auth, "content-type": "application/json; x" },
      payload: "{}",
    },
    { method: "PUT", url: "/v1/streams/s/retention", headers: { ...json }, payload: "[" },
    { method: "GET", url: "/v1/streams/%E0%A4%A/info", headers: auth },
    { method: "GET", url: `/v1/streams/${"a".repeat(5000)}/info`, headers: auth },
  ];
  for (const request of requests) {
    const response = await app.inject({ ...request, method: request.method as InjectOptions["method"] });
    const what = `${request.method} ${request.url.slice(0, 60)} -> ${response.statusCode} ${response.body}`;
    assert.ok(response.statusCode >= 400 && response.statusCode < 500, what);
    assert.doesNotMatch(response.body, /FST_|fastify/i, what);
    const body = response.json<ErrorReply>();
    assert.equal(
      httpStatusByCode[body.error.code as keyof typeof httpStatusByCode],
      response.statusCode,
      what,
    );
  }
  await app.close();
});

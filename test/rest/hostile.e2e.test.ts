/**
 * Hostile input, thrown at every route of the real service over real HTTP: random and broken
 * bodies, headers, path ids (unicode, percent-encoding, "..", NUL, very long) and query values.
 * Whatever arrives: never a 5xx, always the contract's error shape with the status of its code,
 * nothing stored by a refused request, and the service stays up.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import fc from "fast-check";
import { errorCodes, type ErrorCode } from "../../src/errors.js";
import { httpStatusByCode } from "../../src/rest/http-errors.js";
import { routes } from "../../src/rest/routes.js";
import { adminPassword, http, login, startTarget, type RestTarget } from "./harness.js";

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** node:http sends the path as given (fetch would resolve "..", which is what we want to test). */
function send(
  target: RestTarget,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | null,
): Promise<RawResponse> {
  const { hostname, port } = new URL(target.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", (error: Error) => reject(new Error(`${method} ${path.slice(0, 200)}: ${error.message}`)));
    req.end(body ?? undefined);
  });
}

function assertContractAnswer(response: RawResponse, what: string): void {
  assert.ok(response.status < 500, `${what} -> ${response.status} ${response.text}`);
  // A HEAD answer has no body by definition; its status is all there is to check.
  if (response.status < 400 || what.startsWith("HEAD ")) return;
  const body = JSON.parse(response.text) as { error: { code: ErrorCode; message: string; details: unknown } };
  assert.deepEqual(Object.keys(body), ["error"], what);
  assert.ok(errorCodes.includes(body.error.code), `${what}: ${response.text}`);
  assert.equal(httpStatusByCode[body.error.code], response.status, what);
  assert.equal(typeof body.error.message, "string", what);
  assert.equal(typeof body.error.details, "object", what);
  if (response.status === 401) assert.equal(response.headers["www-authenticate"], "Bearer", what);
  if (response.status === 405) assert.ok(response.headers.allow, what);
}

const hostileSegment = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }).map(encodeURIComponent),
  fc.string({ unit: "grapheme", maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom(
    "..",
    ".",
    "%2e%2e",
    "%00",
    "a%00b",
    "%",
    "%zz",
    "%C0%AE",
    "%FF%FE",
    "%2F",
    "$all",
    "%24x",
    "",
  ),
  fc
    .integer({ min: 190, max: 3000 })
    .map((n) => "é".repeat(n).slice(0, n))
    .map(encodeURIComponent),
  fc.integer({ min: 150, max: 700 }).map((n) => "x".repeat(n)),
);

const queryValue = fc.oneof(
  fc.constantFrom(
    "0",
    "-1",
    "1",
    "1000",
    "1001",
    "1e3",
    "0x10",
    "1.5",
    "",
    "9007199254740993",
    "99999999999999999999",
  ),
  fc.constantFrom("forward", "backward", "sideways", "%00", "%zz", "acme", "default"),
  fc.string({ unit: "binary", maxLength: 30 }).map(encodeURIComponent),
);
const queryKey = fc.constantFrom(
  "from",
  "limit",
  "direction",
  "tenant",
  "prefix",
  "cursor",
  "from_position",
  "x",
  "__proto__",
  "constructor",
);
const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? "" : "?" + pairs.map(([k, v]) => `${k}=${v}`).join("&")));

const anything = fc.jsonValue({ maxDepth: 3 });
const eventLike = fc.record(
  {
    event_type: fc.oneof(fc.string({ maxLength: 210 }), anything),
    data: fc.oneof(fc.dictionary(fc.string(), anything, { maxKeys: 4 }), anything),
    metadata: anything,
    event_id: fc.oneof(fc.uuid(), fc.string()),
  },
  { requiredKeys: [] },
);
const bodyValue = fc.oneof(
  eventLike,
  fc.record(
    { events: fc.oneof(fc.array(eventLike, { maxLength: 4 }), anything), expected_revision: anything },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      username: anything,
      password: anything,
      tenant_id: anything,
      role: anything,
      dry_run: anything,
      confirm: anything,
      max_count: anything,
      max_age_seconds: anything,
      truncate_before: anything,
    },
    { requiredKeys: [] },
  ),
  anything,
);
const bodyText = fc.oneof(
  bodyValue.map((v) => JSON.stringify(v)),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.constantFrom(
    "",
    "{",
    "[",
    "nul",
    '{"a":1}}',
    '{"__proto__":{"x":1},"event_type":"t","data":{}}',
    "\u0000",
  ),
);
const contentType = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "",
  "*/*",
);

describe("hostile input at every route", () => {
  let target: RestTarget;
  let admin: string;
  let writer: string;

  before(async () => {
    target = await startTarget("in-process");
    admin = await login(target, "admin", adminPassword);
    await http(target, "POST", "/v1/admin/users", {
      token: admin,
      body: { username: "mallory", password: "mallory-password", tenant_id: "mallory", role: "writer" },
    });
    writer = await login(target, "mallory", "mallory-password");
  });
  after(async () => {
    await target?.stop();
  });

  test("random paths, ids, queries, headers and bodies never get a 5xx and always the error shape", async () => {
    const token = fc.oneof(
      fc.constant<string | null>(null),
      fc.constant(`Bearer ${writer}`),
      fc.constantFrom(
        "Bearer",
        "Bearer ",
        "Basic abc",
        "bearer x.y.z",
        `Bearer ${writer}x`,
        `Bearer ${"a".repeat(5000)}`,
      ),
      fc.string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 60,
      }),
    );
    const route = fc.constantFrom(...routes.map((r) => `${r.method} ${r.path}`));
    const method = fc.oneof(
      { weight: 4, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD") },
    );
    await fc.assert(
      fc.asyncProperty(
        route,
        method,
        hostileSegment,
        query,
        token,
        fc.option(bodyText),
        contentType,
        async (spec, otherMethod, segment, search, auth, body, type) => {
          const [specMethod = "GET", specPath = "/"] = spec.split(" ");
          const path = specPath.replace(/\{[^}]+\}/g, segment) + search;
          const headers: Record<string, string> = {};
          if (auth !== null) headers.authorization = auth;
          if (body !== null && type !== "") headers["content-type"] = type;
          const verb = otherMethod ?? specMethod;
          const response = await send(
            target,
            verb,
            path,
            headers,
            verb === "GET" || verb === "HEAD" ? null : body,
          );
          assertContractAnswer(response, `${verb} ${path.slice(0, 120)} ${String(body).slice(0, 80)}`);
        },
      ),
      { numRuns: 400 },
    );
  });

  test("random append bodies store exactly the events they were acknowledged for", async () => {
    const before = (await http(target, "GET", "/v1/admin/storage-status", { token: admin })).body as {
      events_total: number;
    };
    const acknowledged = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(hostileSegment, bodyText, contentType, async (segment, body, type) => {
        const path = `/v1/streams/${segment}/append`;
        const headers: Record<string, string> = { authorization: `Bearer ${writer}` };
        if (type !== "") headers["content-type"] = type;
        const response = await send(target, "POST", path, headers, body);
        assertContractAnswer(response, `POST ${path.slice(0, 120)} ${body.slice(0, 80)}`);
        if (response.status === 200) {
          const result = JSON.parse(response.text) as { position: number; count: number };
          // An idempotent repeat answers the original result: count each position once.
          acknowledged.set(result.position, result.count);
        }
      }),
      { numRuns: 300 },
    );
    const after = (await http(target, "GET", "/v1/admin/storage-status", { token: admin })).body as {
      events_total: number;
    };
    const stored = [...acknowledged.values()].reduce((a, b) => a + b, 0);
    assert.equal(after.events_total - before.events_total, stored);
  });

  test("raw bytes the HTTP parser refuses get the error shape and the service stays up", async () => {
    const { connect } = await import("node:net");
    const { hostname, port } = new URL(target.baseUrl);
    const garbage = [
      "GARBAGE\r\n\r\n",
      "GET /v1/health HTTP/9.9\r\n\r\n",
      "GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      "GET /v1/streams/\u0000 HTTP/1.1\r\nHost: x\r\n\r\n",
      "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
    ];
    for (const bytes of garbage) {
      const socket = connect(Number(port), hostname);
      let received = "";
      socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
      socket.on("error", () => undefined);
      const closed = new Promise((resolve) => socket.on("close", resolve));
      socket.end(bytes);
      await closed;
      const [head = "", text = ""] = received.split("\r\n\r\n");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      assert.ok(status >= 400 && status < 500, JSON.stringify(bytes.slice(0, 60)) + " -> " + head);
      const body = JSON.parse(text) as { error: { code: ErrorCode } };
      assert.equal(httpStatusByCode[body.error.code], status);
    }
    // HEAD with oversized headers: refused with a status line and no body (a body would be
    // read by the client as garbage on the connection).
    const overflow = await send(target, "HEAD", `/v1/streams/${"%C3%A9".repeat(3000)}/info`, {}, null);
    assert.equal(overflow.status, 413);
    assert.equal(overflow.text, "");
    const health = await http(target, "GET", "/v1/health");
    assert.equal(health.status, 200);
  });
});

/**
 * The REST gateway end to end: the real service, real HTTP, in both gateway modes (in-process
 * and `ess gateway` over gRPC). Every test runs in both; they must answer the same.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { randomUUID } from "node:crypto";
import { limits } from "../../src/limits.js";
import { routes } from "../../src/rest/routes.js";
import {
  adminPassword,
  expectError,
  expectOk,
  gatewayModes,
  http,
  login,
  startTarget,
  type RestTarget,
} from "./harness.js";

for (const mode of gatewayModes) {
  describe(`REST gateway (${mode})`, () => {
    let target: RestTarget;
    let admin: string;
    let writer: string;
    let reader: string;
    let globex: string;

    before(async () => {
      target = await startTarget(mode);
      admin = await login(target, "admin", adminPassword);
      for (const [username, tenant_id, role] of [
        ["wendy", "acme", "writer"],
        ["rita", "acme", "reader"],
        ["gus", "globex", "writer"],
      ]) {
        const created = await http(target, "POST", "/v1/admin/users", {
          token: admin,
          body: { username, password: `${username}-password`, tenant_id, role },
        });
        const user = expectOk(created, "User", 201);
        assert.deepEqual(
          { ...user, created_at: undefined },
          { username, tenant_id, role, created_at: undefined },
        );
      }
      writer = await login(target, "wendy", "wendy-password");
      reader = await login(target, "rita", "rita-password");
      globex = await login(target, "gus", "gus-password");
    });
    after(async () => {
      await target?.stop();
    });

    test("health and the OpenAPI document need no token", async () => {
      const health = expectOk(await http(target, "GET", "/v1/health"), "HealthResult");
      assert.equal(health.status, "ok");
      const document = await http(target, "GET", "/v1/openapi.json");
      assert.equal(document.status, 200);
      assert.equal((document.body as { info: { version: string } }).info.version, "2.0.0");
    });

    test("login answers a bearer token, and bad credentials answer 401 with the Bearer challenge", async () => {
      const result = expectOk(
        await http(target, "POST", "/v1/auth/login", {
          body: { username: "wendy", password: "wendy-password" },
        }),
        "LoginResult",
      );
      assert.equal(result.token_type, "Bearer");
      assert.equal(result.tenant_id, "acme");
      assert.equal(result.role, "writer");
      expectError(
        await http(target, "POST", "/v1/auth/login", { body: { username: "wendy", password: "nope-nope" } }),
        401,
        "UNAUTHENTICATED",
      );
    });

    test("a missing, malformed or forged token is 401 and a wrong role is 403", async () => {
      expectError(await http(target, "GET", "/v1/streams"), 401, "UNAUTHENTICATED");
      expectError(await http(target, "GET", "/v1/streams", { token: "not.a.jwt" }), 401, "UNAUTHENTICATED");
      const forged = writer.slice(0, -4) + (writer.endsWith("AAAA") ? "BBBB" : "AAAA");
      expectError(await http(target, "GET", "/v1/streams", { token: forged }), 401, "UNAUTHENTICATED");
      expectError(
        await http(target, "POST", "/v1/streams/r-1/append", {
          token: reader,
          body: { event_type: "t", data: {} },
        }),
        403,
        "PERMISSION_DENIED",
      );
      for (const path of [
        "/v1/admin/streams",
        "/v1/admin/verify",
        "/v1/admin/storage-status",
        "/v1/admin/tenants",
      ]) {
        expectError(await http(target, "GET", path, { token: writer }), 403, "PERMISSION_DENIED");
      }
    });

    test("append then read gives the events back with data and metadata byte for byte", async () => {
      const stream = `orders-${randomUUID()}`;
      const data =
        '{"amount":  1.50, "note": "caf\\u00e9 ☕", "big": 12345678901234567890, "z": {"b": 1, "a": [ ]}}';
      const raw = `{"event_type": "OrderPlaced", "data": ${data}, "metadata": {"trace" : "t-1"}}`;
      const appended = expectOk(
        await http(target, "POST", `/v1/streams/${stream}/append`, {
          token: writer,
          rawBody: raw,
          headers: { "content-type": "application/json" },
        }),
        "AppendResult",
      );
      assert.deepEqual(
        { ...appended, position: 0 },
        { stream_id: stream, first_revision: 0, last_revision: 0, position: 0, count: 1 },
      );
      const batch = expectOk(
        await http(target, "POST", `/v1/streams/${stream}/append`, {
          token: writer,
          body: {
            events: [
              { event_type: "OrderPaid", data: { n: 1 } },
              { event_type: "OrderShipped", data: { n: 2 }, metadata: { by: "x" } },
            ],
            expected_revision: 0,
          },
        }),
        "AppendResult",
      );
      assert.equal(batch.first_revision, 1);
      assert.equal(batch.last_revision, 2);
      assert.equal(batch.count, 2);
      const read = await http(target, "GET", `/v1/streams/${stream}`, { token: reader });
      const result = expectOk<{ events: { revision: number; event_type: string }[] }>(read, "ReadResult");
      assert.ok(read.text.includes(`"data":${data}`), read.text);
      assert.ok(read.text.includes(`"metadata":{"trace" : "t-1"}`), read.text);
      assert.deepEqual(
        result.events.map((e) => [e.revision, e.event_type]),
        [
          [0, "OrderPlaced"],
          [1, "OrderPaid"],
          [2, "OrderShipped"],
        ],
      );
      assert.equal((result as unknown as { is_end: boolean }).is_end, true);
      const all = await http(target, "GET", `/v1/events?limit=1000`, { token: reader });
      expectOk(all, "ReadAllResult");
      assert.ok(all.text.includes(`"data":${data}`));
    });

    test("read pages forward and backward with from, limit and direction", async () => {
      const stream = `paged-${randomUUID()}`;
      const events = Array.from({ length: 5 }, (_, i) => ({ event_type: "t", data: { i } }));
      expectOk(
        await http(target, "POST", `/v1/streams/${stream}/append`, { token: writer, body: { events } }),
        "AppendResult",
      );
      const page = expectOk(
        await http(target, "GET", `/v1/streams/${stream}?limit=2`, { token: writer }),
        "ReadResult",
      );
      assert.deepEqual([page.next_revision, page.is_end, (page.events as unknown[]).length], [2, false, 2]);
      const back = expectOk(
        await http(target, "GET", `/v1/streams/${stream}?direction=backward&from=3&limit=2`, {
          token: writer,
        }),
        "ReadResult",
      );
      assert.deepEqual(
        (back.events as { revision: number }[]).map((e) => e.revision),
        [3, 2],
      );
      assert.equal(back.direction, "backward");
      expectError(
        await http(target, "GET", `/v1/streams/${stream}?limit=1001`, { token: writer }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await http(target, "GET", `/v1/streams/${stream}?limit=0`, { token: writer }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await http(target, "GET", `/v1/streams/never-${randomUUID()}`, { token: writer }),
        404,
        "STREAM_NOT_FOUND",
      );
    });

    test("a wrong expected revision is 409 and a repeated event id is idempotent", async () => {
      const stream = `conc-${randomUUID()}`;
      const event = { event_type: "t", data: { a: 1 }, event_id: randomUUID() };
      const first = expectOk(
        await http(target, "POST", `/v1/streams/${stream}/append`, {
          token: writer,
          body: { ...event, expected_revision: "no_stream" },
        }),
        "AppendResult",
      );
      const again = expectOk(
        await http(target, "POST", `/v1/streams/${stream}/append`, { token: writer, body: event }),
        "AppendResult",
      );
      assert.deepEqual(again, first);
      const conflict = expectError(
        await http(target, "POST", `/v1/streams/${stream}/append`, {
          token: writer,
          body: { event_type: "t", data: {}, expected_revision: 5 },
        }),
        409,
        "WRONG_EXPECTED_REVISION",
      );
      assert.equal(conflict.details.actual, 0);
    });

    test("a batch mixing a client's event id with ids the service makes is checked for repeats; one without ids is not", async () => {
      const stream = `mixed-${randomUUID()}`;
      const mixed = {
        events: [
          { event_type: "t", data: { n: 1 }, event_id: randomUUID() },
          { event_type: "t", data: { n: 2 } },
        ],
      };
      const post = (body: unknown) =>
        http(target, "POST", `/v1/streams/${stream}/append`, { token: writer, body });
      expectOk(await post(mixed), "AppendResult");
      // Sent again: the client's id is in the stream, the made one is new, so not the same batch.
      expectError(await post(mixed), 409, "WRONG_EXPECTED_REVISION");
      const withoutIds = { events: [{ event_type: "t", data: { n: 3 } }] };
      expectOk(await post(withoutIds), "AppendResult");
      expectOk(await post(withoutIds), "AppendResult");
      const page = expectOk(
        await http(target, "GET", `/v1/streams/${stream}`, { token: writer }),
        "ReadResult",
      );
      assert.deepEqual(
        (page.events as { data: { n: number } }[]).map((e) => e.data.n),
        [1, 2, 3, 3],
      );
    });

    test("stream ids are scoped by tenant, and an admin reaches another tenant with ?tenant=", async () => {
      const stream = `shared-${randomUUID()}`;
      await http(target, "POST", `/v1/streams/${stream}/append`, {
        token: writer,
        body: { event_type: "acme", data: {} },
      });
      await http(target, "POST", `/v1/streams/${stream}/append`, {
        token: globex,
        body: { event_type: "globex", data: {} },
      });
      const acme = expectOk(
        await http(target, "GET", `/v1/streams/${stream}`, { token: reader }),
        "ReadResult",
      );
      assert.deepEqual(
        (acme.events as { event_type: string }[]).map((e) => e.event_type),
        ["acme"],
      );
      const viaAdmin = expectOk(
        await http(target, "GET", `/v1/streams/${stream}?tenant=globex`, { token: admin }),
        "ReadResult",
      );
      assert.deepEqual(
        (viaAdmin.events as { event_type: string }[]).map((e) => e.event_type),
        ["globex"],
      );
      const info = expectOk(
        await http(target, "GET", `/v1/streams/${stream}/info?tenant=acme`, { token: admin }),
        "StreamInfo",
      );
      assert.equal(info.tenant_id, "acme");
      expectError(
        await http(target, "GET", `/v1/streams/${stream}?tenant=globex`, { token: writer }),
        403,
        "PERMISSION_DENIED",
      );
    });

    test("percent-encoded stream ids reach the operations decoded", async () => {
      const stream = `café/${randomUUID()} x`;
      const path = `/v1/streams/${encodeURIComponent(stream)}`;
      const appended = expectOk(
        await http(target, "POST", `${path}/append`, { token: writer, body: { event_type: "t", data: {} } }),
        "AppendResult",
      );
      assert.equal(appended.stream_id, stream);
      const info = expectOk(await http(target, "GET", `${path}/info`, { token: writer }), "StreamInfo");
      assert.equal(info.stream_id, stream);
      expectError(
        await http(target, "GET", `/v1/streams/%00bad/info`, { token: writer }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await http(target, "GET", `/v1/streams/${"x".repeat(limits.idBytesMax + 1)}/info`, { token: writer }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await http(target, "GET", `/v1/streams/%24system/info`, { token: writer }),
        400,
        "INVALID_ARGUMENT",
      );
    });

    test("listing, retention and soft delete work through their routes", async () => {
      const prefix = `life-${randomUUID()}-`;
      for (const n of [1, 2, 3]) {
        const events = Array.from({ length: n }, () => ({ event_type: "t", data: {} }));
        await http(target, "POST", `/v1/streams/${prefix}${n}/append`, { token: writer, body: { events } });
      }
      const page1 = expectOk(
        await http(target, "GET", `/v1/streams?prefix=${prefix}&limit=2`, { token: reader }),
        "StreamList",
      );
      assert.equal((page1.streams as unknown[]).length, 2);
      assert.equal(typeof page1.next_cursor, "string");
      const page2 = expectOk(
        await http(
          target,
          "GET",
          `/v1/streams?prefix=${prefix}&limit=2&cursor=${encodeURIComponent(String(page1.next_cursor))}`,
          { token: reader },
        ),
        "StreamList",
      );
      assert.deepEqual(
        [...(page1.streams as { stream_id: string }[]), ...(page2.streams as { stream_id: string }[])].map(
          (s) => s.stream_id,
        ),
        [`${prefix}1`, `${prefix}2`, `${prefix}3`],
      );
      const retained = expectOk(
        await http(target, "PUT", `/v1/streams/${prefix}3/retention`, {
          token: writer,
          body: { max_count: 1 },
        }),
        "StreamInfo",
      );
      assert.deepEqual(retained.retention, { max_age_seconds: null, max_count: 1, truncate_before: null });
      const kept = expectOk(
        await http(target, "GET", `/v1/streams/${prefix}3`, { token: reader }),
        "ReadResult",
      );
      assert.deepEqual(
        (kept.events as { revision: number }[]).map((e) => e.revision),
        [2],
      );
      const deleted = expectOk(
        await http(target, "DELETE", `/v1/streams/${prefix}2`, { token: writer }),
        "StreamInfo",
      );
      assert.equal(deleted.deleted, true);
      expectError(
        await http(target, "GET", `/v1/streams/${prefix}2`, { token: reader }),
        404,
        "STREAM_NOT_FOUND",
      );
      const info = expectOk(
        await http(target, "GET", `/v1/streams/${prefix}2/info`, { token: reader }),
        "StreamInfo",
      );
      assert.equal(info.deleted, true);
      const admins = expectOk(
        await http(target, "GET", `/v1/admin/streams?tenant=acme&prefix=${prefix}`, { token: admin }),
        "StreamList",
      );
      assert.ok((admins.streams as unknown[]).length >= 2);
    });

    test("the admin routes answer with their declared bodies", async () => {
      expectOk(await http(target, "GET", "/v1/admin/verify", { token: admin }), "VerifyResult");
      expectOk(await http(target, "GET", "/v1/admin/storage-status", { token: admin }), "StorageStatus");
      const tenants = expectOk(
        await http(target, "GET", "/v1/admin/tenants", { token: admin }),
        "TenantList",
      );
      assert.ok((tenants.tenants as { tenant_id: string }[]).some((t) => t.tenant_id === "acme"));
      const acme = expectOk(
        await http(target, "GET", "/v1/admin/tenants/acme", { token: admin }),
        "TenantDetail",
      );
      assert.equal(acme.tenant_id, "acme");
      expectError(
        await http(target, "GET", "/v1/admin/tenants/nobody-here", { token: admin }),
        404,
        "TENANT_NOT_FOUND",
      );
      expectOk(await http(target, "GET", "/v1/admin/users?limit=10", { token: admin }), "UserList");
    });

    test("scavenge needs confirm for a real run, and a dry run changes nothing", async () => {
      expectError(
        await http(target, "POST", "/v1/admin/scavenge", { token: admin, body: {} }),
        400,
        "CONFIRMATION_REQUIRED",
      );
      expectError(
        await http(target, "POST", "/v1/admin/scavenge", { token: admin }),
        400,
        "CONFIRMATION_REQUIRED",
      );
      const dry = expectOk(
        await http(target, "POST", "/v1/admin/scavenge", { token: admin, body: { dry_run: true } }),
        "ScavengeResult",
      );
      assert.equal(dry.dry_run, true);
      const real = expectOk(
        await http(target, "POST", "/v1/admin/scavenge", { token: admin, body: { confirm: true } }),
        "ScavengeResult",
      );
      assert.equal(real.dry_run, false);
    });

    test("users are created once, listed and deleted", async () => {
      const username = `temp-${randomUUID().slice(0, 8)}`;
      const body = { username, password: "temp-password", tenant_id: "acme", role: "reader" };
      expectOk(await http(target, "POST", "/v1/admin/users", { token: admin, body }), "User", 201);
      expectError(await http(target, "POST", "/v1/admin/users", { token: admin, body }), 409, "USER_EXISTS");
      const deleted = expectOk(
        await http(target, "DELETE", `/v1/admin/users/${username}`, { token: admin }),
        "User",
      );
      assert.equal(deleted.username, username);
      expectError(
        await http(target, "DELETE", `/v1/admin/users/${username}`, { token: admin }),
        404,
        "USER_NOT_FOUND",
      );
      expectError(await http(target, "GET", "/v1/admin/users", { token: writer }), 403, "PERMISSION_DENIED");
    });

    test("unknown routes are 404, wrong methods 405 with Allow, wrong content types 415, bad JSON 400", async () => {
      expectError(await http(target, "GET", "/v1/nothing"), 404, "NOT_FOUND");
      expectError(await http(target, "GET", "/v2/health"), 404, "NOT_FOUND");
      const wrong = await http(target, "PATCH", "/v1/streams/x", { token: writer });
      expectError(wrong, 405, "METHOD_NOT_ALLOWED");
      assert.equal(wrong.headers.get("allow"), "GET, HEAD, DELETE");
      expectError(
        await http(target, "POST", "/v1/streams/x/append", {
          token: writer,
          rawBody: '{"event_type":"t","data":{}}',
          headers: { "content-type": "text/plain" },
        }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
      expectError(
        await http(target, "POST", "/v1/streams/x/append", {
          token: writer,
          rawBody: '{"event_type":"t","data":{',
          headers: { "content-type": "application/json" },
        }),
        400,
        "INVALID_JSON",
      );
    });

    test("HEAD answers every GET route with the GET's status and headers and no body", async () => {
      const stream = `head-${randomUUID()}`;
      expectOk(
        await http(target, "POST", `/v1/streams/${stream}/append`, {
          token: writer,
          body: { event_type: "t", data: { n: 1 } },
        }),
        "AppendResult",
      );
      const gets: [string, string | null][] = [
        ["/v1/health", null],
        ["/v1/openapi.json", null],
        [`/v1/streams/${stream}`, writer],
        [`/v1/streams/${stream}/info`, writer],
        [`/v1/streams/${stream}/metadata`, writer],
        ["/v1/streams", writer],
        ["/v1/events", writer],
        ["/v1/admin/streams", admin],
        ["/v1/admin/verify", admin],
        ["/v1/admin/storage-status", admin],
        ["/v1/admin/tenants", admin],
        ["/v1/admin/tenants/acme", admin],
        ["/v1/admin/users", admin],
        ["/v1/admin/jobs", admin],
        // Refusals too: no token (401), the wrong role (403), a stream and a job that do not exist (404).
        [`/v1/admin/jobs/${randomUUID()}`, admin],
        [`/v1/streams/${stream}`, null],
        ["/v1/admin/users", writer],
        [`/v1/streams/missing-${randomUUID()}`, writer],
      ];
      const routed = new Set(routes.filter((r) => r.method === "GET").map((r) => r.path));
      assert.equal(routed.size, 15, "every GET route is in the list above");
      for (const [path, token] of gets) {
        const get = await http(target, "GET", path, { token });
        const head = await http(target, "HEAD", path, { token });
        assert.equal(head.status, get.status, `HEAD ${path}: ${get.text}`);
        assert.equal(head.text, "", `HEAD ${path} has no body`);
        for (const name of ["content-type", "www-authenticate", "allow"]) {
          assert.equal(head.headers.get(name), get.headers.get(name), `HEAD ${path}: ${name}`);
        }
        // Volatile answers (uptime, durations) may differ by a digit; the rest is byte for byte.
        if (!/health|verify|storage-status/.test(path)) {
          assert.equal(
            head.headers.get("content-length"),
            String(Buffer.byteLength(get.text)),
            `HEAD ${path}`,
          );
        }
      }
    });

    test("a method no route serves, even one with a body rule such as QUERY, is 405 with Allow, or 404 off the routes", async () => {
      for (const method of ["QUERY", "PROPFIND", "OPTIONS", "PATCH"]) {
        const health = await http(target, method, "/v1/health");
        expectError(health, 405, "METHOD_NOT_ALLOWED");
        assert.equal(health.headers.get("allow"), "GET, HEAD");
        const typed = await http(target, method, "/v1/health", {
          rawBody: "{}",
          headers: { "content-type": "text/plain" },
        });
        expectError(typed, 405, "METHOD_NOT_ALLOWED");
        expectError(await http(target, method, "/v1/nothing"), 404, "NOT_FOUND");
      }
      const append = await http(target, "QUERY", "/v1/streams/x/append", { token: writer, body: {} });
      expectError(append, 405, "METHOD_NOT_ALLOWED");
      assert.equal(append.headers.get("allow"), "POST");
    });

    test("an event over the size limit is 413 and a batch over the event count is 400, writing nothing", async () => {
      const stream = `limits-${randomUUID()}`;
      const tooBig = { event_type: "t", data: { blob: "x".repeat(limits.eventBytesMax) } };
      expectError(
        await http(target, "POST", `/v1/streams/${stream}/append`, { token: writer, body: tooBig }),
        413,
        "PAYLOAD_TOO_LARGE",
      );
      const tooMany = {
        events: Array.from({ length: limits.appendEventsMax + 1 }, () => ({ event_type: "t", data: {} })),
      };
      expectError(
        await http(target, "POST", `/v1/streams/${stream}/append`, { token: writer, body: tooMany }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await http(target, "GET", `/v1/streams/${stream}/info`, { token: writer }),
        404,
        "STREAM_NOT_FOUND",
      );
    });

    test("a Content-Length over the body limit is refused with 413 before the body is sent", async () => {
      const { hostname, port } = new URL(target.baseUrl);
      const socket = connect(Number(port), hostname);
      let received = "";
      socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
      const closed = new Promise((resolve) => socket.on("close", resolve));
      socket.on("error", () => undefined);
      socket.write(
        `POST /v1/streams/big/append HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${writer}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n{"event_type":`,
      );
      await closed;
      assert.match(received, /^HTTP\/1.1 413 /);
      assert.match(received, /"code":"PAYLOAD_TOO_LARGE"/);
    });

    test("a chunked body that grows past the limit is refused with 413", async () => {
      // Raw HTTP/1.1 chunked encoding: no Content-Length, so the limit can only be found while reading.
      const { hostname, port } = new URL(target.baseUrl);
      const socket = connect(Number(port), hostname);
      let received = "";
      socket.on("data", (data: Buffer) => (received += data.toString("utf8")));
      socket.on("error", () => undefined);
      const closed = new Promise((resolve) => socket.on("close", resolve));
      socket.write(
        `POST /v1/streams/chunked/append HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${writer}\r\n` +
          "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      );
      const chunk = "x".repeat(64 * 1024);
      const frame = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
      socket.write(frame('{"event_type":"t","data":{"b":"'));
      let sent = 0;
      while (received === "" && !socket.destroyed && sent < 2 * limits.appendBodyBytesMax) {
        socket.write(frame(chunk));
        sent += chunk.length;
        await new Promise((resolve) => setImmediate(resolve));
      }
      // The gateway reads (and drops) the rest of a body up to limits.restDiscardBodyBytesMax
      // before it answers, so that the answer is not lost to a reset connection.
      socket.write("0\r\n\r\n");
      await closed;
      assert.match(received, /^HTTP\/1.1 413 /);
      assert.match(received, /"code":"PAYLOAD_TOO_LARGE"/);
      expectError(
        await http(target, "GET", `/v1/streams/chunked/info`, { token: writer }),
        404,
        "STREAM_NOT_FOUND",
      );
    });
  });
}

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ApiClient,
  ApiError,
  apiPath,
  errorFromAnswer,
  queryString,
  toApiError,
  type FetchInit,
} from "../../console/src/lib/api-client.js";

interface Call {
  url: string;
  init: FetchInit;
}

function clientWith(
  answers: ({ status: number; body: string } | Error)[],
  options: { token?: string | null; reauthenticate?: (refused: string) => Promise<string | null> } = {},
) {
  const calls: Call[] = [];
  const client = new ApiClient({
    baseUrl: "http://127.0.0.1:8081/ess/",
    fetch: (url, init) => {
      calls.push({ url, init });
      const answer = answers.shift();
      if (answer === undefined) throw new Error("no more answers");
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve({ status: answer.status, text: () => Promise.resolve(answer.body) });
    },
    token: () => (options.token === undefined ? "token-1" : options.token),
    reauthenticate: options.reauthenticate ?? (() => Promise.resolve(null)),
  });
  return { client, calls };
}

const errorBody = (code: string, message: string, details: object = {}) =>
  JSON.stringify({ error: { code, message, details } });

test("an error answer becomes its code, message and details", async () => {
  const { client } = clientWith([
    {
      status: 404,
      body: errorBody("STREAM_NOT_FOUND", "stream orders-9 does not exist", { stream_id: "orders-9" }),
    },
  ]);
  await assert.rejects(client.get("v1/streams/orders-9"), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, "STREAM_NOT_FOUND");
    assert.equal(error.message, "stream orders-9 does not exist");
    assert.equal(error.status, 404);
    assert.deepEqual(error.details, { stream_id: "orders-9" });
    return true;
  });
});

test("an answer that is not the contract's error shape is HTTP_<status>, without its body", () => {
  const error = errorFromAnswer(502, "<html><body>Bad Gateway from nginx</body></html>");
  assert.equal(error.code, "HTTP_502");
  assert.doesNotMatch(error.message, /nginx|html/);
  assert.equal(errorFromAnswer(500, '{"error":"boom"}').code, "HTTP_500");
});

test("no answer is NETWORK_ERROR; anything else thrown is CONSOLE_ERROR, never its stack or text", async () => {
  const { client } = clientWith([new TypeError("Failed to fetch")]);
  await assert.rejects(client.get("v1/streams"), { code: "NETWORK_ERROR", status: 0 });
  const internal = new Error("secret internals at Object.<anonymous> (app.js:1:2)");
  const converted = toApiError(internal);
  assert.equal(converted.code, "CONSOLE_ERROR");
  assert.doesNotMatch(converted.message, /secret|app\.js/);
  assert.equal(toApiError("a string").code, "CONSOLE_ERROR");
  assert.equal(toApiError({ weird: true }).code, "CONSOLE_ERROR");
});

test("the token goes in the Authorization header only, and a login sends none", async () => {
  const { client, calls } = clientWith([
    { status: 200, body: '{"streams":[],"next_cursor":null}' },
    { status: 200, body: '{"access_token":"t"}' },
  ]);
  await client.get("v1/streams", { prefix: "orders-", cursor: null, limit: 50 });
  assert.equal(calls[0]?.url, "http://127.0.0.1:8081/ess/v1/streams?prefix=orders-&limit=50");
  assert.equal(calls[0]?.init.headers.authorization, "Bearer token-1");
  assert.doesNotMatch(calls[0]?.url ?? "", /token/);
  await client.request("POST", "v1/auth/login", {
    body: { username: "a", password: "b" },
    authenticated: false,
  });
  assert.equal(calls[1]?.init.headers.authorization, undefined);
  assert.equal(calls[1]?.init.headers["content-type"], "application/json");
  assert.equal(calls[1]?.init.body, '{"username":"a","password":"b"}');
});

test("a 401 asks for a new token and retries once with it", async () => {
  const refused: string[] = [];
  const { client, calls } = clientWith(
    [
      { status: 401, body: errorBody("UNAUTHENTICATED", "the token expired") },
      { status: 200, body: '{"ok":true}' },
    ],
    {
      reauthenticate: (token) => {
        refused.push(token);
        return Promise.resolve("token-2");
      },
    },
  );
  const answer = await client.request<{ ok: boolean }>("GET", "v1/admin/storage-status");
  assert.deepEqual(answer.body, { ok: true });
  assert.deepEqual(refused, ["token-1"]);
  assert.equal(calls[1]?.init.headers.authorization, "Bearer token-2");
});

test("a 401 the operator does not log in again for fails with its code", async () => {
  const { client, calls } = clientWith([
    { status: 401, body: errorBody("UNAUTHENTICATED", "the token expired") },
  ]);
  await assert.rejects(client.get("v1/streams"), { code: "UNAUTHENTICATED", message: "the token expired" });
  assert.equal(calls.length, 1);
});

test("a failed login is not retried and asks for no token", async () => {
  let asked = false;
  const { client } = clientWith([{ status: 401, body: errorBody("UNAUTHENTICATED", "bad credentials") }], {
    reauthenticate: () => {
      asked = true;
      return Promise.resolve("x");
    },
  });
  await assert.rejects(client.request("POST", "v1/auth/login", { body: {}, authenticated: false }), {
    code: "UNAUTHENTICATED",
  });
  assert.equal(asked, false);
});

test("a success whose body is not JSON is an error with a sentence", async () => {
  const { client } = clientWith([{ status: 200, body: "<html>" }]);
  await assert.rejects(client.get("v1/health"), { code: "HTTP_200" });
});

test("query strings leave out unset values and path segments are encoded", () => {
  assert.equal(
    queryString({ a: "x y", b: null, c: undefined, d: "", e: 0, f: false }),
    "?a=x%20y&e=0&f=false",
  );
  assert.equal(queryString({}), "");
  assert.equal(apiPath("v1/streams", "a/b?c", "info"), "v1/streams/a%2Fb%3Fc/info");
});

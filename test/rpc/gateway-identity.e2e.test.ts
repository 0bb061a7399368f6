// The REST gateway answers the same whether it calls the operations in-process (`ess serve`
// with REST enabled) or through the gRPC client (`ess gateway --upstream`): same status, same
// body byte for byte, for results and for errors. Both gateways front one service here.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRpcClient } from "../../src/client/rpc-client.js";
import type { RpcClient } from "../../src/client/rpc-client.js";
import { startRestServer } from "../../src/rest/server.js";
import type { RestServer } from "../../src/rest/server.js";
import { adminPassword, startTestService } from "./service-harness.js";
import type { TestService } from "./service-harness.js";

let ts: TestService;
let upstreamClient: RpcClient;
let inProcess: RestServer;
let relayed: RestServer;

before(async () => {
  ts = await startTestService();
  inProcess = await startRestServer(ts.service.operations, { host: "127.0.0.1", port: 0 });
  upstreamClient = createRpcClient({ address: ts.address });
  relayed = await startRestServer(upstreamClient, { host: "127.0.0.1", port: 0 });
});

after(async () => {
  await relayed.close();
  await inProcess.close();
  upstreamClient.close();
  await ts.close();
});

interface Answer {
  status: number;
  body: string;
}

async function call(
  server: RestServer,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`http://127.0.0.1:${server.address.port}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.text() };
}

test("in-process and relayed-over-gRPC gateways give identical answers", async () => {
  const login = JSON.parse(
    (await call(inProcess, "POST", "/v1/auth/login", { username: "admin", password: adminPassword })).body,
  ) as { access_token: string };
  const admin = login.access_token;
  const writer = (await ts.userContext("gw-writer", "acme", "writer")).token ?? "";
  await call(
    inProcess,
    "POST",
    "/v1/streams/s1/append",
    {
      events: [
        { event_type: "A", data: { a: 1, u: "ü" } },
        { event_type: "B", data: { b: [1] }, metadata: { m: 1 } },
      ],
    },
    writer,
  );
  // Reads and failures only: each is answered twice, so neither may change anything.
  const cases: [string, string, unknown?, string?][] = [
    ["GET", "/v1/streams/s1", undefined, writer],
    ["GET", "/v1/streams/s1?direction=backward&limit=1", undefined, writer],
    ["GET", "/v1/streams/s1?from=1", undefined, writer],
    ["GET", "/v1/streams/s1/info", undefined, writer],
    ["GET", "/v1/streams/nope", undefined, writer],
    ["GET", "/v1/streams", undefined, writer],
    ["GET", "/v1/events?limit=5", undefined, writer],
    ["GET", "/v1/streams/s1?limit=0", undefined, writer],
    ["GET", "/v1/streams/s1?limit=abc", undefined, writer],
    ["GET", "/v1/streams/s1?direction=up", undefined, writer],
    ["GET", "/v1/streams/s1", undefined, "not-a-token"],
    ["GET", "/v1/streams/s1"],
    ["GET", "/v1/streams/s1?tenant=globex", undefined, writer],
    ["POST", "/v1/streams/s1/append", { event_type: "C", data: [1] }, writer],
    ["POST", "/v1/streams/s1/append", { event_type: "X", data: {}, expected_revision: 0 }, writer],
    ["POST", "/v1/streams/s1/append", { events: [] }, writer],
    ["POST", "/v1/streams/s1/append", { event_type: "X", data: {}, event_id: "nope" }, writer],
    ["GET", "/v1/admin/streams", undefined, admin],
    ["GET", "/v1/admin/streams", undefined, writer],
    ["GET", "/v1/admin/tenants", undefined, admin],
    ["GET", "/v1/admin/tenants/acme", undefined, admin],
    ["GET", "/v1/admin/tenants/zzz", undefined, admin],
    ["GET", "/v1/admin/storage-status", undefined, writer],
    ["POST", "/v1/admin/scavenge", {}, admin],
    ["GET", "/v1/admin/users", undefined, admin],
    [
      "POST",
      "/v1/admin/users",
      { username: "gw-writer", password: "password-1", tenant_id: "acme", role: "writer" },
      admin,
    ],
    ["POST", "/v1/admin/users", { username: "w2", password: "x", tenant_id: "acme", role: "writer" }, admin],
    ["DELETE", "/v1/admin/users/nobody", undefined, admin],
    ["PUT", "/v1/streams/s1/retention", { max_count: 0 }, writer],
    ["POST", "/v1/auth/login", { username: "gw-writer", password: "wrong-password" }],
  ];
  for (const [method, path, body, token] of cases) {
    const here = await call(inProcess, method, path, body, token);
    const there = await call(relayed, method, path, body, token);
    assert.deepEqual(there, here, `${method} ${path}`);
  }
});

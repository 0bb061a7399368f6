// What every TLS listener of a service must do, checked through real TLS clients (grpc-js with the
// test CA, node's https, the `ws` client) and plaintext ones; shared by the log-engine and
// postgres-engine TLS tests.
import assert from "node:assert/strict";
import { createRpcClient } from "../../src/client/rpc-client.js";
import { EssError } from "../../src/errors.js";
import type { SubscribeResponse__Output } from "../../src/rpc/generated/ess/v1/SubscribeResponse.js";
import { adminPassword, type TlsService } from "./tls-harness.js";
import { httpsCall, peerFingerprint, plainHttpGet, WsSubscriber } from "./tls-clients.js";
import { eventually } from "../helpers/eventually.js";

export function events(n: number, from = 0): { event_type: string; data: { n: number } }[] {
  return Array.from({ length: n }, (_, i) => ({ event_type: "e", data: { n: from + i } }));
}

export async function checkRpc(t: TlsService): Promise<void> {
  const { client, admin } = t;
  // Append and Read: the fast carrier's own methods (served by grpc-js alone in the other mode).
  const appended = await client.append(admin, { stream_id: "tls-1", events: events(2) });
  assert.equal(appended.first_revision, 0);
  const read = await client.read(admin, { stream_id: "tls-1" });
  assert.deepEqual(
    read.events.map((e) => String(e.data)),
    [`{"n":0}`, `{"n":1}`],
  );
  // ListUsers goes through the hop to grpc-js when the fast carrier is on: still TLS outside.
  const users = await client.listUsers(admin, {});
  assert.deepEqual(
    users.users.map((u) => u.username),
    ["admin"],
  );
  // Subscribe, a server stream.
  const messages: SubscribeResponse__Output[] = [];
  const call = client.grpc.streams.Subscribe({ stream_id: "tls-1", from: "0" }, client.metadataFor(admin));
  call.on("data", (m: SubscribeResponse__Output) => messages.push(m));
  call.on("error", () => undefined);
  await eventually(() => messages.some((m) => m.message === "caught_up"), "caught_up");
  assert.equal(messages.filter((m) => m.message === "event").length, 2);
  call.cancel();
  assert.equal(await peerFingerprint(t.rpcPort, t.ca.ca, "h2"), t.cert.fingerprint256);
}

export async function checkRest(t: TlsService): Promise<void> {
  const health = await httpsCall(t.restPort, t.ca.ca, "GET", "/v1/health");
  assert.equal(health.status, 200, health.body);
  const login = await httpsCall(t.restPort, t.ca.ca, "POST", "/v1/auth/login", {
    body: { username: "admin", password: adminPassword },
  });
  assert.equal(login.status, 200, login.body);
  const token = (JSON.parse(login.body) as { access_token: string }).access_token;
  const read = await httpsCall(t.restPort, t.ca.ca, "GET", "/v1/streams/tls-1", { token });
  assert.equal(read.status, 200, read.body);
  assert.equal((JSON.parse(read.body) as { events: unknown[] }).events.length, 2);
  assert.equal(await peerFingerprint(t.restPort, t.ca.ca, "http/1.1"), t.cert.fingerprint256);
}

export async function checkWss(t: TlsService, port: number): Promise<void> {
  const ws = await WsSubscriber.open(`wss://127.0.0.1:${port}/v1/subscribe`, t.admin.token!, t.ca.ca);
  ws.subscribe("a", "tls-1");
  await ws.until(() => ws.messages.some((m) => m.type === "caught_up"), "caught_up");
  await t.client.append(t.admin, { stream_id: "tls-1", events: events(1, 100) });
  await ws.until(() => ws.revisions("a").length >= 3, "the live event");
  assert.deepEqual(ws.revisions("a").slice(0, 3), [0, 1, 2]);
  ws.close();
}

export async function checkPlaintextFails(t: TlsService): Promise<void> {
  // gRPC: UNAVAILABLE as soon as the handshake fails, well before the 20 s deadline.
  const plain = createRpcClient({ address: `127.0.0.1:${t.rpcPort}`, deadlineMs: 20_000 });
  try {
    await assert.rejects(plain.check(), (error: unknown) => {
      assert.ok(error instanceof EssError, String(error));
      assert.equal(error.code, "UNAVAILABLE");
      assert.doesNotMatch(error.message, /deadline/i);
      return true;
    });
  } finally {
    plain.close();
  }
  // HTTP and WebSocket without TLS: the connection is closed, no answer.
  for (const port of [t.restPort, t.wsPort]) {
    await assert.rejects(plainHttpGet(port, "/v1/health"), /socket hang up|ECONNRESET/);
    await assert.rejects(WsSubscriber.open(`ws://127.0.0.1:${port}/v1/subscribe`, t.admin.token!));
  }
}

// The WebSocket upgrade on the REST listener (docs/contract.md "WebSocket protocol"), in the whole service as
// `ess serve` starts it with SERVICE_REST_ENABLED and SERVICE_WS_ENABLED: a real `ws` client on
// the REST port gets what it gets on the WebSocket port, with the same auth and bounds; other
// upgrades are refused or, for another protocol, served as plain HTTP.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.js";
import { limits } from "../../src/limits.js";
import { createLogger } from "../../src/logger.js";
import { startService, type Service } from "../../src/service.js";
import { TestClient, type ServerMessage } from "./ws-client.js";

const adminPassword = "admin-password";

interface Running {
  service: Service;
  restPort: number;
  wsPort: number | null;
  stop(): Promise<void>;
}

async function serve(settings: Record<string, string>): Promise<Running> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-rest-upgrade-"));
  const config = loadConfig({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_RPC_ADDRESS: "127.0.0.1:0",
    SERVICE_REST_ENABLED: "true",
    SERVICE_REST_ADDRESS: "127.0.0.1:0",
    SERVICE_WS_ADDRESS: "127.0.0.1:0",
    SERVICE_ADMIN_PASSWORD: adminPassword,
    ...settings,
  });
  const service = await startService(config, { logger: createLogger({}, 100), stopGraceMs: 2000 });
  const rest = service.listeners.find((l) => l.name === "rest");
  assert.ok(rest);
  let stopped = false;
  return {
    service,
    restPort: rest.address.port,
    wsPort: service.listeners.find((l) => l.name === "ws")?.address.port ?? null,
    async stop() {
      if (stopped) return;
      stopped = true;
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function rest(
  port: number,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function loginToken(port: number): Promise<string> {
  const login = await rest(port, "POST", "/v1/auth/login", null, {
    username: "admin",
    password: adminPassword,
  });
  assert.equal(login.status, 200);
  return login.body.access_token as string;
}

/** Writes raw bytes, then reads until the server hangs up or `quietMs` pass without a byte. */
/** How many complete HTTP/1.1 responses (a head with Content-Length, then its body) `answer` holds. */
function completeResponses(answer: string): number {
  let count = 0;
  let at = 0;
  for (;;) {
    const headEnd = answer.indexOf("\r\n\r\n", at);
    if (headEnd < 0) return count;
    // Without a Content-Length, the body ends when the server closes.
    const length = /\r\ncontent-length: *(\d+)/i.exec(answer.slice(at, headEnd));
    if (!length) return count;
    const end = headEnd + 4 + Number(length[1]);
    if (answer.length < end) return count;
    count++;
    at = end;
  }
}

/**
 * Sends raw bytes and collects what comes back until `responses` complete responses have arrived
 * or the server closes the connection (bounded at 10 s: a loaded machine may answer slowly).
 */
function exchange(port: number, bytes: string, responses = 1): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port }, () => socket.write(bytes));
    let answer = "";
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      if (completeResponses(answer) >= responses) socket.destroy();
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on("error", reject);
  });
}

const webSocketHeaders =
  "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" +
  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

function errorCodeOf(answer: string): string {
  const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
  return (JSON.parse(body) as { error: { code: string } }).error.code;
}

let running: Running;
let token: string;

before(async () => {
  running = await serve({ SERVICE_WS_ENABLED: "true" });
  token = await loginToken(running.restPort);
});

after(async () => {
  await running?.stop();
});

test("the REST listener upgrades /v1/subscribe: history, caught_up and live events, as on the WebSocket listener", async () => {
  const stream = "orders-upgrade";
  for (const n of [1, 2]) {
    const appended = await rest(running.restPort, "POST", `/v1/streams/${stream}/append`, token, {
      event_type: "Placed",
      data: { n },
    });
    assert.equal(appended.status, 200);
  }
  const onRest = await TestClient.open(running.restPort, token);
  const onWs = await TestClient.open(running.wsPort!, token);
  try {
    for (const client of [onRest, onWs]) {
      client.subscribe("s1", stream, 0);
      await client.untilMessage("caught_up", "s1");
    }
    await rest(running.restPort, "POST", `/v1/streams/${stream}/append`, token, {
      event_type: "Placed",
      data: { n: 3 },
    });
    for (const client of [onRest, onWs]) await client.untilEvents("s1", 3);
    const order = (client: TestClient): ServerMessage[] =>
      client.messages.filter((m) => m.id === "s1").map((m) => ({ ...m }));
    assert.deepEqual(order(onRest), order(onWs), "the same messages on both listeners");
    assert.deepEqual(
      onRest.eventsOf("s1").map((e) => e.data),
      [{ n: 1 }, { n: 2 }, { n: 3 }],
    );
    assert.deepEqual(
      onRest.messages.map((m) => m.type),
      ["event", "event", "caught_up", "event"],
    );
  } finally {
    onRest.close();
    onWs.close();
  }
});

test("auth and bounds are the WebSocket listener's: a bad token is 401, a first auth message works, an oversized message closes with 1009", async () => {
  const refused = await exchange(
    running.restPort,
    `GET /v1/subscribe HTTP/1.1\r\nHost: x\r\n${webSocketHeaders}Authorization: Bearer wrong\r\n\r\n`,
  );
  assert.match(refused, /^HTTP\/1\.1 401 /);
  assert.match(refused, /\r\nWWW-Authenticate: Bearer\r\n/i);
  assert.equal(errorCodeOf(refused), "UNAUTHENTICATED");

  const client = await TestClient.open(running.restPort);
  try {
    client.subscribe("early", "anything", 0);
    await client.untilMessage("error", "early");
    assert.equal(client.of("error", "early")[0]!.error!.code, "UNAUTHENTICATED");
    client.send({ type: "auth", token });
    client.subscribe("s2", "nothing-here", "end");
    await client.untilMessage("caught_up", "s2");
    client.send({ type: "subscribe", id: "x".repeat(limits.wsMessageBytesMax), stream: "s" });
    assert.equal((await client.untilClosed()).code, 1009);
  } finally {
    client.close();
  }
});

test("a WebSocket upgrade to another path of the REST listener is 404 with the contract's error body; the routes still answer", async () => {
  await assert.rejects(TestClient.open(running.restPort, token, "/v1/health"), /404/);
  const refused = await exchange(
    running.restPort,
    `GET /v1/events HTTP/1.1\r\nHost: x\r\n${webSocketHeaders}\r\n`,
  );
  assert.match(refused, /^HTTP\/1\.1 404 /);
  assert.equal(errorCodeOf(refused), "NOT_FOUND");
  const health = await rest(running.restPort, "GET", "/v1/health", null);
  assert.equal(health.status, 200);
});

test("a plain HTTP request to /v1/subscribe on the REST listener is 426 with Upgrade: websocket, as on the WebSocket listener", async () => {
  for (const port of [running.restPort, running.wsPort!]) {
    const answer = await exchange(port, "GET /v1/subscribe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert.match(answer, /^HTTP\/1\.1 426 /, `port ${port}`);
    assert.match(answer, /\r\nupgrade: websocket\r\n/i);
    assert.equal(errorCodeOf(answer), "INVALID_ARGUMENT");
  }
});

test("an upgrade to another protocol (h2c, as curl --http2 asks) is served as the plain HTTP/1.1 request, body and pipelining included", async () => {
  const h2c =
    "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n";
  const pipelined = await exchange(
    running.restPort,
    `GET /v1/health HTTP/1.1\r\nHost: x\r\n${h2c}\r\nGET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    2,
  );
  const answers = pipelined.split(/(?=HTTP\/1\.1 )/);
  assert.equal(answers.length, 2, pipelined);
  for (const answer of answers) {
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.equal(
      (JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { status: string }).status,
      "ok",
    );
  }
  const body = JSON.stringify({ username: "admin", password: adminPassword });
  const login = await exchange(
    running.restPort,
    `POST /v1/auth/login HTTP/1.1\r\nHost: x\r\n${h2c}Content-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  assert.match(login, /^HTTP\/1\.1 200 /);
  assert.match(login, /"access_token":"/);
});

test("without SERVICE_WS_ENABLED the REST listener upgrades nothing: /v1/subscribe is a plain 404", async () => {
  const alone = await serve({});
  try {
    assert.equal(alone.wsPort, null);
    const answer = await exchange(
      alone.restPort,
      `GET /v1/subscribe HTTP/1.1\r\nHost: x\r\n${webSocketHeaders}\r\n`,
    );
    assert.match(answer, /^HTTP\/1\.1 404 /);
    assert.equal(errorCodeOf(answer), "NOT_FOUND");
    const plain = await rest(alone.restPort, "GET", "/v1/subscribe", null);
    assert.equal(plain.status, 404, "no WebSocket interface: the path is unknown");
  } finally {
    await alone.stop();
  }
});

test("stopping the service closes the REST listener's WebSocket connections with 1001", async () => {
  const own = await serve({ SERVICE_WS_ENABLED: "true" });
  try {
    const client = await TestClient.open(own.restPort, await loginToken(own.restPort));
    client.subscribe("s", "$all", "end");
    await client.untilMessage("caught_up", "s");
    await own.stop();
    assert.equal((await client.untilClosed()).code, 1001);
  } finally {
    await own.stop();
  }
});

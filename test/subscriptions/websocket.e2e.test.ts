// The WebSocket interface over real sockets: protocol, auth, tenancy, exact delivery, slow and
// dead clients.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
import { limits } from "../../src/limits.js";
import { startHarness } from "./harness.js";
import { TestClient } from "./ws-client.js";

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

test("a client authenticated by header gets history, caught_up, then live events with data embedded as JSON", async () => {
  const h = await startHarness();
  try {
    await h.append("acme", "orders-1", 3, (i) => `{"n":${i},  "spaced":  true}`);
    const client = await TestClient.open(h.port, h.token());
    client.subscribe("s1", "orders-1", 0);
    await client.untilMessage("caught_up", "s1");
    await h.append("acme", "orders-1", 2);
    await client.untilEvents("s1", 5);
    assert.deepEqual(
      client.eventsOf("s1").map((e) => e.revision),
      range(0, 5),
    );
    const types = client.messages.map((m) => m.type);
    assert.deepEqual(types, ["event", "event", "event", "caught_up", "event", "event"]);
    const first = client.eventsOf("s1")[0]!;
    assert.deepEqual(first.data, { n: 0, spaced: true });
    assert.deepEqual(first.metadata, {});
    assert.equal(first.stream_id, "orders-1");
    assert.match(first.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(
      client.raw[0]!.includes(`"data":{"n":0,  "spaced":  true}`),
      "the stored JSON text is spliced as is",
    );
    client.close();
  } finally {
    await h.close();
  }
});

test("a client may authenticate with a first auth message and subscribe right after it", async () => {
  const h = await startHarness();
  try {
    await h.append("acme", "s", 2);
    const client = await TestClient.open(h.port);
    client.send({ type: "auth", token: h.token() });
    client.subscribe("a", "s", 0);
    await client.untilMessage("caught_up", "a");
    assert.deepEqual(
      client.eventsOf("a").map((e) => e.revision),
      [0, 1],
    );
    client.close();
  } finally {
    await h.close();
  }
});

test("subscribing before authenticating is UNAUTHENTICATED, and a bad auth message closes with 4401", async () => {
  const h = await startHarness();
  try {
    const client = await TestClient.open(h.port);
    client.subscribe("s1", "s", 0);
    await client.untilMessage("error", "s1");
    assert.equal(client.of("error", "s1")[0]!.error!.code, "UNAUTHENTICATED");
    client.send({ type: "auth", token: "not-a-token" });
    const closed = await client.untilClosed();
    assert.equal(closed.code, 4401);
    assert.equal(client.messages.at(-1)!.error!.code, "UNAUTHENTICATED");
  } finally {
    await h.close();
  }
});

test("a bad token on the upgrade is refused with 401 and the contract's error body", async () => {
  const h = await startHarness();
  try {
    const answer = await new Promise<{ status: number; body: string; challenge: string | undefined }>(
      (resolve, reject) => {
        const req = request({
          host: "127.0.0.1",
          port: h.port,
          path: "/v1/subscribe",
          headers: {
            Connection: "Upgrade",
            Upgrade: "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            Authorization: "Bearer wrong",
          },
        });
        req.on("response", (response) => {
          let body = "";
          response.on("data", (chunk: Buffer) => (body += chunk.toString()));
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              body,
              challenge: response.headers["www-authenticate"],
            }),
          );
        });
        req.on("error", reject);
        req.end();
      },
    );
    assert.equal(answer.status, 401);
    assert.equal(answer.challenge, "Bearer");
    assert.equal((JSON.parse(answer.body) as { error: { code: string } }).error.code, "UNAUTHENTICATED");
  } finally {
    await h.close();
  }
});

test("a connection that never authenticates is closed with 4401 after the auth timeout", async () => {
  const h = await startHarness({ authTimeoutMs: 150 });
  try {
    const client = await TestClient.open(h.port);
    const closed = await client.untilClosed();
    assert.equal(closed.code, 4401);
  } finally {
    await h.close();
  }
});

test("bad messages get an error in the contract's code set and the connection keeps working", async () => {
  const h = await startHarness();
  try {
    const client = await TestClient.open(h.port, h.token());
    client.send("{not json");
    client.send("[1,2]");
    client.send({ type: "dance", id: "x1" });
    client.send({ type: "subscribe", id: "x2" });
    client.send({ type: "subscribe", id: "x3", stream: "s", from: -1 });
    client.send({ type: "subscribe", id: "x4", stream: "s", from: "start" });
    client.send({ type: "subscribe", id: "x5", stream: "$other", from: 0 });
    client.send({ type: "subscribe", id: 7, stream: "s", from: 0 });
    client.send({ type: "unsubscribe", id: "never" });
    client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    client.subscribe("ok", "s", 0);
    client.subscribe("ok", "s", 0);
    await client.untilMessage("caught_up", "ok");
    await client.until(() => client.of("error").length >= 11, "eleven errors");
    const errors = client.of("error").map((m) => `${m.id ?? "-"}:${m.error!.code}`);
    assert.deepEqual(errors, [
      "-:INVALID_JSON",
      "-:INVALID_ARGUMENT",
      "x1:INVALID_ARGUMENT",
      "x2:INVALID_ARGUMENT",
      "x3:INVALID_ARGUMENT",
      "x4:INVALID_ARGUMENT",
      "x5:INVALID_ARGUMENT",
      "-:INVALID_ARGUMENT",
      "never:INVALID_ARGUMENT",
      "-:INVALID_ARGUMENT",
      "ok:INVALID_ARGUMENT",
    ]);
    assert.equal(client.closed, null);
    client.close();
  } finally {
    await h.close();
  }
});

test("after unsubscribed, no more events arrive for that subscription", async () => {
  const h = await startHarness();
  try {
    const client = await TestClient.open(h.port, h.token());
    client.subscribe("s1", "s", 0);
    client.subscribe("s2", "s", 0);
    await h.append("acme", "s", 2);
    await client.untilEvents("s1", 2);
    client.send({ type: "unsubscribe", id: "s1" });
    await client.untilMessage("unsubscribed", "s1");
    await h.append("acme", "s", 2);
    await client.untilEvents("s2", 4);
    assert.equal(client.eventsOf("s1").length, 2);
    const last = client.messages.findIndex((m) => m.type === "unsubscribed");
    assert.ok(client.messages.slice(last).every((m) => m.id !== "s1" || m.type === "unsubscribed"));
    client.close();
  } finally {
    await h.close();
  }
});

test("$all is the caller's tenant only, and another tenant's stream looks like one that does not exist", async () => {
  const h = await startHarness();
  try {
    await h.append("globex", "secret", 3);
    const acme = await TestClient.open(h.port, h.token({ tenant: "acme" }));
    acme.subscribe("all", "$all", 0);
    acme.subscribe("peek", "secret", 0);
    acme.subscribe("nothing", "never-made", 0);
    acme.subscribe("other", "s", 0, { tenant: "globex" });
    await acme.untilMessage("caught_up", "all");
    await acme.untilMessage("caught_up", "peek");
    await acme.untilMessage("caught_up", "nothing");
    await acme.untilMessage("error", "other");
    assert.equal(acme.of("error", "other")[0]!.error!.code, "PERMISSION_DENIED");
    await h.append("globex", "secret", 1);
    await h.append("acme", "a", 1);
    await h.append("acme", "b", 2);
    await acme.untilEvents("all", 3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(
      acme.eventsOf("all").map((e) => `${e.stream_id}@${e.revision}`),
      ["a@0", "b@0", "b@1"],
    );
    assert.equal(acme.eventsOf("peek").length, 0);
    const admin = await TestClient.open(
      h.port,
      h.token({ username: "root", tenant: "default", role: "admin" }),
    );
    admin.subscribe("g", "secret", 0, { tenant: "globex" });
    await admin.untilMessage("caught_up", "g");
    assert.equal(admin.eventsOf("g").length, 4);
    acme.close();
    admin.close();
  } finally {
    await h.close();
  }
});

test("an expired token ends its subscriptions with UNAUTHENTICATED and closes with 4401", async () => {
  const h = await startHarness();
  try {
    const client = await TestClient.open(h.port, h.token({ ttlMs: 400 }));
    client.subscribe("s1", "s", 0);
    client.subscribe("s2", "$all", 0);
    await client.untilMessage("caught_up", "s2");
    const closed = await client.untilClosed();
    assert.equal(closed.code, 4401);
    assert.equal(client.of("error", "s1")[0]!.error!.code, "UNAUTHENTICATED");
    assert.equal(client.of("error", "s2")[0]!.error!.code, "UNAUTHENTICATED");
  } finally {
    await h.close();
  }
});

test("a fresh token for the same user sent as an auth message keeps the connection past the first expiry", async () => {
  const h = await startHarness();
  try {
    const client = await TestClient.open(h.port, h.token({ ttlMs: 300 }));
    client.subscribe("s1", "s", 0);
    client.send({ type: "auth", token: h.token({ ttlMs: 60_000 }) });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await h.append("acme", "s", 1);
    await client.untilEvents("s1", 1);
    assert.equal(client.closed, null);
    client.send({ type: "auth", token: h.token({ username: "mallory" }) });
    await client.untilMessage("error");
    assert.equal(client.of("error")[0]!.error!.code, "INVALID_ARGUMENT");
    client.close();
  } finally {
    await h.close();
  }
});

test("appends racing the catch-up reach every subscriber exactly once, in order", async () => {
  const h = await startHarness();
  try {
    await h.append("acme", "race", 250);
    const writer = (async () => {
      for (let i = 0; i < 50; i++) await h.append("acme", "race", 5);
    })();
    const clients = await Promise.all(Array.from({ length: 10 }, () => TestClient.open(h.port, h.token())));
    clients.forEach((c, i) => c.subscribe(`r${i}`, "race", 0));
    await writer;
    for (const [i, c] of clients.entries()) {
      await c.untilEvents(`r${i}`, 500);
      assert.deepEqual(
        c.eventsOf(`r${i}`).map((e) => e.revision),
        range(0, 500),
      );
      assert.equal(c.of("caught_up").length, 1);
      c.close();
    }
  } finally {
    await h.close();
  }
});

test("a thousand subscribers on one stream each receive every event in order", async () => {
  const h = await startHarness();
  try {
    await h.append("acme", "fan", 20);
    const token = h.token();
    const clients: TestClient[] = [];
    for (let i = 0; i < 1000; i += 100) {
      clients.push(...(await Promise.all(Array.from({ length: 100 }, () => TestClient.open(h.port, token)))));
    }
    for (const c of clients) c.subscribe("f", "fan", 0);
    for (let i = 0; i < 10; i++) await h.append("acme", "fan", 10);
    await Promise.all(clients.map((c) => c.untilEvents("f", 120, 30_000)));
    for (const c of clients) {
      assert.deepEqual(
        c.eventsOf("f").map((e) => e.revision),
        range(0, 120),
      );
    }
    for (const c of clients) c.close();
  } finally {
    await h.close();
  }
});

test("a client that stops reading does not hold up the others and is closed with 4008 after the stall timeout", async () => {
  const h = await startHarness({ bufferBytesMax: 64 * 1024, stallMsMax: 700 });
  try {
    const payload = `{"pad":"${"x".repeat(8000)}"}`;
    const slow = await TestClient.open(h.port, h.token());
    const fast = await TestClient.open(h.port, h.token());
    slow.subscribe("s", "big", 0);
    fast.subscribe("f", "big", 0);
    await slow.untilMessage("caught_up", "s");
    await fast.untilMessage("caught_up", "f");
    slow.socket!.pause();
    // About 24 MB: more than the kernel's socket buffers on both ends hold.
    for (let i = 0; i < 30; i++) await h.append("acme", "big", 100, () => payload);
    await fast.untilEvents("f", 3000, 30_000);
    assert.deepEqual(
      fast.eventsOf("f").map((e) => e.revision),
      range(0, 3000),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    slow.socket!.resume();
    const closed = await slow.untilClosed(30_000);
    assert.equal(closed.code, 4008);
    assert.match(closed.reason, /stalled/);
    const got = slow.eventsOf("s").map((e) => e.revision);
    assert.ok(got.length < 3000, "the stalled client was cut off before getting everything");
    assert.deepEqual(got, range(0, got.length), "what it got is in order without gaps");
    fast.close();
  } finally {
    await h.close();
  }
});

test("a peer that stops answering pings is dropped", async () => {
  const h = await startHarness({ pingIntervalMs: 100 });
  try {
    const client = await TestClient.open(h.port, h.token());
    client.socket!.pause();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const deadline = Date.now() + 5000;
    while (h.server.connectionCount > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(h.server.connectionCount, 0);
    client.close();
  } finally {
    await h.close();
  }
});

test("events removed by retention while subscribed are not delivered to a later catch-up", async () => {
  const h = await startHarness();
  try {
    await h.append("acme", "ret", 5);
    const client = await TestClient.open(h.port, h.token());
    client.subscribe("live", "ret", 0);
    await client.untilEvents("live", 5);
    await h.engine.setRetention("acme", "ret", {
      max_age_seconds: null,
      max_count: 2,
      truncate_before: null,
    });
    await h.append("acme", "ret", 1);
    await client.untilEvents("live", 6);
    client.subscribe("late", "ret", 0);
    await client.untilMessage("caught_up", "late");
    assert.deepEqual(
      client.eventsOf("late").map((e) => e.revision),
      [4, 5],
    );
    client.close();
  } finally {
    await h.close();
  }
});

test("a soft-deleted stream delivers nothing of its past, and only the events appended after the delete", async () => {
  const h = await startHarness();
  try {
    await h.append("acme", "gone", 3);
    await h.engine.deleteStream("acme", "gone");
    const client = await TestClient.open(h.port, h.token());
    client.subscribe("d", "gone", 0);
    await client.untilMessage("caught_up", "d");
    assert.equal(client.eventsOf("d").length, 0);
    await h.append("acme", "gone", 2);
    await client.untilEvents("d", 2);
    assert.deepEqual(
      client.eventsOf("d").map((e) => e.revision),
      [3, 4],
    );
    client.close();
  } finally {
    await h.close();
  }
});

test("$all from end sends only events appended after the subscription", async () => {
  const h = await startHarness();
  try {
    await h.append("acme", "before", 3);
    const client = await TestClient.open(h.port, h.token());
    client.subscribe("live", "$all", "end");
    await client.untilMessage("caught_up", "live");
    await h.append("acme", "after", 2);
    await client.untilEvents("live", 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(
      client.eventsOf("live").map((e) => `${e.stream_id}@${e.revision}`),
      ["after@0", "after@1"],
    );
    client.close();
  } finally {
    await h.close();
  }
});

test("a connection holds at most the subscription limit, and an oversized message closes it with 1009", async () => {
  const h = await startHarness();
  try {
    const client = await TestClient.open(h.port, h.token());
    for (let i = 0; i <= limits.subscriptionsPerConnectionMax; i++)
      client.subscribe(`s${i}`, `stream-${i}`, 0);
    const last = `s${limits.subscriptionsPerConnectionMax}`;
    await client.untilMessage("error", last);
    assert.equal(client.of("error", last)[0]!.error!.code, "INVALID_ARGUMENT");
    assert.equal(client.of("error").length, 1);
    client.send({ type: "subscribe", id: "x".repeat(limits.wsMessageBytesMax), stream: "s" });
    const closed = await client.untilClosed();
    assert.equal(closed.code, 1009);
  } finally {
    await h.close();
  }
});

test("a plain HTTP request and another path get the contract's error body", async () => {
  const h = await startHarness();
  try {
    const get = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        request({ host: "127.0.0.1", port: h.port, path }, (response) => {
          let body = "";
          response.on("data", (chunk: Buffer) => (body += chunk.toString()));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        })
          .on("error", reject)
          .end();
      });
    const plain = await get("/v1/subscribe");
    assert.equal(plain.status, 426);
    const other = await get("/elsewhere");
    assert.equal(other.status, 404);
    assert.equal((JSON.parse(other.body) as { error: { code: string } }).error.code, "NOT_FOUND");
    await assert.rejects(TestClient.open(h.port, h.token(), "/v1/other"), /404/);
  } finally {
    await h.close();
  }
});

test("an upgrade whose headers are too large gets 431 with the contract's error body, and malformed HTTP 400", async () => {
  const h = await startHarness();
  try {
    /** Sends raw bytes and reads until the server hangs up. */
    const exchange = (bytes: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: "127.0.0.1", port: h.port }, () => socket.end(bytes));
        let answer = "";
        socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
        socket.on("close", () => resolve(answer));
        socket.on("error", reject);
      });
    const large = await exchange(
      "GET /v1/subscribe HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
        `Authorization: Bearer ${"x".repeat(64 * 1024)}\r\n\r\n`,
    );
    const [head = "", body = ""] = large.split("\r\n\r\n");
    assert.match(head, /^HTTP\/1\.1 431 /);
    assert.match(head, /\r\ncontent-type: application\/json/i);
    const error = (JSON.parse(body) as { error: { code: string; message: string; details: object } }).error;
    assert.equal(error.code, "PAYLOAD_TOO_LARGE");
    assert.match(error.message, /headers are too large/);
    assert.deepEqual(Object.keys(error), ["code", "message", "details"]);

    const malformed = await exchange("GET /v1/subscribe HTTP/1.1\r\nHost x\r\n\r\n");
    assert.match(malformed, /^HTTP\/1\.1 400 /);
    const refusal = JSON.parse(malformed.split("\r\n\r\n")[1] ?? "") as { error: { code: string } };
    assert.equal(refusal.error.code, "INVALID_ARGUMENT");
  } finally {
    await h.close();
  }
});

test("event frames carry content_type, and bytes as data_base64 / metadata_base64", async () => {
  const h = await startHarness();
  try {
    const bytes = Buffer.from([0xff, 0x00, 0xfe, 0xed, 0xa0, 0x80]);
    const events = [
      { event_id: "0b7c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d", event_type: "Blob", data: bytes, metadata: "{}" },
      {
        event_id: "1b7c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d",
        event_type: "Json",
        data: "[1, 2]",
        metadata: Buffer.from("raw"),
      },
    ];
    await h.engine.append({ tenant_id: "acme", stream_id: "bin", events, expected_revision: "any" });
    const client = await TestClient.open(h.port, h.token());
    client.subscribe("b", "bin", 0);
    await client.untilMessage("caught_up", "b");
    const [blob, json] = client.eventsOf("b") as unknown as Record<string, unknown>[];
    assert.equal(blob!.content_type, "application/octet-stream");
    assert.equal(blob!.data_base64, bytes.toString("base64"));
    assert.equal("data" in blob!, false);
    assert.deepEqual(blob!.metadata, {});
    assert.equal(json!.content_type, "application/json");
    assert.deepEqual(json!.data, [1, 2]);
    assert.equal(json!.metadata_base64, Buffer.from("raw").toString("base64"));
    assert.equal("metadata" in json!, false);
    assert.ok(
      client.raw.some((frame) => frame.includes('"data":[1, 2]')),
      "JSON text is spliced as it is",
    );
    client.close();
  } finally {
    await h.close();
  }
});

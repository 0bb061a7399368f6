// The WebSocket interface over a real listener: before authentication nothing but an auth
// message is taken (anything else is UNAUTHENTICATED, whatever it holds), and text that is not
// valid UTF-8 (raw bytes in a frame, a lone surrogate escape in an id) is refused with
// INVALID_ARGUMENT, as on every other interface.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startHarness } from "./harness.js";
import { TestClient } from "./ws-client.js";

test("before authentication every message but auth is UNAUTHENTICATED, whatever it holds", async () => {
  const h = await startHarness();
  try {
    const client = await TestClient.open(h.port);
    // Invalid JSON, a subscribe with bad fields, an unknown type: none is parsed further.
    client.send("{not json");
    client.send({ type: "subscribe", id: "s1", stream: "$bad", from: "soon" });
    client.send({ type: "nonsense", id: "s2" });
    await client.until(() => client.of("error").length === 3, "three errors");
    assert.deepEqual(
      client.of("error").map((m) => [m.id ?? null, m.error!.code]),
      [
        [null, "UNAUTHENTICATED"],
        ["s1", "UNAUTHENTICATED"],
        ["s2", "UNAUTHENTICATED"],
      ],
    );
    // The connection still takes an auth message, and then the same subscribe is judged on its merits.
    client.send({ type: "auth", token: h.token() });
    client.send({ type: "subscribe", id: "s1", stream: "$bad", from: "soon" });
    await client.until(() => client.of("error", "s1").length === 2, "the second error");
    assert.equal(client.of("error", "s1")[1]!.error!.code, "INVALID_ARGUMENT");
    client.close();
  } finally {
    await h.close();
  }
});

test("ids holding a lone surrogate escape are INVALID_ARGUMENT and subscribe to nothing", async () => {
  const h = await startHarness();
  try {
    await h.append("acme", "sur", 1);
    const client = await TestClient.open(h.port, h.token());
    // JSON escapes, sent as written: JSON.stringify would write the same escapes.
    client.send('{"type":"subscribe","id":"a","stream":"sur\\ud800","from":0}');
    client.send('{"type":"subscribe","id":"b\\udbff","stream":"sur","from":0}');
    client.send('{"type":"subscribe","id":"c","stream":"sur","from":0,"tenant":"acme\\udc00"}');
    await client.until(() => client.of("error").length === 3, "three errors");
    for (const message of client.of("error")) {
      assert.equal(message.error!.code, "INVALID_ARGUMENT", JSON.stringify(message));
    }
    assert.equal(client.of("caught_up").length, 0, "nothing was subscribed");
    assert.equal(client.of("event").length, 0);
    client.close();
  } finally {
    await h.close();
  }
});

test("a text frame that is not UTF-8 is answered INVALID_ARGUMENT and the connection goes on", async () => {
  const h = await startHarness();
  try {
    await h.append("acme", "s", 1);
    const client = await TestClient.open(h.port, h.token());
    // A subscribe whose stream id carries a surrogate's WTF-8 bytes, then one that is raw 0xFF.
    const prefix = Buffer.from('{"type":"subscribe","id":"x","stream":"sur');
    const suffix = Buffer.from('","from":0}');
    client.ws.send(Buffer.concat([prefix, Buffer.from([0xed, 0xa0, 0x80]), suffix]), { binary: false });
    client.ws.send(Buffer.concat([prefix, Buffer.from([0xff]), suffix]), { binary: false });
    await client.until(() => client.of("error").length === 2, "two errors");
    for (const message of client.of("error")) assert.equal(message.error!.code, "INVALID_ARGUMENT");
    client.subscribe("ok", "s", 0);
    await client.untilMessage("caught_up", "ok");
    assert.equal(client.eventsOf("ok").length, 1);
    client.close();
  } finally {
    await h.close();
  }
});

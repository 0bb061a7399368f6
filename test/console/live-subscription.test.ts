import { test } from "node:test";
import assert from "node:assert/strict";
import type { EventRecord } from "../../console/src/lib/contract.js";
import {
  LiveSubscription,
  type LiveState,
  type LiveTarget,
} from "../../console/src/lib/live-subscription.js";
import { FakeSocket, ManualTimers, settle } from "./fakes.js";

function event(revision: number, position = revision + 100): EventRecord {
  return {
    stream_id: "orders-1",
    revision,
    position,
    event_id: `e-${revision}`,
    event_type: "T",
    created_at: "2024-05-01T00:00:00.000Z",
    content_type: "application/json",
    data: {},
  };
}

function start(
  target: Partial<LiveTarget> = {},
  options: {
    token?: () => string | null;
    reauthenticate?: (refused: string | null) => Promise<string | null>;
  } = {},
) {
  const timers = new ManualTimers();
  const sockets: FakeSocket[] = [];
  const events: EventRecord[] = [];
  const states: LiveState[] = [];
  let token = "token-1";
  const subscription = new LiveSubscription({
    url: "ws://127.0.0.1:8081/v1/subscribe",
    openSocket: (url, handlers) => {
      const socket = new FakeSocket(url, handlers);
      sockets.push(socket);
      return socket;
    },
    timers,
    target: { stream: "orders-1", tenant: null, from: 0, ...target },
    token: options.token ?? (() => token),
    reauthenticate: options.reauthenticate ?? (() => Promise.resolve(null)),
    onEvent: (e) => events.push(e),
    onState: (s) => states.push(s),
    retryDelaysMs: [100, 200, 400],
  });
  subscription.start();
  return {
    subscription,
    timers,
    sockets,
    events,
    states,
    setToken: (next: string) => (token = next),
    last: () => sockets[sockets.length - 1] as FakeSocket,
  };
}

test("the token goes in the first message, never in the URL; then the subscription", () => {
  const { last } = start({ tenant: "acme" });
  const socket = last();
  assert.equal(socket.url, "ws://127.0.0.1:8081/v1/subscribe");
  socket.open();
  assert.deepEqual(socket.sent, [
    { type: "auth", token: "token-1" },
    { type: "subscribe", id: "console", stream: "orders-1", from: 0, tenant: "acme" },
  ]);
});

test("events arrive in order, each once; caught_up makes it live", () => {
  const { last, events, states } = start();
  const socket = last();
  socket.open();
  socket.receive({ type: "event", id: "console", event: event(0) });
  socket.receive({ type: "event", id: "console", event: event(1) });
  socket.receive({ type: "event", id: "console", event: event(1) });
  socket.receive({ type: "event", id: "other", event: event(2) });
  socket.receive({ type: "caught_up", id: "console" });
  assert.deepEqual(
    events.map((e) => e.revision),
    [0, 1],
  );
  assert.deepEqual(states.at(-1), { kind: "live" });
});

test("a dropped connection comes back after a growing delay and goes on from the next event", () => {
  const { last, sockets, timers, states, events } = start();
  last().open();
  last().receive({ type: "event", id: "console", event: event(0) });
  last().receive({ type: "event", id: "console", event: event(1) });
  last().drop(1006);
  assert.deepEqual(states.at(-1), { kind: "retrying", delayMs: 100, closeCode: 1006, everOpened: true });
  timers.advance(99);
  assert.equal(sockets.length, 1);
  timers.advance(1);
  assert.equal(sockets.length, 2);
  last().drop(1006);
  assert.deepEqual(timers.waiting, [200]);
  timers.advance(200);
  last().open();
  assert.deepEqual(last().sent[1], { type: "subscribe", id: "console", stream: "orders-1", from: 2 });
  last().receive({ type: "event", id: "console", event: event(2) });
  // Events flow again: the next drop starts from the shortest delay.
  last().drop(1001);
  assert.deepEqual(timers.waiting, [100]);
  assert.deepEqual(
    events.map((e) => e.revision),
    [0, 1, 2],
  );
});

test("$all goes on from the position after the last event", () => {
  const { last, timers } = start({ stream: "$all", from: "end" });
  last().open();
  assert.deepEqual(last().sent[1], { type: "subscribe", id: "console", stream: "$all", from: "end" });
  last().receive({ type: "event", id: "console", event: event(7, 4321) });
  last().drop(1006);
  timers.advance(100);
  last().open();
  assert.deepEqual(last().sent[1], { type: "subscribe", id: "console", stream: "$all", from: 4322 });
});

test("a refused or expired token asks for a new one and reconnects with it at once", async () => {
  const refused: (string | null)[] = [];
  let token = "token-1";
  const { last, sockets } = start(
    {},
    {
      token: () => token,
      reauthenticate: (old) => {
        refused.push(old);
        token = "token-2";
        return Promise.resolve("token-2");
      },
    },
  );
  last().open();
  last().receive({
    type: "error",
    id: "console",
    error: { code: "UNAUTHENTICATED", message: "token expired" },
  });
  last().drop(4401);
  await settle();
  assert.deepEqual(refused, ["token-1"]);
  assert.equal(sockets.length, 2);
  last().open();
  assert.deepEqual(last().sent[0], { type: "auth", token: "token-2" });
});

test("giving up the re-login stops the tail with UNAUTHENTICATED", async () => {
  const { last, states } = start();
  last().open();
  last().drop(4401);
  await settle();
  const final = states.at(-1);
  assert.equal(final?.kind, "stopped");
  assert.equal(final?.kind === "stopped" ? final.error?.code : null, "UNAUTHENTICATED");
});

test("a refusal of the subscription itself stops it with that error", () => {
  const { last, states, timers } = start();
  last().open();
  last().receive({
    type: "error",
    id: "console",
    error: { code: "PERMISSION_DENIED", message: "role reader cannot do that" },
  });
  assert.deepEqual(states.at(-1), {
    kind: "stopped",
    error: { code: "PERMISSION_DENIED", message: "role reader cannot do that" },
  });
  assert.equal(last().closedWith, 1000);
  assert.deepEqual(timers.waiting, []);
});

test("a new token of the session reaches the open connection; another user's opens a new one", () => {
  const { last, sockets, subscription, setToken } = start();
  last().open();
  subscription.refreshToken("token-1");
  assert.equal(last().sent.length, 2);
  subscription.refreshToken("token-2");
  assert.deepEqual(last().sent[2], { type: "auth", token: "token-2" });
  setToken("token-3");
  subscription.refreshToken("token-3");
  last().receive({ type: "error", error: { code: "INVALID_ARGUMENT", message: "another user's token" } });
  assert.equal(sockets.length, 2);
  assert.equal(sockets[0]?.closedWith, 1000);
  last().open();
  assert.deepEqual(last().sent[0], { type: "auth", token: "token-3" });
});

test("stop closes the connection, cancels a pending retry, and ignores what comes after", () => {
  const { last, timers, subscription, events, states } = start();
  last().open();
  last().drop(1006);
  subscription.stop();
  assert.deepEqual(timers.waiting, []);
  assert.deepEqual(states.at(-1), { kind: "stopped", error: null });
  last().receive({ type: "event", id: "console", event: event(0) });
  assert.equal(events.length, 0);
});

test("garbage from the server is ignored", () => {
  const { last, events } = start();
  last().open();
  last().receive("just a string");
  last().receive([1, 2]);
  last().receive({ type: "event", id: "console", event: "not an event" });
  assert.equal(events.length, 0);
});

test("a connection that never opened says so when it retries", () => {
  const { last, states } = start();
  last().drop(1006);
  assert.deepEqual(states.at(-1), { kind: "retrying", delayMs: 100, closeCode: 1006, everOpened: false });
});

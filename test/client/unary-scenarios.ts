// Scenarios every gRPC client of this project must pass for unary calls, run on a client under
// test (./client-under-test.ts): against the real service, a stand-in server whose operation
// hangs, and a bare node:http2 server that misbehaves on purpose (never answers, refuses a stream,
// sends GOAWAY, drops the connection, answers too much). Run by test/client/unary-calls.e2e.test.ts
// (the product client) and test/bench/grpc-load/unary-transport.e2e.test.ts (the load client).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { createServer, type Socket } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { EssError } from "../../src/errors.js";
import { limits } from "../../src/limits.js";
import type { ReadStreamResult } from "../../src/contract/bodies.js";
import type { Operations } from "../../src/operations/contract.js";
import { Payload } from "../../src/contract/payload.js";
import { createLogger } from "../../src/logger.js";
import { startRpcServer } from "../../src/rpc/server.js";
import { encodeReadResult } from "../../src/rpc/codec/read-results.js";
import { startTestService, type TestService } from "../rpc/service-harness.js";
import { bareServer } from "../rpc/bare-http2-server.js";
import { essError, outputOfChildThatExits, type ClientUnderTest } from "./client-under-test.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const emptyPage = encodeReadResult({
  stream_id: "s",
  direction: "forward",
  events: [],
  next_revision: null,
  is_end: true,
});

/** Reads the request, then (`delayMs` later) answers an empty read page with status OK. */
export function answerEmptyPage(stream: http2.ServerHttp2Stream, delayMs = 0): void {
  stream.resume();
  stream.on("end", () => {
    const frame = Buffer.alloc(5 + emptyPage.length);
    frame.writeUInt32BE(emptyPage.length, 1);
    emptyPage.copy(frame, 5);
    const send = () => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(frame);
    };
    if (delayMs === 0) send();
    else setTimeout(send, delayMs);
  });
}

/**
 * Registers the scenarios for `tested`; `service` is the test file's running service (started in
 * its `before`).
 */
export function unaryScenarios(tested: ClientUnderTest, service: () => TestService): void {
  /** The `grpc-timeout` a call with a deadline of `deadlineMs` sent (see ClientUnderTest). */
  function assertSentTimeout(sent: string | undefined, deadlineMs: number): void {
    if (tested.sendsWholeDeadline) return assert.equal(sent, `${deadlineMs}m`);
    const ms = Number(/^(\d+)m$/.exec(sent ?? "")?.[1]);
    assert.ok(ms > 0 && ms <= deadlineMs, `grpc-timeout ${sent} for a deadline of ${deadlineMs} ms`);
  }

  test("many calls at once on one client: every append lands once, conflicts are answered as conflicts", async () => {
    const ts = service();
    const client = tested.make({ address: ts.address, deadlineMs: 20_000 });
    try {
      const appends = Array.from({ length: 300 }, (_, i) =>
        client.append(ts.admin, {
          stream_id: `many-${i % 30}`,
          event_type: "E",
          data: Payload.fromText(`{"i":${i}}`),
        }),
      );
      // 20 racers for the first event of one stream: exactly one wins.
      const racers = Array.from({ length: 20 }, () =>
        client
          .append(ts.admin, {
            stream_id: "race",
            event_type: "E",
            data: Payload.fromText("{}"),
            expected_revision: "no_stream",
          })
          .then(
            () => "won",
            (error: unknown) => (error instanceof EssError ? error.code : String(error)),
          ),
      );
      const reads = Array.from({ length: 50 }, () =>
        client.readAll(ts.admin, { from_position: 0, limit: 50 }),
      );
      await Promise.all([...appends, ...reads]);
      const outcomes = await Promise.all(racers);
      assert.equal(outcomes.filter((o) => o === "won").length, 1);
      assert.equal(outcomes.filter((o) => o === "WRONG_EXPECTED_REVISION").length, 19);
      const seen = new Set<number>();
      for (let s = 0; s < 30; s++) {
        const page = await client.read(ts.admin, { stream_id: `many-${s}`, limit: 100 });
        assert.equal(page.events.length, 10);
        for (const e of page.events) seen.add((JSON.parse(e.data as string) as { i: number }).i);
      }
      assert.equal(seen.size, 300);
    } finally {
      client.close();
    }
  });

  test("a server that stops fails calls with UNAVAILABLE; the same client works again once it is back", async () => {
    const first = await startTestService();
    const port = first.service.rpcAddress.port;
    const address = `127.0.0.1:${port}`;
    const client = tested.make({ address, deadlineMs: 20_000 });
    let second: TestService | null = null;
    try {
      await client.append(first.admin, {
        stream_id: "restart-1",
        event_type: "E",
        data: Payload.fromText('{"n":1}'),
      });
      await first.service.stop();
      const down = await essError(client.read(first.admin, { stream_id: "restart-1", limit: 10 }));
      assert.equal(down.code, "UNAVAILABLE");

      second = await startTestService({ SERVICE_DATA_DIR: first.dataDir, SERVICE_RPC_ADDRESS: address });
      // grpc-js fails calls at once until its reconnect back-off (begun before the restart) ends.
      if (!tested.reconnectsAtOnce) await sleep(2 * limits.rpcClientReconnectBackoffMsMax);
      await client.append(second.admin, {
        stream_id: "restart-1",
        event_type: "E",
        data: Payload.fromText('{"n":2}'),
      });
      const page = await client.read(second.admin, { stream_id: "restart-1", limit: 10 });
      assert.deepEqual(
        page.events.map((e) => e.data),
        ['{"n":1}', '{"n":2}'],
      );
    } finally {
      client.close();
      await second?.close();
      await first.close();
    }
  });

  test("past the deadline a call to a server whose operation hangs fails with UNAVAILABLE, and the client still works", async () => {
    let stalled = 0;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const stand = {
      authenticate: () =>
        Promise.resolve({ username: "u", tenant_id: "t", role: "admin", expires_at_ms: 9e15 }),
      append: async () => {
        stalled++;
        await released;
        return { stream_id: "s", first_revision: 0, last_revision: 0, position: 0, count: 1 };
      },
      read: (): Promise<ReadStreamResult> =>
        Promise.resolve({
          stream_id: "s",
          direction: "forward",
          events: [],
          next_revision: null,
          is_end: true,
        }),
    } as unknown as Operations;
    const server = await startRpcServer({
      operations: stand,
      address: { host: "127.0.0.1", port: 0 },
      logger: createLogger({}, 100),
    });
    const client = tested.make({ address: `127.0.0.1:${server.address.port}`, deadlineMs: 300 });
    try {
      const late = await essError(
        client.append({ token: null }, { stream_id: "s", event_type: "E", data: Payload.fromText("{}") }),
      );
      assert.equal(late.code, "UNAVAILABLE");
      assert.equal(stalled, 1);
      const page = await client.read({ token: null }, { stream_id: "s", limit: 1 });
      assert.equal(page.is_end, true);
    } finally {
      release();
      client.close();
      await server.close(1000);
    }
  });

  test("a server that never answers: the call fails at the deadline, sent as grpc-timeout, and its stream is cancelled", async () => {
    let timeout: string | undefined;
    let resolveClosed: (rstCode: number) => void = () => undefined;
    const closed = new Promise<number>((resolve) => (resolveClosed = resolve));
    const server = await bareServer((stream, headers) => {
      timeout = headers["grpc-timeout"] as string | undefined;
      stream.resume();
      stream.on("close", () => resolveClosed(stream.rstCode));
    });
    const client = tested.make({ address: server.address, deadlineMs: 250 });
    try {
      const error = await essError(client.read({ token: "t" }, { stream_id: "s", limit: 1 }));
      assert.equal(error.code, "UNAVAILABLE");
      assert.equal(await closed, http2.constants.NGHTTP2_CANCEL);
      assertSentTimeout(timeout, 250);
    } finally {
      client.close();
      await server.close();
    }
  });

  test("a deadline of days is sent in 8 digits, and one past a timer's reach does not fail the call at once", async () => {
    const timeouts: (string | undefined)[] = [];
    const server = await bareServer((stream, headers) => {
      timeouts.push(headers["grpc-timeout"] as string | undefined);
      // Answers after 100 ms: a client whose timer fired at once would have failed by then.
      answerEmptyPage(stream, 100);
    });
    const days = (n: number) => n * 86_400_000;
    try {
      for (const deadlineMs of [days(2), days(41), days(200 * 365)]) {
        const client = tested.make({ address: server.address, deadlineMs });
        try {
          const page = await client.read({ token: "t" }, { stream_id: "s", limit: 1 });
          assert.equal(page.events.length, 0);
        } finally {
          client.close();
        }
      }
      assert.deepEqual(timeouts, ["172800S", "3542400S", "1752000H"]);
    } finally {
      await server.close();
    }
  });

  test("a peer that accepts the connection and never speaks HTTP/2: the call fails at the deadline", async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    const client = tested.make({ address: `127.0.0.1:${port}`, deadlineMs: 250 });
    try {
      const error = await essError(
        client.append({ token: "t" }, { stream_id: "s", event_type: "E", data: Payload.fromText("{}") }),
      );
      assert.equal(error.code, "UNAVAILABLE");
    } finally {
      client.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test("GOAWAY: calls after it go on a new connection; a refused stream is sent again once", async () => {
    const connections: string[] = [];
    const server = await bareServer((stream, _headers, index) => {
      const session = stream.session;
      if (session === undefined) return;
      const port = String(session.socket.remotePort);
      if (!connections.includes(port)) connections.push(port);
      if (index === 0) {
        answerEmptyPage(stream);
        // After the first answer: no new streams on this connection.
        stream.on("close", () => session.goaway(http2.constants.NGHTTP2_NO_ERROR, 1));
      } else if (index === 1) {
        // Refused without being processed: the client may send it again.
        stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      } else {
        answerEmptyPage(stream);
      }
    });
    const client = tested.make({ address: server.address, deadlineMs: 5000 });
    try {
      const first = await client.read({ token: "t" }, { stream_id: "s", limit: 1 });
      assert.equal(first.is_end, true);
      // Give the GOAWAY time to arrive before the next call (it is not a timed assertion: a
      // call that raced it would be refused and sent again, and pass too).
      await new Promise((resolve) => setTimeout(resolve, 100));
      const second = await client.read({ token: "t" }, { stream_id: "s", limit: 1 });
      assert.equal(second.is_end, true);
      assert.ok(connections.length >= 2, `a new connection after GOAWAY (${connections.length})`);
    } finally {
      client.close();
      await server.close();
    }
  });

  test("a refused stream sent again carries the time left as grpc-timeout, not the whole deadline", async () => {
    const timeouts: string[] = [];
    const server = await bareServer((stream, headers, index) => {
      timeouts.push(String(headers["grpc-timeout"]));
      // The first attempt is refused (never processed) after 300 ms; the second is answered.
      if (index === 0) setTimeout(() => stream.close(http2.constants.NGHTTP2_REFUSED_STREAM), 300);
      else answerEmptyPage(stream);
    });
    const client = tested.make({ address: server.address, deadlineMs: 2000 });
    try {
      const page = await client.read({ token: "t" }, { stream_id: "s", limit: 1 });
      assert.equal(page.is_end, true);
      assert.equal(timeouts.length, 2);
      assertSentTimeout(timeouts[0], 2000);
      const left = /^(\d+)m$/.exec(timeouts[1] ?? "");
      assert.ok(left !== null, `grpc-timeout of the second attempt: ${timeouts[1]}`);
      assert.ok(Number(left[1]) > 0 && Number(left[1]) <= 1700, `time left: ${left[1]} ms`);
    } finally {
      client.close();
      await server.close();
    }
  });

  test("a connection dropped in the middle of a call: UNAVAILABLE, and the next call reconnects", async () => {
    const server = await bareServer((stream, _headers, index) => {
      if (index === 0) server.dropConnections();
      else answerEmptyPage(stream);
    });
    const client = tested.make({ address: server.address, deadlineMs: 5000 });
    try {
      const dropped = await essError(client.read({ token: "t" }, { stream_id: "s", limit: 1 }));
      assert.equal(dropped.code, "UNAVAILABLE");
      assert.equal((await client.read({ token: "t" }, { stream_id: "s", limit: 1 })).is_end, true);
    } finally {
      client.close();
      await server.close();
    }
  });

  test("a trailers-only answer and an answer without a gRPC status map as grpc-js maps them", async () => {
    const server = await bareServer((stream, _headers, index) => {
      stream.resume();
      if (index === 0) {
        stream.respond(
          {
            ":status": 200,
            "content-type": "application/grpc",
            "grpc-status": String(grpc.status.NOT_FOUND),
            "grpc-message": encodeURI("stream 'ä' not found"),
            "error-code": "STREAM_NOT_FOUND",
            "error-details-bin": Buffer.from('{"stream_id":"ä"}').toString("base64"),
          },
          { endStream: true },
        );
      } else {
        stream.respond({ ":status": 503 }, { endStream: true });
      }
    });
    const client = tested.make({ address: server.address, deadlineMs: 5000 });
    try {
      const notFound = await essError(client.read({ token: "t" }, { stream_id: "s", limit: 1 }));
      assert.deepEqual(
        { code: notFound.code, message: notFound.message, details: notFound.details },
        { code: "STREAM_NOT_FOUND", message: "stream 'ä' not found", details: { stream_id: "ä" } },
      );
      const unavailable = await essError(client.read({ token: "t" }, { stream_id: "s", limit: 1 }));
      assert.equal(unavailable.code, "UNAVAILABLE");
    } finally {
      client.close();
      await server.close();
    }
  });

  test("calls after close() fail with UNAVAILABLE; an idle client that was never closed lets the process exit", async () => {
    const ts = service();
    const client = tested.make({ address: ts.address, deadlineMs: 5000 });
    await client.readAll(ts.admin, { from_position: 0, limit: 1 });
    client.close();
    assert.equal(
      (await essError(client.readAll(ts.admin, { from_position: 0, limit: 1 }))).code,
      "UNAVAILABLE",
    );

    // A child process makes one call and never closes its client: it must still exit by itself.
    const script =
      `const { ${tested.exportName}: make } = await import(${JSON.stringify(tested.module)});` +
      `const c = make({ address: ${JSON.stringify(ts.address)}, deadlineMs: 5000 });` +
      `const r = await c.readAll({ token: ${JSON.stringify(ts.admin.token)} }, { from_position: 0, limit: 1 });` +
      `process.stdout.write(String(r.events.length));`;
    assert.equal(await outputOfChildThatExits(script), "1");
  });

  test("an answer announced past limits.rpcClientAnswerBytesMax, or longer than announced, is refused as it arrives and its stream cancelled, as grpc-js refuses it", async () => {
    const max = limits.rpcClientAnswerBytesMax;
    const closes: number[] = [];
    let closed: () => void = () => undefined;
    const server = await bareServer((stream, headers) => {
      stream.resume();
      stream.on("close", () => {
        closes.push(stream.rstCode);
        closed();
      });
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      const prefix = Buffer.alloc(5);
      // Read: a prefix announcing one byte past the limit, then a first MiB of it; ReadAll: a
      // 3-byte message, then a MiB more. Neither stream ever ends from this side.
      const huge = headers[":path"] === "/ess.v1.Streams/Read";
      prefix.writeUInt32BE(huge ? max + 1 : 3, 1);
      stream.write(prefix);
      stream.write(Buffer.alloc(huge ? 1024 * 1024 : 3 + 1024 * 1024));
    });
    // A long deadline: the calls must fail on what arrives, not wait for it.
    const client = tested.make({ address: server.address, deadlineMs: 600_000 });
    try {
      const streamClosed = new Promise<void>((resolve) => (closed = resolve));
      const tooLarge = await essError(client.read({ token: "t" }, { stream_id: "s", limit: 1 }));
      assert.equal(tooLarge.code, "PAYLOAD_TOO_LARGE");
      await streamClosed;
      const nextClosed = new Promise<void>((resolve) => (closed = resolve));
      const extra = await essError(client.readAll({ token: "t" }, { limit: 1 }));
      assert.equal(extra.code, "INTERNAL");
      await nextClosed;
      assert.deepEqual(closes, Array(2).fill(http2.constants.NGHTTP2_CANCEL));
    } finally {
      client.close();
      await server.close();
    }
  });
}

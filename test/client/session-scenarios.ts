// Scenarios every gRPC client of this project must pass for Streams.AppendSession and
// ReadSession, run on a client under test (./client-under-test.ts) against a bare node:http2
// server that misbehaves on purpose: answers cut at any byte, broken answers, a dropped
// connection, an answer past the receive limit; and what close() does to open sessions. Run by
// test/client/sessions.e2e.test.ts (the product client) and
// test/bench/grpc-load/session-transport.e2e.test.ts (the load client).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { limits } from "../../src/limits.js";
import { Payload } from "../../src/contract/payload.js";
import {
  decodeAppendSessionRequest,
  encodeAppendSessionResponse,
  type AppendSessionAnswer,
} from "../../src/rpc/session-codec.js";
import { bareServer } from "../rpc/bare-http2-server.js";
import { essError, type ClientUnderTest } from "./client-under-test.js";

export const event = (i: number) => ({ event_type: "E", data: Payload.fromText(`{"i":${i}}`) });

export function sessionScenarios(tested: ClientUnderTest): void {
  /**
   * A bare server's session handler: reads the requests as they come, and hands each batch of
   * decoded requests to `answer`, which writes what it likes (a message's several appends are
   * handed on in order, and `perMessage`, if given, gets each message's count of appends and
   * bytes). Ends with OK after the client's half-close.
   */
  function sessionServer(
    answer: (stream: http2.ServerHttp2Stream, ids: number[], streams: string[]) => void,
    perMessage?: { appends: number; bytes: number }[],
  ) {
    return (stream: http2.ServerHttp2Stream): void => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      let buffered = Buffer.alloc(0);
      stream.on("data", (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        const ids: number[] = [];
        const streams: string[] = [];
        while (buffered.length >= 5 && buffered.length >= 5 + buffered.readUInt32BE(1)) {
          const length = buffered.readUInt32BE(1);
          const request = decodeAppendSessionRequest(buffered.subarray(5, 5 + length));
          ids.push(request.correlation_id);
          streams.push(request.append?.stream_id ?? "");
          for (const entry of request.appends) {
            ids.push(entry.correlation_id);
            streams.push(entry.append?.stream_id ?? "");
          }
          perMessage?.push({ appends: 1 + request.appends.length, bytes: length });
          buffered = buffered.subarray(5 + length);
        }
        if (ids.length > 0) answer(stream, ids, streams);
      });
      stream.on("end", () => stream.end());
    };
  }

  function framed(answer: AppendSessionAnswer): Buffer {
    const message = encodeAppendSessionResponse([answer]);
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    return frame;
  }

  const resultFor = (id: number, stream: string) => ({
    correlation_id: id,
    result: { stream_id: stream, first_revision: id, last_revision: id, position: 1000 + id, count: 1 },
  });

  test("answers cut at any byte, or several in one DATA frame, are read whole; requests go in order", async () => {
    const received: number[] = [];
    const server = await bareServer(
      sessionServer((stream, ids, streams) => {
        received.push(...ids);
        // In reverse order, all of them in one buffer, written 1 to 7 bytes at a time.
        const bytes = Buffer.concat(ids.map((id, k) => framed(resultFor(id, streams[k] ?? ""))).reverse());
        for (let at = 0, step = 1; at < bytes.length; at += step, step = (step % 7) + 1)
          stream.write(bytes.subarray(at, at + step));
      }),
    );
    const client = tested.make({ address: server.address });
    try {
      const session = client.openAppendSession({ token: "t" });
      const first = await session.append({ stream_id: "one", ...event(0) });
      assert.deepEqual(first, resultFor(1, "one").result);
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) => session.append({ stream_id: `s-${i}`, ...event(i) })),
      );
      results.forEach((result, i) => assert.deepEqual(result, resultFor(i + 2, `s-${i}`).result));
      await session.close();
      assert.deepEqual(
        received,
        Array.from({ length: 301 }, (_, i) => i + 1),
        "the server read the requests in the order they were sent",
      );
    } finally {
      client.close();
      await server.close();
    }
  });

  test("appends requested together leave in one message (within the count and byte bounds); a lone one leaves at once; several answers in one message settle each", async () => {
    const perMessage: { appends: number; bytes: number }[] = [];
    const server = await bareServer(
      sessionServer((stream, ids, streams) => {
        // Every answer of what arrived in one message of several.
        const answers = ids.map((id, k) => resultFor(id, streams[k] ?? ""));
        for (let at = 0; at < answers.length; at += limits.sessionAppendsPerMessageMax) {
          const message = encodeAppendSessionResponse(
            answers.slice(at, at + limits.sessionAppendsPerMessageMax),
          );
          const frame = Buffer.alloc(5 + message.length);
          frame.writeUInt32BE(message.length, 1);
          message.copy(frame, 5);
          stream.write(frame);
        }
      }, perMessage),
    );
    const client = tested.make({ address: server.address });
    try {
      const session = client.openAppendSession({ token: "t" });
      // Alone: one message of one append, answered without waiting for another.
      assert.deepEqual(await session.append({ stream_id: "lone", ...event(0) }), resultFor(1, "lone").result);
      assert.deepEqual(
        perMessage.map((m) => m.appends),
        [1],
      );
      // 40 at once: one message.
      const forty = await Promise.all(
        Array.from({ length: 40 }, (_, i) => session.append({ stream_id: `t-${i}`, ...event(i) })),
      );
      forty.forEach((result, i) => assert.deepEqual(result, resultFor(i + 2, `t-${i}`).result));
      assert.deepEqual(
        perMessage.map((m) => m.appends),
        [1, 40],
      );
      // Past the count bound: messages of at most sessionAppendsPerMessageMax.
      perMessage.length = 0;
      const many = limits.sessionAppendsPerMessageMax + 44;
      const results = await Promise.all(
        Array.from({ length: many }, (_, i) => session.append({ stream_id: `m-${i}`, ...event(i) })),
      );
      results.forEach((result, i) => assert.deepEqual(result, resultFor(i + 42, `m-${i}`).result));
      assert.deepEqual(
        perMessage.map((m) => m.appends),
        [limits.sessionAppendsPerMessageMax, 44],
      );
      // Past the byte bound: messages of at most sessionMessageBytesMax; one larger append alone.
      perMessage.length = 0;
      const large = (i: number) => ({
        event_type: "E",
        data: Payload.fromText(`{"i":${i},"x":"${"x".repeat(300 * 1024)}"}`),
      });
      const half = () => ({
        event_type: "E",
        data: Payload.fromText(`{"x":"${"x".repeat(limits.sessionMessageBytesMax / 2)}"}`),
      });
      const huge = { events: [half(), half()] };
      await Promise.all([
        ...Array.from({ length: 7 }, (_, i) => session.append({ stream_id: `l-${i}`, ...large(i) })),
        session.append({ stream_id: "huge", ...huge }),
        session.append({ stream_id: "small", ...event(0) }),
      ]);
      assert.deepEqual(
        perMessage.map((m) => m.appends),
        [3, 3, 1, 1, 1],
      );
      for (const m of perMessage.slice(0, 2))
        assert.ok(m.bytes <= limits.sessionMessageBytesMax, `${m.bytes} bytes`);
      assert.ok(perMessage[3]!.bytes > limits.sessionMessageBytesMax, "the larger append went alone");
      await session.close();
    } finally {
      client.close();
      await server.close();
    }
  });

  test("a broken answer ends the session (INTERNAL, or PAYLOAD_TOO_LARGE past the receive limit); the appends waiting and later ones fail", async () => {
    const broken: [Buffer, string][] = [
      [Buffer.from([1, 0, 0, 0, 1, 8]), "INTERNAL"], // compressed, never negotiated
      [Buffer.from([0, 0x7f, 0xff, 0xff, 0xff]), tested.oversizedSessionAnswerCode], // a length no append answer has
      [Buffer.from([0, 0, 0, 0, 2, 0x0a, 0x05]), "INTERNAL"], // a field that runs past the message
    ];
    for (const [bytes, code] of broken) {
      let cancelled: number | undefined;
      const server = await bareServer((stream) => {
        stream.on("close", () => (cancelled = stream.rstCode));
        sessionServer((s) => s.write(bytes))(stream);
      });
      const client = tested.make({ address: server.address });
      try {
        const session = client.openAppendSession({ token: "t" });
        const waiting = [0, 1, 2].map((i) => essError(session.append({ stream_id: "b", ...event(i) })));
        for (const error of await Promise.all(waiting)) assert.equal(error.code, code, error.message);
        assert.equal((await essError(session.append({ stream_id: "b", ...event(3) }))).code, code);
        await session.close();
        for (let i = 0; i < 100 && cancelled === undefined; i++) await new Promise((r) => setTimeout(r, 10));
        assert.equal(cancelled, http2.constants.NGHTTP2_CANCEL, "the client cancelled the stream");
      } finally {
        client.close();
        await server.close();
      }
    }
  });

  test("no server, or a connection dropped mid-session: the appends fail with UNAVAILABLE", async () => {
    const gone = await bareServer(() => undefined);
    const address = gone.address;
    await gone.close();
    const nobody = tested.make({ address });
    try {
      const session = nobody.openAppendSession({ token: "t" });
      assert.equal((await essError(session.append({ stream_id: "n", ...event(0) }))).code, "UNAVAILABLE");
      await session.close();
    } finally {
      nobody.close();
    }

    const server = await bareServer(
      sessionServer((stream, ids, streams) => {
        // The first append is answered; the second one's connection is cut.
        if (ids[0] === 1) stream.write(framed(resultFor(1, streams[0] ?? "")));
        else server.dropConnections();
      }),
    );
    const client = tested.make({ address: server.address });
    try {
      const session = client.openAppendSession({ token: "t" });
      await session.append({ stream_id: "d", ...event(0) });
      const errors = await Promise.all(
        [1, 2].map((i) => essError(session.append({ stream_id: "d", ...event(i) }))),
      );
      assert.deepEqual(
        errors.map((e) => e.code),
        ["UNAVAILABLE", "UNAVAILABLE"],
      );
      await session.close();
    } finally {
      client.close();
      await server.close();
    }
  });

  test("close() ends the client's open sessions: the appends waiting fail with UNAVAILABLE", async () => {
    // A server that never answers: the appends wait until the client is closed.
    const server = await bareServer(sessionServer(() => undefined));
    const client = tested.make({ address: server.address });
    try {
      const session = client.openAppendSession({ token: "t" });
      const waiting = essError(session.append({ stream_id: "w", ...event(0) }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      client.close();
      assert.equal((await waiting).code, "UNAVAILABLE");
      await session.close();
    } finally {
      await server.close();
    }
  });

  test("a read session answer announced past limits.rpcClientAnswerBytesMax ends the session before it is buffered", async () => {
    let cancelled: (code: number) => void = () => undefined;
    const closed = new Promise<number>((resolve) => (cancelled = resolve));
    const server = await bareServer((stream) => {
      stream.resume();
      stream.on("close", () => cancelled(stream.rstCode));
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      const prefix = Buffer.alloc(5);
      prefix.writeUInt32BE(limits.rpcClientAnswerBytesMax + 1, 1);
      // The first MiB of the announced answer; the rest never comes.
      stream.write(Buffer.concat([prefix, Buffer.alloc(1024 * 1024)]));
    });
    const client = tested.make({ address: server.address });
    try {
      const session = client.openReadSession({ token: "t" });
      const error = await essError(session.read({ stream_id: "s", limit: 1 }));
      assert.equal(error.code, tested.oversizedSessionAnswerCode);
      assert.equal(await closed, http2.constants.NGHTTP2_CANCEL, "the client cancelled the stream");
      await session.close();
    } finally {
      client.close();
      await server.close();
    }
  });
}

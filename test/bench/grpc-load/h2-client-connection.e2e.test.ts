// The load generator's own HTTP/2 connection (bench/grpc-load/h2/client-connection.ts) against node:http2's
// server (nghttp2), the peer every `ess serve` is: header blocks nghttp2 Huffman-codes, indexes,
// evicts and splits into CONTINUATION frames decode as sent; a request body larger than the
// peer's flow-control windows arrives whole; the peer's stream limit makes streams wait instead
// of being refused; PING is answered.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { createHash } from "node:crypto";
import { H2ClientConnection, type StreamAbort } from "../../../bench/grpc-load/h2/client-connection.js";
import { encodeHeaderBlock, type HeaderFields } from "../../../bench/grpc-load/h2/hpack.js";

interface Answer {
  blocks: HeaderFields[];
  data: Buffer;
}

/** One request on `connection`: resolves with the answer's header blocks and data, or rejects on abort. */
function request(
  connection: H2ClientConnection,
  path: string,
  body: Buffer = Buffer.alloc(0),
): Promise<Answer> {
  const block = encodeHeaderBlock([
    [":method", "POST"],
    [":scheme", "http"],
    [":path", path],
    [":authority", "test"],
  ]);
  return new Promise((resolve, reject) => {
    const blocks: HeaderFields[] = [];
    const chunks: Buffer[] = [];
    const done = () => resolve({ blocks, data: Buffer.concat(chunks) });
    connection.open(block, body, {
      onHeaders(fields, endStream) {
        blocks.push(fields);
        if (endStream) done();
      },
      onData(chunk, endStream) {
        chunks.push(Buffer.from(chunk));
        if (endStream) done();
      },
      onAbort(reason: StreamAbort) {
        reject(new Error(`aborted: ${JSON.stringify(reason)}`));
      },
    });
  });
}

/** A client connection to 127.0.0.1:`port` with the windows the unary transport uses. */
function connect(port: number, onRetire: () => void = () => undefined): H2ClientConnection {
  return new H2ClientConnection({
    host: "127.0.0.1",
    port,
    streamWindowBytes: 1 << 20,
    connectionWindowBytes: 8 << 20,
    headerListBytesMax: 65_536,
    onRetire,
  });
}

async function withServer(
  options: http2.ServerOptions,
  onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void,
  body: (connection: H2ClientConnection, server: http2.Http2Server) => Promise<void>,
): Promise<void> {
  const server = http2.createServer(options);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => sessions.add(session));
  server.on("stream", (stream, headers) => {
    stream.on("error", () => undefined);
    onStream(stream, headers);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const connection = connect(port);
  try {
    await body(connection, server);
  } finally {
    connection.destroy("test over");
    for (const session of sessions) session.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Header values of every octet a field value may hold, most of them worth Huffman-coding. */
function awkwardHeaders(round: number): Record<string, string> {
  const headers: Record<string, string> = {};
  const octets = [0x09, ...Array.from({ length: 0x7f - 0x20 }, (_, i) => 0x20 + i)];
  for (let b = 0x80; b <= 0xff; b++) octets.push(b);
  for (const b of octets) {
    const c = String.fromCharCode(b);
    // Leading and trailing whitespace is not kept in a field value: keep it inside.
    headers[`x-h-${b}`] = `0${c}${"0".repeat(12)}${round % 3}`;
  }
  headers["x-raw"] = "\u00ff".repeat(40); // longer Huffman-coded than raw: sent raw
  return headers;
}

test("header blocks nghttp2 Huffman-codes, indexes and evicts decode as sent, answer after answer", async () => {
  let round = 0;
  await withServer(
    {},
    (stream) => {
      stream.resume();
      stream.respond({ ":status": 200, ...awkwardHeaders(round) }, { waitForTrailers: true });
      stream.on("wantTrailers", () =>
        stream.sendTrailers({ "grpc-status": "0", "grpc-message": `round ${round}` }),
      );
      stream.end("ok");
    },
    async (connection) => {
      // Five answers on one connection: the same fields again (indexed), others (evicting).
      for (round = 0; round < 5; round++) {
        const answer = await request(connection, "/headers");
        assert.equal(answer.blocks.length, 2);
        const [headers, trailers] = answer.blocks as [HeaderFields, HeaderFields];
        assert.equal(headers[":status"], "200");
        for (const [name, value] of Object.entries(awkwardHeaders(round))) {
          assert.equal(headers[name], value, `${name} in round ${round}`);
        }
        assert.deepEqual(trailers, { "grpc-status": "0", "grpc-message": `round ${round}` });
        assert.equal(answer.data.toString(), "ok");
      }
    },
  );
});

test("a header block larger than a frame arrives in CONTINUATION frames and decodes whole", async () => {
  const big = "v".repeat(40_000);
  await withServer(
    { maxSendHeaderBlockLength: 100_000 },
    (stream) => {
      stream.resume();
      stream.respond({ ":status": 200, "x-big": big, "x-after": "after" }, { endStream: true });
    },
    async (connection) => {
      const answer = await request(connection, "/big");
      assert.equal(answer.blocks[0]?.["x-big"], big);
      assert.equal(answer.blocks[0]?.["x-after"], "after");
    },
  );
});

/** `bytes` of a repeating pattern, and its SHA-256 (hex). */
function patterned(bytes: number, step: number): { body: Buffer; sha: string } {
  const body = Buffer.alloc(bytes);
  for (let i = 0; i < body.length; i++) body[i] = (i * step + 3) & 0xff;
  return { body, sha: createHash("sha256").update(body).digest("hex") };
}

/**
 * Answers an upload with what arrived: `x-bytes` and `x-sha` (SHA-256, hex) headers.
 * `received` hears the running byte count after each chunk.
 */
function answerUpload(stream: http2.ServerHttp2Stream, received?: (bytes: number) => void): void {
  const hash = createHash("sha256");
  let bytes = 0;
  stream.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    hash.update(chunk);
    received?.(bytes);
  });
  stream.on("end", () => {
    stream.respond(
      { ":status": 200, "x-bytes": String(bytes), "x-sha": hash.digest("hex") },
      { endStream: true },
    );
  });
}

test("a request body far larger than the peer's windows is sent as they open, whole and in order", async () => {
  const { body, sha: expected } = patterned(3 * 1024 * 1024 + 17, 31);
  await withServer(
    // 64 KiB windows (HTTP/2's default) and 16 KiB frames: many WINDOW_UPDATEs on the way.
    { settings: { initialWindowSize: 65_535 } },
    (stream) => answerUpload(stream),
    async (connection) => {
      const [first, second] = await Promise.all([
        request(connection, "/upload", body),
        request(connection, "/upload", body),
      ]);
      for (const answer of [first, second]) {
        assert.equal(answer.blocks[0]?.["x-bytes"], String(body.length));
        assert.equal(answer.blocks[0]?.["x-sha"], expected);
      }
    },
  );
});

test("streams past the peer's concurrent-stream limit wait their turn and are not refused", async () => {
  let open = 0;
  let most = 0;
  await withServer(
    { settings: { maxConcurrentStreams: 2 } },
    (stream) => {
      open++;
      most = Math.max(most, open);
      stream.resume();
      setTimeout(() => {
        open--;
        stream.respond({ ":status": 200 }, { endStream: true });
      }, 10);
    },
    async (connection) => {
      // The first call also waits for the server's SETTINGS with the limit in it.
      await request(connection, "/first");
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => request(connection, `/n${i}`)));
      assert.equal(answers.length, 12);
      for (const answer of answers) assert.equal(answer.blocks[0]?.[":status"], "200");
      assert.ok(most <= 2, `at most 2 streams open at once on the server, saw ${most}`);
    },
  );
});

test("the peer's PING is answered", async () => {
  await withServer(
    {},
    (stream) => {
      stream.resume();
      const session = stream.session;
      if (session === undefined) return;
      session.ping((error, duration) => {
        stream.respond(
          { ":status": 200, "x-ping": error ? `failed: ${error.message}` : `ok ${duration >= 0}` },
          { endStream: true },
        );
      });
    },
    async (connection) => {
      const answer = await request(connection, "/ping");
      assert.equal(answer.blocks[0]?.["x-ping"], "ok true");
    },
  );
});

test("a peer that sends garbage after its SETTINGS fails the calls (GOAWAY, UNAVAILABLE) and crashes nothing", async () => {
  const { createServer } = await import("node:net");
  const settings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
  let seed = 7;
  const garbage = Buffer.alloc(4096);
  for (let i = 0; i < garbage.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    garbage[i] = seed & 0xff;
  }
  const received: Buffer[] = [];
  const server = createServer((socket) => {
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", () => undefined);
    socket.write(Buffer.concat([settings, garbage]));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  let retired = false;
  const connection = connect(port, () => (retired = true));
  try {
    await assert.rejects(request(connection, "/x"), /aborted: .*"kind":"connection"/);
    assert.equal(retired, true);
    assert.equal(connection.usable, false);
    // What the client sent ends with a GOAWAY frame (type 7) carrying an error code.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const sent = Buffer.concat(received);
    const goaway = sent.subarray(sent.length - 17);
    assert.equal(goaway[3], 7, "the last frame sent is GOAWAY");
    assert.notEqual(goaway.readUInt32BE(13), 0, "with an error code");
  } finally {
    connection.destroy("test over");
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("a peer that shrinks its stream window mid-upload (SETTINGS) still gets the body whole", async () => {
  const { body, sha: expected } = patterned(2 * 1024 * 1024, 7);
  let shrunk = false;
  await withServer(
    { settings: { initialWindowSize: 1024 * 1024 } },
    (stream) =>
      answerUpload(stream, (bytes) => {
        // Once data flows, the window every stream starts with drops to 16 KiB: the client's
        // send window for this stream goes below zero and must wait for WINDOW_UPDATEs.
        if (!shrunk && bytes > 100_000) {
          shrunk = true;
          stream.session?.settings({ initialWindowSize: 16_384 });
        }
      }),
    async (connection) => {
      const answer = await request(connection, "/upload", body);
      assert.equal(shrunk, true);
      assert.equal(answer.blocks[0]?.["x-bytes"], String(body.length));
      assert.equal(answer.blocks[0]?.["x-sha"], expected);
    },
  );
});

// The fast carrier's unary calls (src/rpc/fast-carrier/unary-call.ts) on a real node:http2 server, driven by a raw
// node:http2 client: what reaches the handler, what goes on to the server's other stream
// listener, and the status of every malformed call, deadline and cancellation.
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { after, before, test } from "node:test";
import { status as grpcStatus } from "@grpc/grpc-js";
import { grpcFrame } from "../../src/rpc/grpc-frame.js";
import { dispatchStreams } from "../../src/rpc/fast-carrier/fast-carrier.js";
import { unaryFastPath, type FastUnaryCall } from "../../src/rpc/fast-carrier/unary-call.js";

const path = "/test.v1.Echo/Echo";
/** A method whose calls that arrive together run in halves down to one (burstSplitMin 2). */
const halvesPath = "/test.v1.Echo/Halves";
const receiveBytesMax = 1024;

/** What each served call did, by the request's `x-case` header. */
const served: { message: Buffer; authorization: string | undefined }[] = [];
const passedOn: string[] = [];
/** The grpc-timeout header of each stream the fallback got. */
const passedOnTimeouts: (string | undefined)[] = [];
let heldCall: FastUnaryCall | null = null;
/** Incremented once per event-loop turn while a test runs its ticker (tickTurns). */
let turn = 0;
/** The turn in which each call of halvesPath ran, by its message. */
const halvesServed: { message: string; turn: number }[] = [];

let server: http2.Http2Server;
let client: http2.ClientHttp2Session;

before(async () => {
  server = http2.createServer();
  dispatchStreams(
    server,
    unaryFastPath(
      new Map([
        [
          path,
          {
            burstSplitMin: Number.POSITIVE_INFINITY,
            handler: (call: FastUnaryCall, message: Buffer) => {
              served.push({ message: Buffer.from(message), authorization: call.authorization });
              if (message.toString() === "hold") {
                heldCall = call;
                return;
              }
              if (message.toString() === "throw") throw new Error("a bug in the handler");
              if (message.toString() === "fail") {
                call.fail({
                  code: grpcStatus.ABORTED,
                  details: "conflict: 100% sure",
                  trailers: { "error-code": "X" },
                });
                return;
              }
              call.answer(grpcFrame(Buffer.concat([Buffer.from("echo:"), message])));
            },
          },
        ],
        [
          halvesPath,
          {
            burstSplitMin: 2,
            handler: (call: FastUnaryCall, message: Buffer) => {
              halvesServed.push({ message: message.toString(), turn });
              call.answer(grpcFrame(message));
            },
          },
        ],
      ]),
      receiveBytesMax,
    ),
    // What the server does with the other streams (the hop to grpc-js, in the service): here it
    // answers 200 with a marker header.
    (stream, headers) => {
      passedOn.push(String(headers[":path"]));
      const timeout = headers["grpc-timeout"];
      passedOnTimeouts.push(typeof timeout === "string" ? timeout : undefined);
      stream.on("error", () => undefined);
      stream.respond({ ":status": 200, "x-served-by": "fallback" }, { endStream: true });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  client = http2.connect(`http://127.0.0.1:${port}`);
});

after(async () => {
  client.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Answer {
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  trailers: http2.IncomingHttpHeaders;
  closeCode: number;
}

function call(
  body: Buffer | Buffer[],
  headers: http2.OutgoingHttpHeaders = {},
  { endStream = true }: { endStream?: boolean } = {},
): { done: Promise<Answer>; stream: http2.ClientHttp2Stream } {
  const stream = client.request({
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc",
    te: "trailers",
    ...headers,
  });
  const chunks: Buffer[] = [];
  let responseHeaders: http2.IncomingHttpHeaders = {};
  let trailers: http2.IncomingHttpHeaders = {};
  const done = new Promise<Answer>((resolve) => {
    stream.on("response", (h) => (responseHeaders = h));
    stream.on("trailers", (t: http2.IncomingHttpHeaders) => (trailers = t));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => undefined);
    stream.on("close", () =>
      resolve({
        headers: responseHeaders,
        body: Buffer.concat(chunks),
        trailers,
        closeCode: stream.rstCode ?? 0,
      }),
    );
  });
  for (const part of Array.isArray(body) ? body : [body]) stream.write(part);
  if (endStream) stream.end();
  return { done, stream };
}

/** The status of an answer: from its trailers, or from its headers for a trailers-only one. */
function statusOf(answer: Answer): { code: number; message: string } {
  const source = answer.trailers["grpc-status"] !== undefined ? answer.trailers : answer.headers;
  return { code: Number(source["grpc-status"]), message: decodeURI(String(source["grpc-message"])) };
}

test("a plain gRPC call reaches the handler; the answer is grpc-js's headers, one message and status OK", async () => {
  const answer = await call(grpcFrame(Buffer.from("hi")), { authorization: "Bearer t1" }).done;
  assert.deepEqual(served.at(-1), { message: Buffer.from("hi"), authorization: "Bearer t1" });
  assert.equal(answer.headers[":status"], 200);
  assert.equal(answer.headers["content-type"], "application/grpc+proto");
  assert.equal(answer.headers["grpc-encoding"], "identity");
  assert.deepEqual(answer.body, grpcFrame(Buffer.from("echo:hi")));
  assert.equal(answer.trailers["grpc-status"], "0");
  assert.equal(answer.trailers["grpc-message"], "OK");
});

test("a message split over many DATA frames arrives whole", async () => {
  const frame = grpcFrame(Buffer.alloc(900, 7));
  const parts = [frame.subarray(0, 2), frame.subarray(2, 6), frame.subarray(6, 500), frame.subarray(500)];
  const answer = await call(parts).done;
  assert.deepEqual(served.at(-1)!.message, Buffer.alloc(900, 7));
  assert.equal(statusOf(answer).code, grpcStatus.OK);
});

test("other paths, compressed calls and non-gRPC content types go to the server's own handler", async () => {
  const before = served.length;
  const other = client.request({
    ":method": "POST",
    ":path": "/test.v1.Echo/Other",
    "content-type": "application/grpc",
  });
  const gzip = call(grpcFrame(Buffer.from("x")), { "grpc-encoding": "gzip" });
  const json = call(Buffer.from("{}"), { "content-type": "application/json" });
  other.end(grpcFrame(Buffer.from("x")));
  const [otherHeaders] = await Promise.all([
    new Promise<http2.IncomingHttpHeaders>((resolve) => other.on("response", resolve)),
    gzip.done,
    json.done,
  ]);
  assert.equal(otherHeaders["x-served-by"], "fallback");
  assert.equal((await gzip.done).headers["x-served-by"], "fallback");
  assert.equal((await json.done).headers["x-served-by"], "fallback");
  assert.deepEqual(passedOn.slice(-3).sort(), [path, path, "/test.v1.Echo/Other"].sort());
  assert.equal(served.length, before, "the handler saw none of them");
});

test("the server's own handler gets no grpc-timeout past a timer's reach, and the others as sent", async () => {
  const other = (timeout: string) => {
    const stream = client.request({
      ":method": "POST",
      ":path": "/test.v1.Echo/Other",
      "content-type": "application/grpc",
      "grpc-timeout": timeout,
    });
    stream.end(grpcFrame(Buffer.from("x")));
    return new Promise<void>((resolve) => stream.on("close", resolve));
  };
  await other("5S");
  await other("1000H");
  await other("3542400S");
  await other("99999999m");
  assert.deepEqual(passedOnTimeouts.slice(-4), ["5S", undefined, undefined, "99999999m"]);
});

test("a message over the limit is refused from its frame head, before it arrives whole", async () => {
  const before = served.length;
  const head = Buffer.from([0, 0, 0, 0x10, 0]); // 4,096 bytes announced, none sent
  const { done, stream } = call(head, {}, { endStream: false });
  const answer = await done;
  assert.deepEqual(statusOf(answer), {
    code: grpcStatus.RESOURCE_EXHAUSTED,
    message: `Received message larger than max (4096 vs ${receiveBytesMax})`,
  });
  assert.equal(stream.closed, true);
  assert.equal(served.length, before);
});

test("no message, a cut message or two messages: the status grpc-js gives; a compressed flag: INTERNAL, as the protocol asks", async () => {
  const before = served.length;
  const none = await call([]).done;
  const cut = await call(grpcFrame(Buffer.from("abc")).subarray(0, 6)).done;
  const two = await call([grpcFrame(Buffer.from("a")), grpcFrame(Buffer.from("b"))]).done;
  const flagged = grpcFrame(Buffer.from("z"));
  flagged[0] = 1;
  const compressed = await call(flagged).done;
  assert.deepEqual(statusOf(none), {
    code: grpcStatus.UNIMPLEMENTED,
    message: `Received no request message for unary method ${path}`,
  });
  assert.deepEqual(statusOf(cut), statusOf(none));
  assert.deepEqual(statusOf(two), {
    code: grpcStatus.UNIMPLEMENTED,
    message: `Received a second request message for unary method ${path}`,
  });
  assert.deepEqual(statusOf(compressed), {
    code: grpcStatus.INTERNAL,
    message: "Compressed message without negotiated compression",
  });
  assert.equal(served.length, before);
});

test("a handler that throws fails its call with UNKNOWN; the server goes on", async () => {
  const answer = await call(grpcFrame(Buffer.from("throw"))).done;
  assert.deepEqual(statusOf(answer), {
    code: grpcStatus.UNKNOWN,
    message: "the server failed to handle the call",
  });
  const next = await call(grpcFrame(Buffer.from("after"))).done;
  assert.equal(statusOf(next).code, grpcStatus.OK);
});

test("a failure is a trailers-only answer with its own trailers, the message percent-encoded", async () => {
  const answer = await call(grpcFrame(Buffer.from("fail"))).done;
  assert.equal(answer.body.length, 0);
  assert.equal(answer.headers["grpc-status"], String(grpcStatus.ABORTED));
  assert.equal(answer.headers["grpc-message"], "conflict:%20100%25%20sure");
  assert.equal(answer.headers["error-code"], "X");
  assert.equal(answer.headers["content-type"], "application/grpc+proto");
});

test("past grpc-timeout the call ends with DEADLINE_EXCEEDED, is cancelled, and a late answer is dropped", async () => {
  heldCall = null;
  const started = Date.now();
  const answer = await call(grpcFrame(Buffer.from("hold")), { "grpc-timeout": "100m" }).done;
  assert.ok(Date.now() - started >= 90, "not before the deadline");
  assert.deepEqual(statusOf(answer), { code: grpcStatus.DEADLINE_EXCEEDED, message: "Deadline exceeded" });
  const held = heldCall as FastUnaryCall | null;
  assert.ok(held !== null);
  assert.equal(held.cancelled, true);
  held.answer(grpcFrame(Buffer.from("late"))); // must neither throw nor write
  const next = await call(grpcFrame(Buffer.from("after"))).done;
  assert.equal(statusOf(next).code, grpcStatus.OK, "the connection still serves calls");
});

test("a grpc-timeout past what a timer holds is no deadline, not an immediate one", async () => {
  // 1000H is ~41.7 days: past a Node timer's ~24.8 days (a longer timer fires after 1 ms), and
  // negative once truncated to 32 bits as grpc-js does.
  heldCall = null;
  const { stream, done } = call(grpcFrame(Buffer.from("hold")), { "grpc-timeout": "1000H" });
  while (heldCall === null) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const held = heldCall as FastUnaryCall;
  assert.equal(held.cancelled, false, "still running");
  held.answer(grpcFrame(Buffer.from("late but fine")));
  const answer = await done;
  assert.equal(statusOf(answer).code, grpcStatus.OK);
  assert.deepEqual(answer.body, grpcFrame(Buffer.from("late but fine")));
  assert.equal(stream.closed, true);
});

test("a grpc-timeout grpc-js would not take is INTERNAL and the handler is not called", async () => {
  const before = served.length;
  const answer = await call(grpcFrame(Buffer.from("x")), { "grpc-timeout": "soon" }).done;
  assert.deepEqual(statusOf(answer), {
    code: grpcStatus.INTERNAL,
    message: 'Invalid grpc-timeout value "soon"',
  });
  assert.equal(served.length, before);
});

test("a call the client resets is cancelled, and answering it writes nothing", async () => {
  heldCall = null;
  const { stream, done } = call(grpcFrame(Buffer.from("hold")));
  while (heldCall === null) await new Promise((resolve) => setImmediate(resolve));
  const held = heldCall as FastUnaryCall;
  assert.equal(held.cancelled, false);
  stream.close(http2.constants.NGHTTP2_CANCEL);
  await done;
  while (!held.cancelled) await new Promise((resolve) => setImmediate(resolve));
  held.answer(grpcFrame(Buffer.from("late")));
  const next = await call(grpcFrame(Buffer.from("after"))).done;
  assert.equal(statusOf(next).code, grpcStatus.OK);
});

test("while a call is in flight, the calls after it are served, each once, in arrival order", async () => {
  heldCall = null;
  const held = call(grpcFrame(Buffer.from("hold")));
  while (heldCall === null) await new Promise((resolve) => setImmediate(resolve));
  const before = served.length;
  // Sent one after the other on one connection: each completes its request in order.
  const others = Array.from({ length: 20 }, (_, i) => call(grpcFrame(Buffer.from(`n${i}`))).done);
  const answers = await Promise.all(others);
  assert.deepEqual(
    answers.map((a) => a.body.toString("latin1", 5)),
    answers.map((_, i) => `echo:n${i}`),
  );
  assert.deepEqual(
    served.slice(before).map((s) => s.message.toString()),
    answers.map((_, i) => `n${i}`),
  );
  (heldCall as FastUnaryCall).answer(grpcFrame(Buffer.from("released")));
  const heldAnswer = await held.done;
  assert.equal(statusOf(heldAnswer).code, grpcStatus.OK);
  assert.deepEqual(heldAnswer.body, grpcFrame(Buffer.from("released")));
});

/** Counts event-loop turns (one setImmediate per turn, rescheduling itself) until stopped. */
function tickTurns(): () => void {
  let ticking = true;
  const tick = (): void => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    ticking = false;
  };
}

test("calls that arrive together on a connection run in halves, one turn apart, each once, in order", async () => {
  halvesServed.length = 0;
  const stop = tickTurns();
  try {
    // Sent in one turn: the 16 requests leave in one write and arrive together.
    const answers = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) => call(grpcFrame(Buffer.from(`h${i}`)), { ":path": halvesPath }).done,
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.body.toString("latin1", 5)),
      answers.map((_, i) => `h${i}`),
    );
  } finally {
    stop();
  }
  assert.deepEqual(
    halvesServed.map((s) => s.message),
    Array.from({ length: 16 }, (_, i) => `h${i}`),
  );
  const perTurn = new Map<number, number>();
  for (const { turn: t } of halvesServed) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
  const sizes = [...perTurn.values()];
  // Whole they would run in one turn; halved: 8, 4, 2, 1, 1 when all 16 arrive in one read.
  assert.ok(sizes.length >= 3, `16 calls ran in ${sizes.length} turn(s): ${sizes.join(", ")}`);
  assert.ok(sizes[0]! <= 8, `the first turn ran ${sizes[0]} of 16 calls`);
});

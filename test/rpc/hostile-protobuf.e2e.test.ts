// Hostile protobuf sent to a whole running service over raw HTTP/2 with gRPC framing: 100 KiB of
// nested start-groups and a mismatched end-group, on the unary Append, Read and ReadAll and on
// the append and read sessions, on the fast path (src/rpc/fast-carrier/unary-call.ts,
// session-call.ts) and on the grpc-js path (a call that says `grpc-encoding: gzip` goes to
// grpc-js; its messages may still be sent uncompressed), and on methods only grpc-js serves. Each
// is answered INVALID_ARGUMENT with the contract's error-code trailer, and the server goes on
// serving. Then random and mutated request bodies on the fast path: never INTERNAL or UNKNOWN.
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import fc from "fast-check";
import type { CallContext } from "../../src/operations/contract.js";
import { limits } from "../../src/limits.js";
import { encodeAppendRequest } from "../../src/rpc/codec/append.js";
import { grpcFrame } from "../../src/rpc/grpc-frame.js";
import { encodeAppendSessionRequest, encodeReadSessionRequest } from "../../src/rpc/session-codec.js";
import { startTestService, type TestService } from "./service-harness.js";

let ts: TestService;
let writer: CallContext;
let client: http2.ClientHttp2Session;

before(async () => {
  ts = await startTestService();
  writer = await ts.userContext("hostile-writer", "acme", "writer");
  client = http2.connect(`http://${ts.address}`);
  client.on("error", () => undefined);
});

after(async () => {
  client.close();
  await ts.close();
});

interface Status {
  code: grpc.status;
  message: string;
  errorCode: string | undefined;
}

const paths = [
  { name: "fast path", headers: {} },
  { name: "grpc-js", headers: { "grpc-encoding": "gzip" } },
] as const;

/**
 * A call on a raw HTTP/2 stream of the shared connection: bytes written as given, answer
 * messages counted, the status read from the trailers (or a trailers-only answer's headers).
 */
function rawCall(path: string, headers: http2.OutgoingHttpHeaders = {}) {
  const stream = client.request({
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc",
    te: "trailers",
    authorization: `Bearer ${writer.token ?? ""}`,
    ...headers,
  });
  let received = Buffer.alloc(0);
  let answers = 0;
  const answered: (() => void)[] = [];
  let responseHeaders: http2.IncomingHttpHeaders = {};
  let trailers: http2.IncomingHttpHeaders = {};
  stream.on("response", (h) => (responseHeaders = h));
  stream.on("trailers", (t: http2.IncomingHttpHeaders) => (trailers = t));
  stream.on("error", () => undefined);
  stream.on("end", () => stream.close());
  stream.on("data", (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    while (received.length >= 5 && received.length >= 5 + received.readUInt32BE(1)) {
      received = received.subarray(5 + received.readUInt32BE(1));
      answers++;
      for (const wake of answered.splice(0)) wake();
    }
  });
  const ended = new Promise<Status>((resolve) =>
    stream.on("close", () => {
      const source = trailers["grpc-status"] !== undefined ? trailers : responseHeaders;
      const errorCode = source["error-code"];
      resolve({
        code: Number(source["grpc-status"]) as grpc.status,
        message: decodeURI(String(source["grpc-message"])),
        errorCode: typeof errorCode === "string" ? errorCode : undefined,
      });
    }),
  );
  return {
    stream,
    ended,
    answers: () => answers,
    async next(count: number): Promise<void> {
      while (answers < count) await new Promise<void>((resolve) => answered.push(resolve));
    },
  };
}

/** A unary call with `body` as its whole request (one framed message, or any bytes). */
function unary(method: string, body: Buffer, headers: http2.OutgoingHttpHeaders = {}): Promise<Status> {
  const call = rawCall(`/ess.v1.Streams/${method}`, headers);
  call.stream.end(body);
  return call.ended;
}

const nestedGroups = Buffer.alloc(100 * 1024, 0x0b); // key 0x0b: field 1, start-group
const mismatchedEndGroup = Buffer.from([0x7b, 0x84, 0x01]); // start-group 15, end-group 16

const hostile = [
  {
    name: "100 KiB of nested start-groups",
    bytes: nestedGroups,
    message: `malformed protobuf message: groups nested deeper than ${limits.protobufGroupDepthMax}`,
  },
  {
    name: "a mismatched end-group",
    bytes: mismatchedEndGroup,
    message: "malformed protobuf message: end-group of field 16 closes the group of field 15",
  },
];

function appendMessage(streamId: string): Buffer {
  return encodeAppendRequest({ stream_id: streamId, events: [{ event_type: "E", data: "{}" }] });
}

/** The service still serves: an append and a read of it through the service's own client. */
async function stillServes(streamId: string): Promise<void> {
  const result = await ts.client.append(writer, {
    stream_id: streamId,
    events: [{ event_type: "E", data: {} }],
  });
  const page = await ts.client.read(writer, { stream_id: streamId, limit: 100 });
  assert.equal(page.events.at(-1)?.revision, result.last_revision);
}

async function eventCount(streamId: string): Promise<number> {
  try {
    return (await ts.client.getInfo(writer, { stream_id: streamId })).event_count;
  } catch {
    return 0;
  }
}

test("unary Append, Read and ReadAll refuse hostile protobuf with INVALID_ARGUMENT on both paths", async () => {
  for (const path of paths) {
    for (const { name, bytes, message } of hostile) {
      for (const method of ["Append", "Read", "ReadAll"]) {
        // The hostile bytes after a valid request's fields: nothing of it may be written.
        const valid = method === "Append" ? appendMessage("hostile-unary") : Buffer.alloc(0);
        const status = await unary(method, grpcFrame(Buffer.concat([valid, bytes])), path.headers);
        assert.deepEqual(
          status,
          { code: grpc.status.INVALID_ARGUMENT, message, errorCode: "INVALID_ARGUMENT" },
          `${path.name}, ${method}: ${name}`,
        );
      }
    }
  }
  assert.equal(await eventCount("hostile-unary"), 0, "no append was written");
  await stillServes("hostile-unary-after");
});

test("methods on the generic codec refuse hostile protobuf with INVALID_ARGUMENT", async () => {
  for (const { name, bytes, message } of hostile) {
    for (const path of [
      "/ess.v1.Streams/GetInfo",
      "/ess.v1.Streams/Subscribe",
      "/ess.v1.Admin/ListStreams",
      "/ess.v1.Auth/Login",
      "/ess.v1.Health/Check",
      "/grpc.health.v1.Health/Check",
    ]) {
      const call = rawCall(path);
      call.stream.end(grpcFrame(bytes));
      assert.deepEqual(
        await call.ended,
        { code: grpc.status.INVALID_ARGUMENT, message, errorCode: "INVALID_ARGUMENT" },
        `${path}: ${name}`,
      );
    }
  }
  await stillServes("hostile-generic-after");
});

test("a session that receives hostile protobuf answers the requests before it, then ends with INVALID_ARGUMENT", async () => {
  for (const path of paths) {
    for (const { name, bytes, message } of hostile) {
      for (const method of ["AppendSession", "ReadSession"]) {
        const streamId = `hostile-session-${method}`;
        const first =
          method === "AppendSession"
            ? encodeAppendSessionRequest({
                correlation_id: 1,
                append: { stream_id: streamId, events: [{ event_type: "E", data: "{}" }] },
              })
            : encodeReadSessionRequest({ correlation_id: 1, read: { stream_id: streamId, limit: 1 } });
        const call = rawCall(`/ess.v1.Streams/${method}`, path.headers);
        call.stream.write(grpcFrame(first));
        await call.next(1);
        // The hostile bytes as the whole request, then as an append's or read's content.
        call.stream.write(grpcFrame(bytes));
        const status = await call.ended;
        assert.deepEqual(
          status,
          { code: grpc.status.INVALID_ARGUMENT, message, errorCode: "INVALID_ARGUMENT" },
          `${path.name}, ${method}: ${name}`,
        );
        assert.equal(call.answers(), 1, `${path.name}, ${method}: the request before it answered`);
        const inner = rawCall(`/ess.v1.Streams/${method}`, path.headers);
        inner.stream.write(grpcFrame(Buffer.from([0x08, 0x02, 0x12, ...lengthOf(bytes), ...bytes])));
        assert.deepEqual(
          await inner.ended,
          { code: grpc.status.INVALID_ARGUMENT, message, errorCode: "INVALID_ARGUMENT" },
          `${path.name}, ${method}: ${name} inside the request`,
        );
      }
    }
  }
  await stillServes("hostile-session-after");
});

function lengthOf(bytes: Buffer): number[] {
  const out: number[] = [];
  let n = bytes.length;
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

// ---- fuzzing the fast path's framing and decoding over the wire ----

/** Bytes that break readers, to insert into valid requests. */
const junk = fc.oneof(
  fc.integer({ min: 1, max: 3000 }).map((n) => Buffer.alloc(n, 0x0b)),
  fc
    .constantFrom([0x0c], [0x0b, 0x14], [0x00], [0x0f], [0x80], [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])
    .map((b) => Buffer.from(b)),
  fc.uint8Array({ maxLength: 16 }).map((b) => Buffer.from(b)),
);

/** A request message: a valid one with junk inserted, a bit flipped or cut short, or random bytes. */
function hostileMessage(valid: Buffer): fc.Arbitrary<Buffer> {
  return fc.oneof(
    fc
      .tuple(fc.nat(valid.length), junk)
      .map(([at, j]) => Buffer.concat([valid.subarray(0, at), j, valid.subarray(at)])),
    fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 7 })).map(([at, bit]) => {
      const out = Buffer.from(valid);
      out[at]! ^= 1 << bit;
      return out;
    }),
    fc.nat(valid.length - 1).map((at) => valid.subarray(0, at)),
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  );
}

/** A request body: the message framed, possibly with its frame cut, doubled or followed by random bytes. */
function hostileBody(valid: Buffer): fc.Arbitrary<{ body: Buffer; whole: boolean }> {
  return fc.oneof(
    { weight: 4, arbitrary: hostileMessage(valid).map((m) => ({ body: grpcFrame(m), whole: true })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(hostileMessage(valid), fc.uint8Array({ maxLength: 12 }))
        .map(([m, tail]) => ({ body: Buffer.concat([grpcFrame(m), tail]), whole: false })),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 40 }).map((b) => ({ body: Buffer.from(b), whole: false })),
    },
  );
}

test(
  "fuzz: hostile unary request bodies on the fast path never get INTERNAL or UNKNOWN",
  { timeout: 240_000 },
  async () => {
    const valid = appendMessage("hostile-fuzz");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("Append", "Read", "ReadAll"),
        hostileBody(valid),
        async (method, { body, whole }) => {
          const status = await unary(method, body);
          assert.ok(
            status.code !== grpc.status.UNKNOWN && (status.code !== grpc.status.INTERNAL || !whole),
            `${method} ${body.subarray(0, 48).toString("hex")}: ${JSON.stringify(status)}`,
          );
          if (whole && status.code === grpc.status.INVALID_ARGUMENT)
            assert.ok(status.errorCode !== undefined);
        },
      ),
      { numRuns: 150 },
    );
    await stillServes("hostile-fuzz-after");
  },
);

test(
  "fuzz: hostile session request bodies on the fast path never get INTERNAL or UNKNOWN",
  { timeout: 240_000 },
  async () => {
    const valid = encodeAppendSessionRequest({
      correlation_id: 7,
      append: { stream_id: "hostile-fuzz-session", events: [{ event_type: "E", data: "{}" }] },
    });
    await fc.assert(
      fc.asyncProperty(hostileBody(valid), async ({ body, whole }) => {
        const call = rawCall("/ess.v1.Streams/AppendSession");
        call.stream.end(body);
        const status = await call.ended;
        assert.ok(
          status.code !== grpc.status.UNKNOWN && (status.code !== grpc.status.INTERNAL || !whole),
          `${body.subarray(0, 48).toString("hex")}: ${JSON.stringify(status)}`,
        );
      }),
      { numRuns: 100 },
    );
    await stillServes("hostile-fuzz-session-after");
  },
);

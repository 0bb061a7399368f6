// Two rules of the contract on the gRPC server, for calls on the unary fast path (uncompressed),
// on grpc-js's path (compressed) and on the generic codec (every other method):
// - the metadata token is verified before the request message is decoded or validated: without a
//   valid token a call is UNAUTHENTICATED whatever its message holds (even bytes that do not
//   decode);
// - string fields whose bytes are not UTF-8 (a surrogate's WTF-8 form ED A0 80, raw 0xFF) and
//   JSON payloads holding a lone surrogate escape are INVALID_ARGUMENT, never decoded with U+FFFD.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { proto } from "../../src/rpc/proto.js";
import type { StreamsClient } from "../../src/rpc/generated/ess/v1/Streams.js";
import type { AdminClient } from "../../src/rpc/generated/ess/v1/Admin.js";
import type { AuthClient } from "../../src/rpc/generated/ess/v1/Auth.js";
import { startTestService, type TestService } from "./service-harness.js";

let ts: TestService;
let plain: StreamsClient;
let compressed: StreamsClient;
let admin: AdminClient;
let auth: AuthClient;

before(async () => {
  ts = await startTestService();
  const insecure = grpc.credentials.createInsecure();
  plain = new proto.ess.v1.Streams(ts.address, insecure);
  // gzip (grpc-js's algorithm 2): such calls are left to grpc-js by the fast path.
  compressed = new proto.ess.v1.Streams(ts.address, insecure, { "grpc.default_compression_algorithm": 2 });
  admin = new proto.ess.v1.Admin(ts.address, insecure);
  auth = new proto.ess.v1.Auth(ts.address, insecure);
});

after(async () => {
  plain.close();
  compressed.close();
  admin.close();
  auth.close();
  await ts.close();
});

// ---- hand-written protobuf, so a test can put any bytes in a string field

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n >= 0x80) {
    bytes.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  bytes.push(n);
  return Buffer.from(bytes);
}

/** A length-delimited field (string, bytes or embedded message). */
function field(number: number, value: Buffer | string): Buffer {
  const bytes = typeof value === "string" ? Buffer.from(value) : value;
  return Buffer.concat([varint((number << 3) | 2), varint(bytes.length), bytes]);
}

const bytesOf = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));

function appendMessage(streamId: Buffer | string, eventType: Buffer | string = "E", data = "{}"): Buffer {
  return Buffer.concat([field(1, streamId), field(3, Buffer.concat([field(1, eventType), field(2, data)]))]);
}

function metadataFor(token: string | null): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (token !== null) metadata.set("authorization", `Bearer ${token}`);
  return metadata;
}

interface Outcome {
  code: number;
  errorCode: string | null;
  details: string;
}

/** One unary call with the message's bytes as given; its status and error-code trailer. */
function call(client: grpc.Client, path: string, message: Buffer, token: string | null): Promise<Outcome> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      message,
      metadataFor(token),
      (error) => {
        const code = error?.code ?? grpc.status.OK;
        const errorCode = error?.metadata.get("error-code")[0];
        resolve({
          code,
          errorCode: typeof errorCode === "string" ? errorCode : null,
          details: error?.details ?? "",
        });
      },
    );
  });
}

const unauthenticated = { code: grpc.status.UNAUTHENTICATED, errorCode: "UNAUTHENTICATED" };
const invalidArgument = { code: grpc.status.INVALID_ARGUMENT, errorCode: "INVALID_ARGUMENT" };

function codes(outcome: Outcome): { code: number; errorCode: string | null } {
  return { code: outcome.code, errorCode: outcome.errorCode };
}

test("without a valid token a call is UNAUTHENTICATED whatever its message holds, on every path", async () => {
  // Field 1 announced as 100 bytes long, with 2 present: no decoder takes it.
  const garbage = Buffer.from([0x0a, 100, 0x61, 0x62]);
  const messages = [garbage, appendMessage("$bad"), appendMessage(bytesOf("s", [0xed, 0xa0, 0x80]))];
  for (const token of [null, "not-a-token", "a b"]) {
    for (const message of messages) {
      for (const client of [plain, compressed]) {
        for (const path of ["/ess.v1.Streams/Append", "/ess.v1.Streams/Read", "/ess.v1.Streams/ReadAll"]) {
          assert.deepEqual(
            codes(await call(client, path, message, token)),
            unauthenticated,
            `${path} ${token}`,
          );
        }
      }
      for (const path of ["/ess.v1.Streams/GetInfo", "/ess.v1.Streams/Delete", "/ess.v1.Admin/CreateUser"]) {
        assert.deepEqual(codes(await call(plain, path, message, token)), unauthenticated, `${path} ${token}`);
      }
    }
  }
  // Subscribe (server streaming) too: a bad request with a bad token is UNAUTHENTICATED.
  const status = await new Promise<grpc.ServiceError>((resolve) => {
    const stream = plain.Subscribe({ stream_id: "$bad", from: "soon" }, metadataFor("not-a-token"));
    stream.on("error", resolve);
    stream.on("data", () => undefined);
  });
  assert.equal(status.code, grpc.status.UNAUTHENTICATED);
  // A public method needs no token.
  const login = Buffer.concat([field(1, "admin"), field(2, "admin-password-1")]);
  assert.equal((await call(auth, "/ess.v1.Auth/Login", login, null)).code, grpc.status.OK);
});

test("a malformed authorization header gets the message every interface gives", async () => {
  const outcome = await call(plain, "/ess.v1.Streams/ReadAll", Buffer.alloc(0), "a b");
  assert.equal(outcome.details, "the Authorization header must be 'Bearer <token>'");
});

test("Auth.WhoAmI names the token's caller, and refuses a bad token", async () => {
  const me = await new Promise<unknown>((resolve, reject) =>
    auth.WhoAmI({}, metadataFor(ts.admin.token), (error, value) => (error ? reject(error) : resolve(value))),
  );
  assert.deepEqual(
    { ...(me as object), expires_at_ms: typeof (me as { expires_at_ms: unknown }).expires_at_ms },
    {
      username: "admin",
      tenant_id: "default",
      role: "admin",
      expires_at_ms: "number",
    },
  );
  assert.deepEqual(
    codes(await call(auth, "/ess.v1.Auth/WhoAmI", Buffer.alloc(0), "not-a-token")),
    unauthenticated,
  );
  assert.equal((await ts.client.authenticate(ts.admin)).username, "admin");
});

test("stream ids whose bytes are not UTF-8 are INVALID_ARGUMENT on both paths and never share a stream", async () => {
  const token = ts.admin.token;
  const ids = [
    bytesOf("sur", [0xed, 0xa0, 0x80]),
    bytesOf("sur", [0xed, 0xaf, 0xbf]),
    bytesOf("sur", [0xff]),
  ];
  for (const id of ids) {
    for (const client of [plain, compressed]) {
      for (const [path, message] of [
        ["/ess.v1.Streams/Append", appendMessage(id)],
        ["/ess.v1.Streams/Read", field(1, id)],
        ["/ess.v1.Streams/GetInfo", field(1, id)],
        ["/ess.v1.Streams/SetRetention", field(1, id)],
      ] as const) {
        const outcome = await call(client, path, message, token);
        assert.deepEqual(codes(outcome), invalidArgument, `${path}: ${outcome.details}`);
        assert.match(outcome.details, /stream_id is not valid UTF-8/);
      }
    }
  }
  const list = await ts.client.list(ts.admin, { prefix: "sur" });
  assert.deepEqual(list.streams, [], "no stream was written");
});

test("event types, tenants and user fields whose bytes are not UTF-8 are INVALID_ARGUMENT", async () => {
  const token = ts.admin.token;
  const cases: [string, Buffer][] = [
    ["/ess.v1.Streams/Append", appendMessage("utf8-t", bytesOf("E", [0xed, 0xa0, 0x80]))],
    ["/ess.v1.Streams/Append", Buffer.concat([appendMessage("utf8-t"), field(2, bytesOf("t", [0xff]))])],
    ["/ess.v1.Streams/ReadAll", field(1, bytesOf("t", [0xc3]))],
    [
      "/ess.v1.Admin/CreateUser",
      Buffer.concat([
        field(1, "u1"),
        field(2, bytesOf("password", [0xff])),
        field(3, "acme"),
        field(4, "reader"),
      ]),
    ],
    [
      "/ess.v1.Admin/CreateUser",
      Buffer.concat([
        field(1, "u1"),
        field(2, "password-1"),
        field(3, bytesOf("acme", [0xed, 0xa0, 0x80])),
        field(4, "reader"),
      ]),
    ],
    ["/ess.v1.Auth/Login", Buffer.concat([field(1, "admin"), field(2, bytesOf("admin-password-1", [0xff]))])],
  ];
  for (const [path, message] of cases) {
    const client = path.startsWith("/ess.v1.Admin") ? admin : path.startsWith("/ess.v1.Auth") ? auth : plain;
    const outcome = await call(client, path, message, path.endsWith("Login") ? null : token);
    assert.deepEqual(codes(outcome), invalidArgument, `${path}: ${outcome.details}`);
  }
  assert.equal(
    (await ts.client.listUsers(ts.admin, {})).users.some((u) => u.username === "u1"),
    false,
  );
  const read = await ts.client.read(ts.admin, { stream_id: "utf8-t" }).catch((error: unknown) => error);
  assert.equal((read as { code?: string }).code, "STREAM_NOT_FOUND", "nothing was stored");
});

test("event data with raw non-UTF-8 bytes or a lone surrogate escape is INVALID_ARGUMENT", async () => {
  const token = ts.admin.token;
  for (const data of ['{"s": "\\ud800"}', '{"\\udc00": 1}', '{"a": [{"b": "x\\udbff"}]}']) {
    for (const client of [plain, compressed]) {
      const outcome = await call(client, "/ess.v1.Streams/Append", appendMessage("utf8-d", "E", data), token);
      assert.deepEqual(codes(outcome), invalidArgument, `${data}: ${outcome.details}`);
    }
  }
  const raw = Buffer.concat([
    field(1, "utf8-d"),
    field(3, Buffer.concat([field(1, "E"), field(2, bytesOf('{"s": "', [0xed, 0xa0, 0x80], '"}'))])),
  ]);
  assert.deepEqual(codes(await call(plain, "/ess.v1.Streams/Append", raw, token)), invalidArgument);
  const read = await ts.client.read(ts.admin, { stream_id: "utf8-d" }).catch((error: unknown) => error);
  assert.equal((read as { code?: string }).code, "STREAM_NOT_FOUND", "nothing was stored");
  // An escaped surrogate pair is valid JSON text of a valid string: stored byte for byte.
  const pair = '{"s": "\\ud83d\\ude00"}';
  assert.equal(
    (await call(plain, "/ess.v1.Streams/Append", appendMessage("utf8-ok", "E", pair), token)).code,
    0,
  );
  const page = await ts.client.read(ts.admin, { stream_id: "utf8-ok" });
  assert.equal(page.events[0]?.data, pair);
});

/** An AppendSession sending `messages` (bytes as given) and half-closing: the status it ends with. */
function session(token: string | null, messages: Buffer[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const call = plain.makeBidiStreamRequest(
      "/ess.v1.Streams/AppendSession",
      (b: Buffer) => b,
      (b: Buffer) => b,
      metadataFor(token),
    );
    call.on("data", () => undefined);
    call.on("status", (status: grpc.StatusObject) => {
      const errorCode = status.metadata.get("error-code")[0];
      resolve({
        code: status.code,
        errorCode: typeof errorCode === "string" ? errorCode : null,
        details: status.details,
      });
    });
    call.on("error", () => undefined);
    for (const message of messages) call.write(message);
    call.end();
  });
}

const sessionRequest = (append: Buffer) => Buffer.concat([Buffer.from([0x08, 0x01]), field(2, append)]);

test("an append session decodes nothing before its token is verified, and refuses text that is not UTF-8", async () => {
  const garbage = Buffer.from([0x0a, 100, 0x61, 0x62]);
  const badId = sessionRequest(appendMessage(bytesOf("sur", [0xed, 0xa0, 0x80])));
  for (const messages of [[garbage], [badId]]) {
    assert.deepEqual(codes(await session("not-a-token", messages)), unauthenticated);
  }
  const refused = await session(ts.admin.token, [badId]);
  assert.deepEqual(codes(refused), invalidArgument, refused.details);
  assert.deepEqual((await ts.client.list(ts.admin, { prefix: "sur" })).streams, []);
});

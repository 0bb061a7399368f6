// The hop (src/rpc/fast-carrier/hop.ts): the streams the fast carrier does not serve reach
// grpc-js through it and come back as grpc-js answers them: a compressed call, a trailers-only
// refusal, a server stream (health Watch), a cancellation in both senses, an unknown path, a
// request that is not gRPC, a large message both ways; and the client's address reaches the
// grpc-js carrier's handlers from the hop, never from a header the client sends.
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { EssError } from "../../src/errors.js";
import { createLogger } from "../../src/logger.js";
import type { CallContext, Operations } from "../../src/operations/contract.js";
import { grpcFrame } from "../../src/rpc/grpc-frame.js";
import { proto } from "../../src/rpc/proto.js";
import { startRpcServer, type RpcServer, type SubscribeCall } from "../../src/rpc/server.js";
import type { HealthCheckResponse__Output } from "../../src/rpc/generated/grpc-health/grpc/health/v1/HealthCheckResponse.js";
import { withRequestIdMarked } from "../helpers/request-id.js";
import { eventually } from "../helpers/eventually.js";

/** grpc-js's compression algorithm number for gzip (compression-algorithms.ts). */
const gzip = 2;
const caller = {
  username: "admin",
  tenant_id: "default",
  role: "admin" as const,
  expires_at_ms: Date.now() + 3_600_000,
};

/** What the operations saw: the context of each login, the page size of each ListStreams. */
const logins: CallContext[] = [];
const listedLimits: unknown[] = [];
/** Subscribe calls the server took, and which of them ended. */
const subscribed: SubscribeCall[] = [];
const subscribeEnded: SubscribeCall[] = [];

const operations = {
  authenticate: (ctx: CallContext) =>
    ctx.token === "good"
      ? Promise.resolve(caller)
      : Promise.reject(new EssError("UNAUTHENTICATED", "bad token")),
  login: (ctx: CallContext) => {
    logins.push(ctx);
    return Promise.resolve({
      access_token: "good",
      token_type: "Bearer" as const,
      expires_in: 60,
      tenant_id: "default",
      role: "admin" as const,
    });
  },
  check: () =>
    Promise.resolve({
      status: "ok" as const,
      version: "test",
      uptime_seconds: 1,
      storage: { engine: "log" as const, writable: true },
    }),
  listStreams: (_ctx: CallContext, request: { prefix?: unknown; limit?: unknown }) => {
    listedLimits.push(request.limit);
    // Echoes the prefix back as many stream ids, so an answer is as large as the request asks.
    const prefix = typeof request.prefix === "string" ? request.prefix : "";
    return Promise.resolve({
      streams: Array.from({ length: 4 }, (_, i) => ({
        stream_id: `${prefix}${i}`,
        tenant_id: "default",
        event_count: i,
        last_revision: i,
        bytes: 10 * i,
        updated_at: "2026-11-27T00:00:00.000Z",
        deleted: false,
      })),
      next_cursor: null,
    });
  },
} as Partial<Operations> as Operations;

const servers: { name: string; fastCarrier: boolean; rpc?: RpcServer; address?: string }[] = [
  { name: "fast carrier and hop", fastCarrier: true },
  { name: "grpc-js alone", fastCarrier: false },
];

before(async () => {
  for (const server of servers) {
    server.rpc = await startRpcServer({
      operations,
      address: { host: "127.0.0.1", port: 0 },
      logger: createLogger({}, 100),
      fastCarrier: server.fastCarrier,
      subscribe: (call) => {
        subscribed.push(call);
        call.onEnd(() => subscribeEnded.push(call));
      },
    });
    server.address = `127.0.0.1:${server.rpc.address.port}`;
  }
});

after(async () => {
  for (const server of servers) await server.rpc?.close(1000);
});

function metadataFor(token: string | null, extra: Record<string, string> = {}): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (token !== null) metadata.set("authorization", `Bearer ${token}`);
  for (const [key, value] of Object.entries(extra)) metadata.set(key, value);
  return metadata;
}

function adminClient(address: string, compressed = false) {
  return new proto.ess.v1.Admin(
    address,
    grpc.credentials.createInsecure(),
    compressed ? { "grpc.default_compression_algorithm": gzip } : {},
  );
}

test("a compressed call and a plain one through the hop answer what grpc-js alone answers", async () => {
  const answers: unknown[] = [];
  for (const server of servers) {
    for (const compressed of [false, true]) {
      const client = adminClient(server.address!, compressed);
      const answer = await new Promise((resolve, reject) =>
        client.ListStreams({ prefix: "é-", limit: 7 }, metadataFor("good"), (error, value) =>
          error ? reject(error) : resolve(value),
        ),
      );
      client.close();
      answers.push(answer);
    }
  }
  assert.equal(answers.length, 4);
  for (const answer of answers.slice(1)) assert.deepEqual(answer, answers[0]);
  assert.deepEqual(
    (answers[0] as { streams: { stream_id: string }[] }).streams.map((s) => s.stream_id),
    ["é-0", "é-1", "é-2", "é-3"],
  );
});

test("a message of 7 MiB each way crosses the hop whole", async () => {
  const prefix = "p".repeat(7 * 1024 * 1024);
  const server = servers[0]!;
  const client = new proto.ess.v1.Admin(server.address!, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": -1,
  });
  const answer = await new Promise<{ streams: { stream_id: string }[] }>((resolve, reject) =>
    client.ListStreams({ prefix, limit: 1 }, metadataFor("good"), (error, value) =>
      error ? reject(error) : resolve(value as { streams: { stream_id: string }[] }),
    ),
  );
  client.close();
  assert.equal(answer.streams.length, 4);
  assert.equal(answer.streams[3]!.stream_id, `${prefix}3`);
});

test("150 compressed calls at once on one connection all answer through the hop", async () => {
  const client = adminClient(servers[0]!.address!, true);
  const answers = await Promise.all(
    Array.from(
      { length: 150 },
      (_, i) =>
        new Promise<{ streams: { stream_id: string }[] }>((resolve, reject) =>
          client.ListStreams({ prefix: `c${i}-`, limit: 1 }, metadataFor("good"), (error, value) =>
            error ? reject(error) : resolve(value as { streams: { stream_id: string }[] }),
          ),
        ),
    ),
  );
  client.close();
  answers.forEach((answer, i) => assert.equal(answer.streams[0]!.stream_id, `c${i}-0`));
});

/** A raw HTTP/2 call: the answer's headers (and whether they ended the stream), trailers and body. */
function rawCall(address: string, path: string, headers: http2.OutgoingHttpHeaders, body: Buffer) {
  const session = http2.connect(`http://${address}`);
  session.on("error", () => undefined);
  const stream = session.request({ ":method": "POST", ":path": path, te: "trailers", ...headers });
  stream.on("error", () => undefined);
  const chunks: Buffer[] = [];
  let response: { headers: http2.IncomingHttpHeaders; endStream: boolean } | null = null;
  let trailers: http2.IncomingHttpHeaders | null = null;
  stream.on("response", (h, flags) => {
    response = { headers: h, endStream: (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0 };
  });
  stream.on("trailers", (t: http2.IncomingHttpHeaders) => (trailers = t));
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<{
    response: { headers: http2.IncomingHttpHeaders; endStream: boolean } | null;
    trailers: http2.IncomingHttpHeaders | null;
    body: Buffer;
    rstCode: number | undefined;
  }>((resolve) =>
    stream.on("close", () => {
      session.close();
      resolve({ response, trailers, body: Buffer.concat(chunks), rstCode: stream.rstCode });
    }),
  );
  stream.end(body);
  return done;
}

test("a refusal before any message is a trailers-only answer through the hop, as from grpc-js", async () => {
  const refusals = [];
  for (const server of servers) {
    const answer = await rawCall(
      server.address!,
      "/ess.v1.Admin/ListStreams",
      { "content-type": "application/grpc", authorization: "Bearer bad" },
      grpcFrame(Buffer.alloc(0)),
    );
    assert.ok(answer.response !== null, server.name);
    assert.equal(answer.response.endStream, true, `${server.name}: one HEADERS frame ending the stream`);
    assert.equal(answer.trailers, null);
    const { date: _date, ...headers } = answer.response.headers;
    refusals.push(withRequestIdMarked(headers));
  }
  assert.deepEqual(refusals[0], refusals[1]);
  assert.equal(refusals[0]!["grpc-status"], String(grpc.status.UNAUTHENTICATED));
  assert.equal(refusals[0]!["error-code"], "UNAUTHENTICATED");
});

test("an unknown method is UNIMPLEMENTED and a request that is not gRPC gets HTTP 415, through the hop", async () => {
  for (const server of servers) {
    const unknown = await rawCall(
      server.address!,
      "/ess.v1.Nothing/Here",
      { "content-type": "application/grpc" },
      grpcFrame(Buffer.alloc(0)),
    );
    assert.equal(unknown.response?.headers["grpc-status"], String(grpc.status.UNIMPLEMENTED), server.name);
    const notGrpc = await rawCall(
      server.address!,
      "/ess.v1.Admin/ListStreams",
      { "content-type": "text/plain" },
      Buffer.from("hello"),
    );
    assert.equal(notGrpc.response?.headers[":status"], 415, server.name);
  }
});

test("a health Watch streams through the hop, and ends when the server stops", async () => {
  const rpc = await startRpcServer({
    operations,
    address: { host: "127.0.0.1", port: 0 },
    logger: createLogger({}, 100),
  });
  const client = new proto.grpc.health.v1.Health(
    `127.0.0.1:${rpc.address.port}`,
    grpc.credentials.createInsecure(),
  );
  const call = client.Watch({ service: "" });
  const statuses: string[] = [];
  call.on("data", (message: HealthCheckResponse__Output) => statuses.push(message.status));
  const ended = new Promise<grpc.ServiceError>((resolve) => call.on("error", resolve));
  await eventually(() => statuses.length === 1, "the first status");
  assert.deepEqual(statuses, ["SERVING"]);
  await rpc.close(2000);
  const error = await ended;
  client.close();
  assert.equal(error.code, grpc.status.UNAVAILABLE);
});

test("a client that cancels a call through the hop cancels grpc-js's call", async () => {
  const server = servers[0]!;
  // A compressed Subscribe goes through the hop to grpc-js.
  const client = new proto.ess.v1.Streams(server.address!, grpc.credentials.createInsecure(), {
    "grpc.default_compression_algorithm": gzip,
  });
  const before = subscribed.length;
  const call = client.Subscribe({ stream_id: "s", from: "0" }, metadataFor("good"));
  call.on("error", () => undefined);
  await eventually(() => subscribed.length === before + 1, "the call to reach the server");
  const served = subscribed.at(-1)!;
  assert.equal(served.ctx.carrier, "grpc-js");
  assert.equal(subscribeEnded.includes(served), false);
  call.cancel();
  await eventually(() => subscribeEnded.includes(served), "the server's call to end");
  client.close();
});

test("a call that grpc-js ends with a status mid-stream reaches the client with its trailers", async () => {
  const server = servers[0]!;
  const client = new proto.ess.v1.Streams(server.address!, grpc.credentials.createInsecure(), {
    "grpc.default_compression_algorithm": gzip,
  });
  const before = subscribed.length;
  const call = client.Subscribe({ stream_id: "s", from: "0" }, metadataFor("good"));
  const messages: unknown[] = [];
  call.on("data", (message: unknown) => messages.push(message));
  const ended = new Promise<grpc.ServiceError>((resolve) => call.on("error", resolve));
  await eventually(() => subscribed.length === before + 1, "the call to reach the server");
  const served = subscribed.at(-1)!;
  served.write({ caught_up: {} }, () => undefined);
  served.end(new EssError("UNAUTHENTICATED", "the token expired", { at: 1 }));
  const error = await ended;
  client.close();
  assert.equal(messages.length, 1);
  assert.equal(error.code, grpc.status.UNAUTHENTICATED);
  assert.equal(error.details, "the token expired");
  assert.deepEqual(error.metadata.get("error-code"), ["UNAUTHENTICATED"]);
  assert.deepEqual(JSON.parse(String(error.metadata.get("error-details-bin")[0])), { at: 1 });
});

test("the client's address reaches Auth.Login from the connection, never from a header the client sends", async () => {
  for (const server of servers) {
    const client = new proto.ess.v1.Auth(server.address!, grpc.credentials.createInsecure());
    await new Promise((resolve, reject) =>
      client.Login(
        { username: "u", password: "p" },
        metadataFor(null, { "x-ess-forwarded-peer": "203.0.113.9:4000" }),
        (error, value) => (error ? reject(error) : resolve(value)),
      ),
    );
    client.close();
    const ctx = logins.at(-1)!;
    assert.equal(ctx.client_address, "127.0.0.1", server.name);
    assert.equal(ctx.carrier, "grpc-js");
  }
});

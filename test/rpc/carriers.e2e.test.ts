// Every gRPC method the server answers, through every carrier, must answer alike: the fast carrier
// (a plain client of a server with SERVICE_RPC_FAST_CARRIER on), grpc-js behind the hop (a client
// that compresses its requests, on the same server), and grpc-js alone (a second server on the
// same service with the fast carrier off). Each method's answer (results, statuses, error
// trailers) is compared across the three, and so is its refusal of a call without a token;
// server reflection's list of services too. The methods come from the .proto files, so a method
// added without a case here fails the first test.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import { createLogger } from "../../src/logger.js";
import { SubscriptionService } from "../../src/operations/subscribe.js";
import { SubscriptionHub } from "../../src/operations/subscription/hub.js";
import { packageDefinition } from "../../src/rpc/proto.js";
import { startRpcServer, type RpcServer } from "../../src/rpc/server.js";
import { createSubscribeHandler } from "../../src/rpc/subscribe-handler.js";
import { adminPassword, startTestService, type TestService } from "./service-harness.js";
import { withRequestIdMarked } from "../helpers/request-id.js";

/** grpc-js's compression algorithm number for gzip (compression-algorithms.ts). */
const gzip = 2;
const services = ["ess.v1.Streams", "ess.v1.Admin", "ess.v1.Auth", "ess.v1.Health", "grpc.health.v1.Health"];

let ts: TestService;
let hub: SubscriptionHub;
let grpcOnly: RpcServer;
let carriers: { name: string; client: grpc.Client }[];
let token: string;

const eventId = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b";
const appendRequest = {
  stream_id: "carriers-appended",
  events: [{ event_type: "Appended", data: Buffer.from('{"n":1,"text":"ünï"}'), event_id: eventId }],
};

/** A binary event (not UTF-8, a zero byte) with metadata kept as bytes, a JSON array, and empty bytes. */
const binaryAppendRequest = {
  stream_id: "carriers-binary",
  events: [
    {
      event_type: "Blob",
      data: Buffer.from([0xff, 0x00, 0xfe, 0xed, 0xa0, 0x80]),
      content_type: "application/octet-stream",
      metadata_bytes: Buffer.from([0x01, 0x80]),
      event_id: "7a2d3c4b-5e6f-4a70-8b9c-0d1e2f3a4b5c",
    },
    { event_type: "Array", data: Buffer.from('[1,"two"]'), metadata: Buffer.from('"m"') },
    {
      event_type: "Empty",
      data: Buffer.alloc(0),
      content_type: "application/octet-stream",
      metadata_bytes: Buffer.alloc(0),
    },
  ],
};

before(async () => {
  ts = await startTestService();
  token = ts.admin.token ?? "";
  const logger = createLogger({}, 100);
  hub = new SubscriptionHub(ts.service.engine);
  const authenticate = (ctx: Parameters<typeof ts.service.authenticator.authenticate>[0]) =>
    ts.service.authenticator.authenticate(ctx);
  grpcOnly = await startRpcServer({
    operations: ts.service.operations,
    address: { host: "127.0.0.1", port: 0 },
    logger,
    fastCarrier: false,
    subscribe: createSubscribeHandler(new SubscriptionService({ hub, authenticate }), { logger }),
    authenticate,
  });
  carriers = [
    { name: "the fast carrier", client: new grpc.Client(ts.address, grpc.credentials.createInsecure()) },
    {
      name: "grpc-js behind the hop",
      client: new grpc.Client(ts.address, grpc.credentials.createInsecure(), {
        "grpc.default_compression_algorithm": gzip,
      }),
    },
    {
      name: "grpc-js alone",
      client: new grpc.Client(`127.0.0.1:${grpcOnly.address.port}`, grpc.credentials.createInsecure()),
    },
  ];
  // What the cases read, and appends and changes that answer the same when made again.
  await ts.client.append(ts.admin, {
    stream_id: "carriers-read",
    events: Array.from({ length: 5 }, (_, i) => ({ event_type: "Read", data: { i, text: "€" } })),
  });
  await ts.client.append(ts.admin, {
    stream_id: "carriers-retained",
    events: [{ event_type: "E", data: {} }],
  });
  await ts.client.append(ts.admin, {
    stream_id: "carriers-deleted",
    events: [{ event_type: "E", data: {} }],
  });
  await ts.client.append(ts.admin, {
    stream_id: "carriers-deleted",
    events: [{ event_type: "E", data: {} }],
  });
  await call({ name: "setup", client: carriers[0]!.client }, "ess.v1.Streams", "Append", [appendRequest]);
  await call({ name: "setup", client: carriers[0]!.client }, "ess.v1.Streams", "Append", [
    binaryAppendRequest,
  ]);
  await ts.client.setRetention(ts.admin, { stream_id: "carriers-retained", max_count: 5 });
  await ts.client.delete(ts.admin, { stream_id: "carriers-deleted" });
  await ts.client.delete(ts.admin, { stream_id: "carriers-tombstoned", tombstone: true });
  await ts.client.setMetadata(ts.admin, { stream_id: "carriers-meta", metadata: { $maxCount: 3, k: ["ü"] } });
});

after(async () => {
  for (const { client } of carriers) client.close();
  hub.close();
  await grpcOnly.close(1000);
  await ts.close();
});

function definition(service: string, method: string): MethodDefinition<object, object> {
  const found = (packageDefinition[service] as Record<string, MethodDefinition<object, object>>)[method];
  assert.ok(found, `${service}/${method}`);
  return found;
}

/**
 * Fields whose values differ from one call to the next whoever carries it: time taken, counters, a
 * new token, the time of a change made again (SetRetention).
 */
const varying = new Set([
  "updated_at",
  "duration_ms",
  "uptime_seconds",
  "reads_total",
  "appends_total",
  "access_token",
  "expires_in",
  "batches",
  "fsyncs",
  "avg_batch_events",
]);

function masked(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) return value.map(masked);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [key, varying.has(key) ? "(varies)" : masked(field)]),
    );
  }
  return value;
}

type Ending = { ok: true } | { ok: false; code: number; details: string; trailers: Record<string, unknown> };

function endingOf(error: grpc.ServiceError | null): Ending {
  if (error === null) return { ok: true };
  const trailers = error.metadata.getMap();
  for (const key of ["content-type", "grpc-accept-encoding", "grpc-encoding", "date"]) delete trailers[key];
  return { ok: false, code: error.code, details: error.details, trailers: withRequestIdMarked(trailers) };
}

/**
 * One call of `service/method` through a carrier's client: `requests` is the request (one for
 * unary and server-streaming methods, the stream's requests for a session); a server stream is
 * cancelled once `take` messages came. The messages answered and how the call ended, masked.
 */
function call(
  carrier: { name: string; client: grpc.Client },
  service: string,
  method: string,
  requests: object[],
  {
    authorization = `Bearer ${token}`,
    take = Infinity,
  }: { authorization?: string | null; take?: number } = {},
): Promise<{ messages: unknown[]; ending: Ending }> {
  const { path, requestStream, responseStream, requestSerialize, responseDeserialize } = definition(
    service,
    method,
  );
  const metadata = new grpc.Metadata();
  if (authorization !== null) metadata.set("authorization", authorization);
  const options = { deadline: Date.now() + 20_000 };
  const messages: unknown[] = [];
  return new Promise((resolve) => {
    const done = (error: grpc.ServiceError | null) =>
      resolve(masked({ messages, ending: endingOf(error) }) as never);
    if (!requestStream && !responseStream) {
      carrier.client.makeUnaryRequest(
        path,
        requestSerialize,
        responseDeserialize,
        requests[0]!,
        metadata,
        options,
        (error, value) => {
          if (value !== undefined) messages.push(value);
          done(error);
        },
      );
      return;
    }
    let stream: grpc.ClientReadableStream<unknown>;
    if (requestStream) {
      const duplex = carrier.client.makeBidiStreamRequest(
        path,
        requestSerialize,
        responseDeserialize,
        metadata,
        options,
      );
      for (const request of requests) duplex.write(request);
      duplex.end();
      stream = duplex;
    } else {
      stream = carrier.client.makeServerStreamRequest(
        path,
        requestSerialize,
        responseDeserialize,
        requests[0]!,
        metadata,
        options,
      );
    }
    let cancelled = false;
    stream.on("data", (message: unknown) => {
      messages.push(message);
      if (messages.length === take) {
        cancelled = true;
        stream.cancel();
      }
    });
    stream.on("error", (error: grpc.ServiceError) => done(cancelled ? null : error));
    stream.on("status", (status: grpc.StatusObject) => {
      if (status.code === grpc.status.OK) done(null);
    });
  });
}

interface Case {
  service: string;
  method: string;
  requests: object[];
  take?: number;
  authorization?: string | null;
}

/** A call per method (some methods twice: a success and a refusal), each answering the same when made again. */
const cases: Case[] = [
  { service: "ess.v1.Streams", method: "Append", requests: [appendRequest] },
  { service: "ess.v1.Streams", method: "Read", requests: [{ stream_id: "carriers-read", limit: 10 }] },
  { service: "ess.v1.Streams", method: "Read", requests: [{ stream_id: "carriers-missing" }] },
  // Binary events: appended again (answered by idempotency), read, read in the global order.
  {
    service: "ess.v1.Streams",
    method: "Append",
    requests: [{ ...binaryAppendRequest, events: binaryAppendRequest.events.slice(0, 1) }],
  },
  { service: "ess.v1.Streams", method: "Read", requests: [{ stream_id: "carriers-binary" }] },
  { service: "ess.v1.Streams", method: "ReadAll", requests: [{ from_position: 0, limit: 100 }] },
  {
    service: "ess.v1.Streams",
    method: "Append",
    requests: [
      {
        stream_id: "carriers-binary",
        events: [{ event_type: "Bad", data: Buffer.from("x"), content_type: "text/plain" }],
      },
    ],
  },
  { service: "ess.v1.Streams", method: "ReadAll", requests: [{ from_position: 0, limit: 3 }] },
  {
    service: "ess.v1.Streams",
    method: "ReadAll",
    requests: [
      { direction: "backward", limit: 3, stream_prefix: ["carriers-", "x"], event_type_regex: "^E$" },
    ],
  },
  { service: "ess.v1.Streams", method: "ReadAll", requests: [{ stream_regex: "(a" }] },
  { service: "ess.v1.Streams", method: "GetInfo", requests: [{ stream_id: "carriers-read" }] },
  { service: "ess.v1.Streams", method: "List", requests: [{ prefix: "carriers-", limit: 10 }] },
  {
    service: "ess.v1.Streams",
    method: "SetRetention",
    requests: [{ stream_id: "carriers-retained", max_count: 5 }],
  },
  { service: "ess.v1.Streams", method: "Delete", requests: [{ stream_id: "carriers-deleted" }] },
  {
    service: "ess.v1.Streams",
    method: "Delete",
    requests: [{ stream_id: "carriers-read", expected_revision: "no_stream", tombstone: true }],
  },
  {
    service: "ess.v1.Streams",
    method: "Delete",
    requests: [{ stream_id: "carriers-tombstoned", tombstone: true }],
  },
  { service: "ess.v1.Streams", method: "Read", requests: [{ stream_id: "carriers-tombstoned" }] },
  { service: "ess.v1.Streams", method: "GetInfo", requests: [{ stream_id: "carriers-tombstoned" }] },
  { service: "ess.v1.Streams", method: "GetMetadata", requests: [{ stream_id: "carriers-meta" }] },
  { service: "ess.v1.Streams", method: "GetMetadata", requests: [{ stream_id: "carriers-tombstoned" }] },
  {
    service: "ess.v1.Streams",
    method: "SetMetadata",
    requests: [
      {
        stream_id: "carriers-meta",
        metadata: Buffer.from('{"a":1}'),
        expected_metadata_revision: "no_stream",
      },
    ],
  },
  {
    service: "ess.v1.Streams",
    method: "SetMetadata",
    requests: [{ stream_id: "carriers-meta", metadata: Buffer.from('{"$maxAge":"x"}') }],
  },
  {
    service: "ess.v1.Streams",
    method: "SetMetadata",
    requests: [{ stream_id: "carriers-meta", metadata: Buffer.from("{not json") }],
  },
  {
    service: "ess.v1.Streams",
    method: "AppendSession",
    requests: [
      { correlation_id: 7, append: appendRequest },
      { correlation_id: 8, append: { stream_id: "carriers-read", events: [{ event_type: "E" }] } },
    ],
  },
  {
    // Several appends in one message: answered one by one, several to a message once the client
    // sent such a message (the refused one at once, the two repeats of an idempotent append
    // together, after their group commit).
    service: "ess.v1.Streams",
    method: "AppendSession",
    requests: [
      {
        correlation_id: 11,
        append: appendRequest,
        appends: [
          { correlation_id: 12, append: { stream_id: "carriers-read", events: [{ event_type: "E" }] } },
          { correlation_id: 13, append: appendRequest },
        ],
      },
    ],
  },
  {
    service: "ess.v1.Streams",
    method: "ReadSession",
    requests: [
      { correlation_id: 9, read: { stream_id: "carriers-read", limit: 2 } },
      { correlation_id: 10, read: { stream_id: "carriers-missing" } },
    ],
  },
  {
    service: "ess.v1.Streams",
    method: "Subscribe",
    requests: [{ stream_id: "carriers-read", from: "0" }],
    take: 6,
  },
  {
    service: "ess.v1.Streams",
    method: "Subscribe",
    requests: [{ stream_id: "carriers-read", from: "soon" }],
  },
  {
    service: "ess.v1.Streams",
    method: "Subscribe",
    requests: [{ stream_id: "$all", from: "0", stream_prefix: ["carriers-read"], event_type_regex: "." }],
    take: 3,
  },
  {
    service: "ess.v1.Streams",
    method: "Subscribe",
    requests: [{ stream_id: "carriers-read", stream_regex: "(a" }],
  },
  {
    service: "ess.v1.Streams",
    method: "Subscribe",
    requests: [{ stream_id: "carriers-binary", from: "0" }],
    take: 4,
  },
  {
    service: "ess.v1.Streams",
    method: "ReadSession",
    requests: [{ correlation_id: 11, read: { stream_id: "carriers-binary" } }],
  },
  { service: "ess.v1.Admin", method: "ListStreams", requests: [{ prefix: "carriers-", limit: 10 }] },
  { service: "ess.v1.Admin", method: "Verify", requests: [{}] },
  { service: "ess.v1.Admin", method: "GetStorageStatus", requests: [{}] },
  { service: "ess.v1.Admin", method: "ListTenants", requests: [{ limit: 10 }] },
  { service: "ess.v1.Admin", method: "GetTenant", requests: [{ tenant_id: "default" }] },
  { service: "ess.v1.Admin", method: "Scavenge", requests: [{ dry_run: true }] },
  { service: "ess.v1.Admin", method: "Scavenge", requests: [{ dry_run: false }] },
  {
    service: "ess.v1.Admin",
    method: "CreateUser",
    requests: [{ username: "admin", password: "another-password", tenant_id: "default", role: "admin" }],
  },
  // Jobs: a started job differs each time (its id, its times); its refusals and the listing do not.
  { service: "ess.v1.Admin", method: "StartJob", requests: [{ kind: "compact" }] },
  { service: "ess.v1.Admin", method: "StartJob", requests: [{ kind: "scavenge", dry_run: false }] },
  {
    service: "ess.v1.Admin",
    method: "GetJob",
    requests: [{ job_id: "0b6f2c1e-5d4a-4f3b-9a8c-7d6e5f4a3b2c" }],
  },
  { service: "ess.v1.Admin", method: "ListJobs", requests: [{ limit: 10 }] },
  { service: "ess.v1.Admin", method: "ListUsers", requests: [{ limit: 10 }] },
  { service: "ess.v1.Admin", method: "DeleteUser", requests: [{ username: "nobody-here" }] },
  { service: "ess.v1.Auth", method: "Login", requests: [{ username: "admin", password: adminPassword }] },
  { service: "ess.v1.Auth", method: "WhoAmI", requests: [{}] },
  { service: "ess.v1.Auth", method: "WhoAmI", requests: [{}], authorization: "Basic abc" },
  { service: "ess.v1.Health", method: "Check", requests: [{}], authorization: null },
  { service: "grpc.health.v1.Health", method: "Check", requests: [{ service: "" }], authorization: null },
  { service: "grpc.health.v1.Health", method: "Check", requests: [{ service: "nope" }], authorization: null },
  { service: "grpc.health.v1.Health", method: "List", requests: [{}], authorization: null },
  { service: "grpc.health.v1.Health", method: "Watch", requests: [{ service: "ess.v1.Streams" }], take: 1 },
  { service: "grpc.health.v1.Health", method: "Watch", requests: [{ service: "nope" }], take: 1 },
];

test("every method of the .proto files has a case", () => {
  const methods = services.flatMap((service) =>
    Object.keys(packageDefinition[service] as object).map((method) => `${service}/${method}`),
  );
  const covered = new Set(cases.map((c) => `${c.service}/${c.method}`));
  assert.deepEqual(
    methods.filter((method) => !covered.has(method)),
    [],
  );
});

test("every method answers alike through every carrier", async () => {
  for (const c of cases) {
    const answers = [];
    for (const carrier of carriers) {
      answers.push(
        await call(carrier, c.service, c.method, c.requests, {
          take: c.take,
          authorization: c.authorization,
        }),
      );
    }
    const [first, ...others] = answers;
    const what = `${c.service}/${c.method} ${JSON.stringify(c.requests).slice(0, 80)}`;
    assert.ok(first!.messages.length > 0 || !first!.ending.ok, `${what}: answered something`);
    for (const [i, other] of others.entries()) {
      assert.deepEqual(other, first, `${what}: ${carriers[i + 1]!.name} against ${carriers[0]!.name}`);
    }
  }
});

test("every method that needs a token refuses a call without one alike through every carrier", async () => {
  const publicMethods = new Set(["ess.v1.Auth/Login", "ess.v1.Health/Check"]);
  for (const service of services) {
    if (service === "grpc.health.v1.Health") continue;
    for (const method of Object.keys(packageDefinition[service] as object)) {
      if (publicMethods.has(`${service}/${method}`)) continue;
      const answers = [];
      for (const carrier of carriers)
        answers.push(await call(carrier, service, method, [{}], { authorization: null }));
      for (const answer of answers) {
        assert.equal(answer.ending.ok, false, `${service}/${method}`);
        assert.equal(
          (answer.ending as { code: number }).code,
          grpc.status.UNAUTHENTICATED,
          `${service}/${method}`,
        );
        assert.deepEqual(answer, answers[0], `${service}/${method}`);
      }
    }
  }
});

test("server reflection lists the same services through every carrier", async () => {
  // ServerReflectionRequest { list_services (7): "" }, answered with the raw bytes of its response.
  const listServices = Buffer.from([0x3a, 0x00]);
  for (const version of ["v1", "v1alpha"]) {
    const answers: Buffer[][] = [];
    for (const { client } of carriers) {
      answers.push(
        await new Promise<Buffer[]>((resolve, reject) => {
          const messages: Buffer[] = [];
          const stream = client.makeBidiStreamRequest(
            `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`,
            (message: Buffer) => message,
            (message: Buffer) => message,
          );
          stream.on("data", (message: Buffer) => messages.push(message));
          stream.on("error", reject);
          stream.on("status", () => resolve(messages));
          stream.write(listServices);
          stream.end();
        }),
      );
    }
    assert.equal(answers[0]!.length, 1);
    assert.match(answers[0]![0]!.toString("latin1"), /ess\.v1\.Streams/);
    for (const answer of answers.slice(1)) assert.deepEqual(answer, answers[0], version);
  }
});

test("a tombstoned stream answers FAILED_PRECONDITION, a stale revision ABORTED, bad metadata INVALID_ARGUMENT", async () => {
  const carrier = carriers[0]!;
  const codeOf = async (method: string, request: object) => {
    const { ending } = await call(carrier, "ess.v1.Streams", method, [request]);
    assert.equal(ending.ok, false, `${method} ${JSON.stringify(request)}`);
    return ending.ok ? null : [ending.code, ending.trailers["error-code"]];
  };
  const tombstoned = [grpc.status.FAILED_PRECONDITION, "STREAM_TOMBSTONED"];
  assert.deepEqual(await codeOf("Read", { stream_id: "carriers-tombstoned" }), tombstoned);
  assert.deepEqual(
    await codeOf("Append", { ...appendRequest, stream_id: "carriers-tombstoned" }),
    tombstoned,
  );
  assert.deepEqual(await codeOf("Delete", { stream_id: "carriers-tombstoned" }), tombstoned);
  assert.deepEqual(await codeOf("GetMetadata", { stream_id: "carriers-tombstoned" }), tombstoned);
  assert.deepEqual(await codeOf("Delete", { stream_id: "carriers-read", expected_revision: "3" }), [
    grpc.status.ABORTED,
    "WRONG_EXPECTED_REVISION",
  ]);
  assert.deepEqual(
    await codeOf("SetMetadata", { stream_id: "carriers-meta", metadata: Buffer.from('{"$tb":-1}') }),
    [grpc.status.INVALID_ARGUMENT, "INVALID_ARGUMENT"],
  );
  assert.deepEqual(
    await codeOf("SetMetadata", { stream_id: "carriers-meta", metadata: Buffer.from([0xff]) }),
    [grpc.status.INVALID_ARGUMENT, "INVALID_ARGUMENT"],
  );
});

test("the client in src/client reads and sets metadata and tombstones over gRPC", async () => {
  const info = await ts.client.getInfo(ts.admin, { stream_id: "carriers-tombstoned" });
  assert.equal(info.tombstoned, true);
  const before = await ts.client.getMetadata(ts.admin, { stream_id: "carriers-client-meta" });
  assert.deepEqual(before, { stream_id: "carriers-client-meta", metadata_revision: null, metadata: {} });
  const document = { $maxAge: 60, nested: { list: [1, "two", null], text: "ünï" } };
  const set = await ts.client.setMetadata(ts.admin, {
    stream_id: "carriers-client-meta",
    metadata: document,
    expected_metadata_revision: "no_stream",
  });
  assert.deepEqual(set, { stream_id: "carriers-client-meta", metadata_revision: 0, metadata: document });
  assert.deepEqual(await ts.client.getMetadata(ts.admin, { stream_id: "carriers-client-meta" }), set);
  await assert.rejects(
    ts.client.setMetadata(ts.admin, {
      stream_id: "carriers-client-meta",
      metadata: {},
      expected_metadata_revision: 5,
    }),
    (error: { code?: string }) => error.code === "WRONG_EXPECTED_REVISION",
  );
});

test("binary events and metadata kept as bytes come back byte for byte through every carrier", async () => {
  for (const carrier of carriers) {
    const { messages, ending } = await call(carrier, "ess.v1.Streams", "Read", [
      { stream_id: "carriers-binary" },
    ]);
    assert.deepEqual(ending, { ok: true }, carrier.name);
    const events = (messages[0] as { events: Record<string, unknown>[] }).events;
    assert.deepEqual(
      events.map((e) => [e.event_type, e.content_type, e.data, e.metadata, e.metadata_bytes]),
      [
        [
          "Blob",
          "application/octet-stream",
          Buffer.from([0xff, 0x00, 0xfe, 0xed, 0xa0, 0x80]),
          Buffer.alloc(0),
          Buffer.from([0x01, 0x80]),
        ],
        ["Array", "application/json", Buffer.from('[1,"two"]'), Buffer.from('"m"'), undefined],
        ["Empty", "application/octet-stream", Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)],
      ],
      carrier.name,
    );
    const refused = await call(carrier, "ess.v1.Streams", "Append", [
      {
        stream_id: "carriers-binary",
        events: [
          {
            event_type: "Both",
            data: Buffer.from("{}"),
            metadata: Buffer.from("{}"),
            metadata_bytes: Buffer.from("x"),
          },
        ],
      },
    ]);
    assert.equal(
      refused.ending.ok ? grpc.status.OK : refused.ending.code,
      grpc.status.INVALID_ARGUMENT,
      carrier.name,
    );
  }
});

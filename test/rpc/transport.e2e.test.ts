// The gRPC transport alone, over a real connection on 127.0.0.1: every operation's result
// crosses the wire and comes back equal (nulls stay null, zeros stay zero, event JSON text stays
// byte for byte), and every EssError comes back with its code, message and details. The
// operations behind the server are a recording stand-in here; the real operations are tested
// in operations.e2e.test.ts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { EssError, errorCodes } from "../../src/errors.js";
import type { Operations } from "../../src/operations/contract.js";
import { Payload } from "../../src/contract/payload.js";
import type {
  EventRecord,
  Job,
  ScavengeResult,
  StorageStatus,
  StreamInfo,
  StreamMetadata,
} from "../../src/contract/bodies.js";
import { createLogger } from "../../src/logger.js";
import { createRpcClient } from "../../src/client/rpc-client.js";
import type { RpcClient } from "../../src/client/rpc-client.js";
import { startRpcServer } from "../../src/rpc/server.js";
import type { RpcServer } from "../../src/rpc/server.js";
import { grpcStatusByErrorCode } from "../../src/rpc/error-mapping.js";
import * as grpc from "@grpc/grpc-js";

const event: EventRecord = {
  stream_id: "orders-1",
  revision: 0,
  position: 0,
  event_id: "6f1c2a5e-1b7d-4c1e-9c43-2f7d3f0b9a11",
  event_type: "OrderPlaced",
  data: '{ "b":1,  "a" : "ü\\u00fc" }',
  metadata: "{}",
  created_at: "2026-11-22T03:00:00.000Z",
  content_type: "application/json",
};

const info: StreamInfo = {
  stream_id: "orders-1",
  tenant_id: "acme",
  event_count: 0,
  first_revision: null,
  last_revision: 0,
  bytes: 0,
  created_at: "2026-11-22T03:00:00.000Z",
  updated_at: "2026-11-22T03:00:00.000Z",
  deleted: true,
  tombstoned: true,
  retention: { max_age_seconds: null, max_count: 0, truncate_before: 5 },
};

const streamMetadata: StreamMetadata = {
  stream_id: "orders-1",
  metadata_revision: 0,
  metadata: { $maxCount: 5, owner: { name: "ü", tags: ["a", 1, null] } },
};

const logStatus: StorageStatus = {
  engine: "log",
  events_total: 3,
  streams_total: 1,
  bytes_total: 300,
  last_position: 2,
  last_scavenge: null,
  data_dir: "/tmp/x",
  segments: [],
  writer: { batches: 1, fsyncs: 1, avg_batch_events: 1.5, queue_depth: 0 },
  index: {
    entries: 3,
    memory_bytes: 100,
    bytes_per_event: 33.3,
    checkpoint_position: 0,
    id_check_false_hits: 2,
  },
};

const summary = {
  stream_id: "orders-1",
  tenant_id: "acme",
  event_count: 2,
  last_revision: null,
  bytes: 10,
  updated_at: "2026-11-22T03:00:00.000Z",
  deleted: false,
};

const dryRun: ScavengeResult = {
  dry_run: true,
  events_removed: 3,
  bytes_reclaimed: 300,
  segments_rewritten: 0,
  streams_affected: 2,
  duration_ms: 0.5,
  streams: [
    { stream_id: "orders-1", tenant_id: "acme", events_removed: 2, bytes_reclaimed: 200 },
    { stream_id: "orders-2", tenant_id: "acme", events_removed: 1, bytes_reclaimed: 100 },
  ],
};

const queuedJob: Job = {
  job_id: "6f1c2b8e-8d5a-4c3e-9b7a-0a1b2c3d4e5f",
  kind: "verify",
  dry_run: false,
  state: "queued",
  progress: { done: 0, total: 0, unit: "bytes" },
  created_at: "2026-11-22T03:00:00.000Z",
  started_at: null,
  finished_at: null,
  result: null,
  error: null,
};

const doneScavengeJob: Job = {
  ...queuedJob,
  kind: "scavenge",
  dry_run: true,
  state: "done",
  progress: { done: 4, total: 4, unit: "streams" },
  started_at: "2026-11-22T03:00:00.001Z",
  finished_at: "2026-11-22T03:00:01.000Z",
  result: dryRun,
};

const doneVerifyJob: Job = {
  ...queuedJob,
  state: "done",
  progress: { done: 3, total: 3, unit: "bytes" },
  started_at: "2026-11-22T03:00:00.001Z",
  finished_at: "2026-11-22T03:00:01.000Z",
  result: {
    ok: false,
    segments_checked: 1,
    records_checked: 2,
    bytes_checked: 3,
    errors: [{ segment: "00000000.log", offset: 12, kind: "checksum", message: "bad" }],
    duration_ms: 1.25,
  },
};

const failedJob: Job = {
  ...queuedJob,
  kind: "scavenge",
  state: "failed",
  progress: { done: 1, total: 5, unit: "segments" },
  started_at: "2026-11-22T03:00:00.001Z",
  finished_at: "2026-11-22T03:00:01.000Z",
  error: { code: "UNAVAILABLE", message: "storage is not writable" },
};

const received: unknown[] = [];
let failWith: EssError | Error | null = null;

function answer<T>(request: unknown, result: T): Promise<T> {
  received.push(request);
  if (failWith) return Promise.reject(failWith);
  return Promise.resolve(result);
}

const stand: Operations = {
  // Any token stands for the same caller: these tests are about translation, not auth.
  authenticate: () =>
    Promise.resolve({
      username: "ann",
      tenant_id: "acme",
      role: "writer",
      expires_at_ms: Date.now() + 3_600_000,
    }),
  check: () =>
    answer(null, {
      status: "degraded",
      version: "0.1.0",
      uptime_seconds: 0,
      storage: { engine: "log", writable: false },
    }),
  login: (_ctx, r) =>
    answer(r, {
      access_token: "t",
      token_type: "Bearer",
      expires_in: 3600,
      tenant_id: "acme",
      role: "writer",
    }),
  append: (ctx, r) =>
    answer({ ctx, r }, { stream_id: "orders-1", first_revision: 0, last_revision: 1, position: 0, count: 2 }),
  read: (_ctx, r) =>
    answer(r, {
      stream_id: "orders-1",
      direction: "backward",
      events: [event],
      next_revision: null,
      is_end: true,
    }),
  getInfo: (_ctx, r) => answer(r, info),
  list: (_ctx, r) => answer(r, { streams: [summary], next_cursor: null }),
  readAll: (_ctx, r) => answer(r, { events: [event], next_position: 0, is_end: false }),
  setRetention: (_ctx, r) => answer(r, info),
  delete: (_ctx, r) => answer(r, info),
  getMetadata: (_ctx, r) => answer(r, { stream_id: "orders-1", metadata_revision: null, metadata: {} }),
  setMetadata: (_ctx, r) => answer(r, streamMetadata),
  listStreams: (_ctx, r) => answer(r, { streams: [], next_cursor: "c2" }),
  verify: () =>
    answer(null, {
      ok: false,
      segments_checked: 1,
      records_checked: 2,
      bytes_checked: 3,
      errors: [{ segment: "00000000.log", offset: 12, kind: "checksum", message: "bad" }],
      duration_ms: 1.25,
    }),
  getStorageStatus: () => answer(null, logStatus),
  listTenants: (_ctx, r) =>
    answer(r, {
      tenants: [
        {
          tenant_id: "acme",
          streams: 1,
          events: 0,
          bytes: 0,
          appends_total: 0,
          reads_total: 0,
          last_append_at: null,
        },
      ],
      next_cursor: null,
    }),
  getTenant: (_ctx, r) =>
    answer(r, {
      tenant_id: "acme",
      streams: 1,
      events: 2,
      bytes: 10,
      appends_total: 1,
      reads_total: 0,
      last_append_at: "2026-11-22T03:00:00.000Z",
      largest_streams: [summary],
    }),
  scavenge: (_ctx, r) => answer(r, dryRun),
  startJob: (_ctx, r) => answer(r, queuedJob),
  getJob: (_ctx, r) => answer(r, doneScavengeJob),
  listJobs: (_ctx, r) => answer(r, { jobs: [doneVerifyJob, failedJob, queuedJob], next_cursor: "c3" }),
  createUser: (_ctx, r) =>
    answer(r, { username: "ann", tenant_id: "acme", role: "reader", created_at: "2026-11-22T03:00:00.000Z" }),
  listUsers: (_ctx, r) => answer(r, { users: [], next_cursor: null }),
  deleteUser: (_ctx, r) =>
    answer(r, { username: "ann", tenant_id: "acme", role: "admin", created_at: "2026-11-22T03:00:00.000Z" }),
};

let server: RpcServer;
let client: RpcClient;
const ctx = { token: "abc.def.ghi" };

before(async () => {
  server = await startRpcServer({
    operations: stand,
    address: { host: "127.0.0.1", port: 0 },
    logger: createLogger({}, 100),
  });
  client = createRpcClient({ address: `127.0.0.1:${server.address.port}` });
});

after(async () => {
  client.close();
  await server.close(1000);
});

test("every result crosses gRPC unchanged, nulls and zeros included", async () => {
  failWith = null;
  assert.deepEqual(await client.check(), await stand.check());
  assert.deepEqual(
    await client.login(ctx, { username: "ann", password: "pw" }),
    await stand.login(ctx, {
      username: "ann",
      password: "pw",
    }),
  );
  assert.deepEqual(
    await client.read(ctx, { stream_id: "orders-1" }),
    await stand.read(ctx, { stream_id: "x" }),
  );
  assert.deepEqual(await client.getInfo(ctx, { stream_id: "orders-1" }), info);
  assert.deepEqual(await client.list(ctx, {}), await stand.list(ctx, {}));
  assert.deepEqual(await client.readAll(ctx, {}), await stand.readAll(ctx, {}));
  assert.deepEqual(await client.setRetention(ctx, { stream_id: "orders-1" }), info);
  assert.deepEqual(await client.delete(ctx, { stream_id: "orders-1" }), info);
  assert.deepEqual(
    await client.delete(ctx, { stream_id: "orders-1", expected_revision: 4, tombstone: true }),
    info,
  );
  assert.deepEqual(received.at(-1), {
    stream_id: "orders-1",
    tenant: undefined,
    expected_revision: "4",
    tombstone: true,
  });
  assert.deepEqual(await client.getMetadata(ctx, { stream_id: "orders-1" }), {
    stream_id: "orders-1",
    metadata_revision: null,
    metadata: {},
  });
  assert.deepEqual(
    await client.setMetadata(ctx, {
      stream_id: "orders-1",
      metadata: streamMetadata.metadata,
      expected_metadata_revision: "no_stream",
    }),
    streamMetadata,
  );
  assert.deepEqual(received.at(-1), {
    stream_id: "orders-1",
    tenant: undefined,
    metadata: streamMetadata.metadata,
    expected_metadata_revision: "no_stream",
  });
  assert.deepEqual(await client.listStreams(ctx, {}), await stand.listStreams(ctx, {}));
  assert.deepEqual(await client.verify(ctx), await stand.verify(ctx));
  assert.deepEqual(await client.getStorageStatus(ctx), logStatus);
  assert.deepEqual(await client.listTenants(ctx, {}), await stand.listTenants(ctx, {}));
  assert.deepEqual(
    await client.getTenant(ctx, { tenant_id: "acme" }),
    await stand.getTenant(ctx, { tenant_id: "a" }),
  );
  assert.deepEqual(await client.scavenge(ctx, { dry_run: true }), dryRun);
  assert.deepEqual(await client.startJob(ctx, { kind: "verify" }), queuedJob);
  assert.deepEqual(await client.getJob(ctx, { job_id: queuedJob.job_id }), doneScavengeJob);
  assert.deepEqual(await client.listJobs(ctx, {}), await stand.listJobs(ctx, {}));
  const user = { username: "ann", password: "password1", tenant_id: "acme", role: "reader" };
  assert.deepEqual(await client.createUser(ctx, user), await stand.createUser(ctx, user));
  assert.deepEqual(await client.listUsers(ctx, {}), await stand.listUsers(ctx, {}));
  assert.deepEqual(
    await client.deleteUser(ctx, { username: "ann" }),
    await stand.deleteUser(ctx, { username: "a" }),
  );
});

test("event data text read over gRPC is byte for byte what was stored", async () => {
  failWith = null;
  const result = await client.read(ctx, { stream_id: "orders-1" });
  assert.equal(result.events[0]?.data, event.data);
});

test("an append reaches the operations with the token and the event JSON as text", async () => {
  failWith = null;
  received.length = 0;
  await client.append(ctx, {
    stream_id: "orders-1",
    events: [
      { event_type: "A", data: { x: 1 } },
      { event_type: "B", data: { y: [1, 2] }, metadata: { m: true } },
    ],
    expected_revision: 4,
  });
  const seen = received[0] as {
    ctx: { token: string };
    r: { events: { data: unknown; metadata: unknown }[] };
  };
  assert.equal(seen.ctx.token, ctx.token);
  assert.deepEqual(seen.r.events[0]?.data, Payload.fromText('{"x":1}'));
  assert.deepEqual(seen.r.events[1]?.metadata, Payload.fromText('{"m":true}'));
  assert.equal((seen.r as unknown as { expected_revision: string }).expected_revision, "4");
});

test("every error code comes back as the same EssError with the mapped gRPC status", async () => {
  for (const code of errorCodes) {
    failWith = new EssError(code, `message for ${code}`, { stream_id: "orders-1", n: 2 });
    await assert.rejects(client.getInfo(ctx, { stream_id: "orders-1" }), (error: unknown) => {
      assert.ok(error instanceof EssError);
      assert.equal(error.code, code);
      assert.equal(error.message, `message for ${code}`);
      assert.deepEqual(error.details, { stream_id: "orders-1", n: 2 });
      return true;
    });
  }
  failWith = null;
});

test("the gRPC status code and error-code trailer are those of the mapping table", async () => {
  failWith = new EssError("WRONG_EXPECTED_REVISION", "stale", { expected: 1, actual: 2 });
  const error = await new Promise<grpc.ServiceError>((resolve) => {
    client.grpc.streams.GetInfo({ stream_id: "orders-1" }, client.metadataFor(ctx), (e) => resolve(e!));
  });
  assert.equal(error.code, grpc.status.ABORTED);
  assert.equal(grpcStatusByErrorCode.USER_EXISTS, grpc.status.ALREADY_EXISTS);
  assert.equal(error.metadata.get("error-code")[0], "WRONG_EXPECTED_REVISION");
  failWith = null;
});

test("an unexpected failure is INTERNAL and carries no internals", async () => {
  failWith = new Error("secret path /var/lib/x");
  await assert.rejects(client.getInfo(ctx, { stream_id: "orders-1" }), (error: unknown) => {
    assert.ok(error instanceof EssError);
    assert.equal(error.code, "INTERNAL");
    assert.doesNotMatch(error.message, /secret/);
    return true;
  });
  failWith = null;
});

test("the client refuses bad input before sending, with the operations' own error", async () => {
  received.length = 0;
  await assert.rejects(client.read(ctx, { stream_id: "orders-1", limit: 0 }), { code: "INVALID_ARGUMENT" });
  await assert.rejects(client.append(ctx, { stream_id: "$x", event_type: "A", data: {} }), {
    code: "INVALID_ARGUMENT",
  });
  assert.equal(received.length, 0);
});

test("a server that cannot be reached answers UNAVAILABLE", async () => {
  const lost = createRpcClient({ address: "127.0.0.1:1", deadlineMs: 2000 });
  await assert.rejects(lost.check(), { code: "UNAVAILABLE" });
  lost.close();
});

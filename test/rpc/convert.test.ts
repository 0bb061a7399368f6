// src/rpc/convert.ts, the converter between the contract's result bodies and the ess.v1
// messages: every unary method's result goes to its message, through proto-loader's
// serializer and deserializer (the wire), and back to an equal body with its keys in the same
// order (the REST gateway in upstream mode answers byte for byte what the in-process one does),
// null and absent values included; and the samples set every field of every result message,
// so that a field the converter drops fails the round trip.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { MethodDefinition } from "@grpc/proto-loader";
import protobuf from "protobufjs";
import * as convert from "../../src/rpc/convert.js";
import { packageDefinition, protoRoot } from "../../src/rpc/proto.js";

type AnyMethod = MethodDefinition<unknown, unknown>;

const services = ["ess.v1.Streams", "ess.v1.Admin", "ess.v1.Auth", "ess.v1.Health"];

/** Every unary method of the ess.v1 services, with the name of its result message. */
const unaryMethods = services.flatMap((service) =>
  protoRoot
    .lookupService(service)
    .methodsArray.filter((m) => !m.requestStream && !m.responseStream)
    .map((m) => ({
      path: `${service}/${m.name}`,
      result: m.resolvedResponseType!.name,
      definition: (packageDefinition[service] as unknown as Record<string, AnyMethod>)[m.name]!,
    })),
);

const json = {
  stream_id: "orders-1",
  revision: 3,
  position: 17,
  event_id: "0b9d3f4e-8a55-4c4f-9d43-3f0f1f1b2c01",
  event_type: "OrderPlaced",
  data: '{"total":12.5,"items":["a"]}',
  metadata: '{"source":"web"}',
  created_at: "2026-11-27T19:00:00.123Z",
  content_type: "application/json",
};
const binary = {
  ...json,
  revision: 4,
  position: 18,
  data: Buffer.from([0, 1, 254, 255]),
  metadata: Buffer.from([9, 0xc3]),
  content_type: "application/octet-stream",
};
const binaryEmptyMetadata = { ...binary, revision: 0, position: 0, metadata: Buffer.alloc(0) };
const summary = {
  stream_id: "orders-1",
  tenant_id: "acme",
  event_count: 2,
  last_revision: 4,
  bytes: 512,
  updated_at: "2026-11-27T19:00:01.000Z",
  deleted: true,
};
const emptySummary = { ...summary, event_count: 0, last_revision: null, bytes: 0, deleted: false };
const scavengeTotals = {
  dry_run: true,
  events_removed: 7,
  bytes_reclaimed: 4096,
  segments_rewritten: 2,
  streams_affected: 1,
  duration_ms: 12.5,
};
const dryRun = {
  ...scavengeTotals,
  streams: [{ stream_id: "orders-1", tenant_id: "acme", events_removed: 7, bytes_reclaimed: 4096 }],
};
const realRun = { ...scavengeTotals, dry_run: false };
const verifyResult = {
  ok: false,
  segments_checked: 3,
  records_checked: 100,
  bytes_checked: 65536,
  errors: [{ segment: "00000001.seg", offset: 4096, kind: "checksum", message: "bad block" }],
  duration_ms: 3.25,
};
const job = {
  job_id: "6f1c2a8e-2b7d-4c55-9a43-0d7d5e1f3a10",
  kind: "verify",
  dry_run: false,
  state: "queued",
  progress: { done: 0, total: 0, unit: "bytes" },
  created_at: "2026-11-27T19:00:00.000Z",
  started_at: null,
  finished_at: null,
  result: null,
  error: null,
};
const user = { username: "ann", tenant_id: "acme", role: "writer", created_at: "2026-11-27T18:00:00.000Z" };
const usage = {
  tenant_id: "acme",
  streams: 2,
  events: 9,
  bytes: 1024,
  appends_total: 5,
  reads_total: 8,
  last_append_at: "2026-11-27T19:00:00.000Z",
};
const storageTotals = {
  events_total: 9,
  streams_total: 2,
  bytes_total: 1024,
  last_position: 18,
};

/** Contract bodies of each result message, in the contract's key order. */
const samples: Record<string, object[]> = {
  AppendResult: [{ stream_id: "orders-1", first_revision: 3, last_revision: 4, position: 18, count: 2 }],
  ReadResult: [
    { stream_id: "orders-1", direction: "backward", events: [json, binary], next_revision: 2, is_end: false },
    {
      stream_id: "orders-1",
      direction: "forward",
      events: [binaryEmptyMetadata],
      next_revision: 0,
      is_end: false,
    },
    { stream_id: "orders-1", direction: "forward", events: [], next_revision: null, is_end: true },
  ],
  ReadAllResult: [
    { events: [json, binary], next_position: 19, is_end: false },
    { events: [], next_position: null, is_end: true },
  ],
  StreamInfo: [
    {
      stream_id: "orders-1",
      tenant_id: "acme",
      event_count: 2,
      first_revision: 3,
      last_revision: 4,
      bytes: 512,
      created_at: "2026-11-27T18:59:00.000Z",
      updated_at: "2026-11-27T19:00:01.000Z",
      deleted: true,
      tombstoned: true,
      retention: { max_age_seconds: 3600, max_count: 10, truncate_before: 3 },
    },
    {
      stream_id: "orders-2",
      tenant_id: "acme",
      event_count: 0,
      first_revision: null,
      last_revision: null,
      bytes: 0,
      created_at: "2026-11-27T18:59:00.000Z",
      updated_at: "2026-11-27T18:59:00.000Z",
      deleted: false,
      tombstoned: false,
      retention: { max_age_seconds: null, max_count: 0, truncate_before: null },
    },
  ],
  StreamList: [
    { streams: [summary, emptySummary], next_cursor: "b3JkZXJzLTI" },
    { streams: [], next_cursor: null },
  ],
  StreamMetadata: [
    { stream_id: "orders-1", metadata_revision: 2, metadata: { $maxCount: 10, owner: { team: ["x"] } } },
    { stream_id: "orders-1", metadata_revision: 0, metadata: { a: null } },
    { stream_id: "orders-2", metadata_revision: null, metadata: {} },
  ],
  VerifyResult: [verifyResult, { ...verifyResult, ok: true, errors: [] }],
  StorageStatus: [
    {
      engine: "log",
      ...storageTotals,
      last_scavenge: { ...scavengeTotals, finished_at: "2026-11-27T18:00:00.000Z" },
      data_dir: "/var/lib/ess",
      segments: [{ name: "00000002.seg", base_position: 4096, records: 9, bytes: 1024, sealed: true }],
      writer: { batches: 4, fsyncs: 4, avg_batch_events: 2.25, queue_depth: 1 },
      index: {
        entries: 9,
        memory_bytes: 4096,
        bytes_per_event: 455.1,
        checkpoint_position: 17,
        id_check_false_hits: 1,
      },
    },
    { engine: "log", ...storageTotals, last_scavenge: null, data_dir: "/var/lib/ess", segments: [] },
    {
      engine: "postgres",
      ...storageTotals,
      last_scavenge: null,
      tables: [{ name: "events", total_bytes: 8192, index_bytes: 2048, rows_estimate: 9 }],
      pool: { total: 10, idle: 7, waiting: 2 },
    },
    { engine: "postgres", ...storageTotals, last_scavenge: null, tables: [] },
  ],
  TenantList: [
    { tenants: [usage, { ...usage, tenant_id: "beta", last_append_at: null }], next_cursor: "YmV0YQ" },
    { tenants: [], next_cursor: null },
  ],
  TenantDetail: [
    { ...usage, largest_streams: [summary] },
    { ...usage, last_append_at: null, largest_streams: [] },
  ],
  ScavengeResult: [dryRun, realRun, { ...scavengeTotals, streams: [] }],
  Job: [
    job,
    {
      ...job,
      state: "done",
      progress: { done: 65536, total: 65536, unit: "bytes" },
      started_at: "2026-11-27T19:00:00.100Z",
      finished_at: "2026-11-27T19:00:00.200Z",
      result: verifyResult,
    },
    {
      ...job,
      kind: "scavenge",
      dry_run: true,
      state: "done",
      progress: { done: 2, total: 2, unit: "segments" },
      started_at: "2026-11-27T19:00:00.100Z",
      finished_at: "2026-11-27T19:00:00.200Z",
      result: dryRun,
    },
    {
      ...job,
      kind: "scavenge",
      state: "failed",
      progress: { done: 1, total: 3, unit: "streams" },
      started_at: "2026-11-27T19:00:00.100Z",
      finished_at: "2026-11-27T19:00:00.200Z",
      error: { code: "SCAVENGE_IN_PROGRESS", message: "another scavenge is running" },
    },
  ],
  JobList: [
    {
      jobs: [job, { ...job, job_id: "2", kind: "scavenge", progress: { ...job.progress, unit: "streams" } }],
      next_cursor: "Mg",
    },
    { jobs: [], next_cursor: null },
  ],
  HealthResult: [
    { status: "ok", version: "0.1.0", uptime_seconds: 42, storage: { engine: "log", writable: true } },
    {
      status: "degraded",
      version: "0.1.0",
      uptime_seconds: 0,
      storage: { engine: "postgres", writable: false },
    },
  ],
  LoginResult: [
    { access_token: "eyJ.x.y", token_type: "Bearer", expires_in: 3600, tenant_id: "acme", role: "admin" },
  ],
  WhoAmIResult: [{ username: "ann", tenant_id: "acme", role: "reader", expires_at_ms: 1_764_270_000_000 }],
  User: [user],
  UserList: [
    { users: [user, { ...user, username: "bob", role: "admin" }], next_cursor: "Ym9i" },
    { users: [], next_cursor: null },
  ],
};

type Converter = (value: unknown) => unknown;

/** The converters of a result message, as the methods (convert.toPbResponse, fromPbResponse) get them. */
function converters(result: string): { toPb: Converter; fromPb: Converter } {
  return { toPb: convert.toPb(result), fromPb: convert.fromPb(result) as Converter };
}

/** JSON (a Buffer as its bytes): equal text means equal values with keys in the same order. */
function ordered(value: unknown): string {
  return JSON.stringify(value);
}

/** "Message.field" of every field that `message` (as proto-loader decodes it) sets to a non-default value. */
function fieldsSet(type: protobuf.Type, message: Record<string, unknown>, into: Set<string>): void {
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    const values = field.repeated ? (value as unknown[]) : [value];
    for (const v of values) {
      if (v === null || v === undefined || v === "" || v === 0 || v === false) continue;
      if (Buffer.isBuffer(v) && v.length === 0 && !field.options?.proto3_optional) continue;
      into.add(`${type.name}.${field.name}`);
      if (field.resolvedType instanceof protobuf.Type) {
        fieldsSet(field.resolvedType, v as Record<string, unknown>, into);
      }
    }
  }
}

/** "Message.field" of every field of `type` and of the messages within it. */
function allFields(type: protobuf.Type, into: Set<string>): void {
  for (const field of type.fieldsArray) {
    const key = `${type.name}.${field.name}`;
    if (into.has(key)) continue;
    into.add(key);
    if (field.resolvedType instanceof protobuf.Type) allFields(field.resolvedType, into);
  }
}

test("every unary method's result has samples here", () => {
  assert.ok(unaryMethods.length >= 24);
  for (const method of unaryMethods) {
    assert.ok(samples[method.result]?.length, `samples of ${method.result} (${method.path})`);
  }
});

test("every result goes to its message over the wire and back, equal and in the contract's key order", () => {
  for (const method of unaryMethods) {
    const { toPb, fromPb } = converters(method.result);
    for (const sample of samples[method.result]!) {
      const bytes = method.definition.responseSerialize(toPb(sample));
      const back = fromPb(method.definition.responseDeserialize(bytes));
      assert.deepStrictEqual(back, sample, method.path);
      assert.equal(ordered(back), ordered(sample), `${method.path}: key order`);
    }
  }
});

test("the samples set every field of every result message, so a dropped field fails the round trip", () => {
  const expected = new Set<string>();
  const set = new Set<string>();
  for (const method of unaryMethods) {
    const type = protoRoot.lookupType(`ess.v1.${method.result}`);
    allFields(type, expected);
    const { toPb } = converters(method.result);
    for (const sample of samples[method.result]!) {
      const message = method.definition.responseDeserialize(
        method.definition.responseSerialize(toPb(sample)),
      );
      fieldsSet(type, message as Record<string, unknown>, set);
    }
  }
  assert.deepEqual(
    [...expected].filter((field) => !set.has(field)),
    [],
  );
});

test("words the contract types narrowly read as their fallback when a server sends another", () => {
  const { fromPb } = converters("Job");
  const message = {
    ...job,
    kind: "compact",
    state: "paused",
    progress: { done: 1, total: 2, unit: "pages" },
  };
  const error = { code: "NEW_CODE", message: "m" };
  assert.deepEqual(fromPb({ ...message, error }), {
    ...job,
    state: "failed",
    progress: { done: 1, total: 2, unit: "bytes" },
    error: { code: "INTERNAL", message: "m" },
  });
  assert.deepEqual(
    converters("HealthResult").fromPb({ status: "starting", version: "v", uptime_seconds: 1, storage: null }),
    {
      status: "degraded",
      version: "v",
      uptime_seconds: 1,
      storage: { engine: "log", writable: false },
    },
  );
});

test("the server takes the other methods' requests field for field, an unset optional field undefined", () => {
  const byHand = ["ess.v1.Streams/Append", "ess.v1.Streams/Read", "ess.v1.Streams/ReadAll"];
  let checked = 0;
  for (const service of services) {
    for (const method of protoRoot.lookupService(service).methodsArray) {
      if (method.requestStream || method.responseStream || byHand.includes(`${service}/${method.name}`))
        continue;
      const definition = (packageDefinition[service] as unknown as Record<string, AnyMethod>)[method.name]!;
      const toRequest = convert.fromPbRequest<object>(service, method.name);
      const full: Record<string, unknown> = {};
      const expectedFull: Record<string, unknown> = {};
      const expectedUnset: Record<string, unknown> = {};
      for (const field of method.resolvedRequestType!.fieldsArray) {
        const optional = field.options?.proto3_optional === true;
        if (field.type === "bytes") {
          // SetMetadataRequest.metadata, the one bytes field: the document's JSON text.
          full[field.name] = Buffer.from('{"$maxCount":3,"a":[1]}');
          expectedFull[field.name] = { $maxCount: 3, a: [1] };
          expectedUnset[field.name] = undefined;
          continue;
        }
        const value = field.type === "string" ? `${field.name}-1` : field.type === "bool" ? true : 7;
        full[field.name] = field.repeated ? [value] : value;
        expectedFull[field.name] = full[field.name];
        const unset = field.type === "string" ? "" : field.type === "bool" ? false : 0;
        expectedUnset[field.name] = field.repeated ? [] : optional ? undefined : unset;
      }
      const decode = (message: object): object =>
        toRequest(definition.requestDeserialize(definition.requestSerialize(message)) as object);
      const request = decode(full);
      assert.deepStrictEqual(request, expectedFull, `${service}/${method.name}`);
      assert.equal(ordered(request), ordered(expectedFull), `${service}/${method.name}: key order`);
      assert.deepStrictEqual(decode({}), expectedUnset, `${service}/${method.name}, unset`);
      checked += 1;
    }
  }
  assert.ok(checked >= 21);
});

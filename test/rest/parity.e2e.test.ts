/**
 * "For every mapped operation the REST response matches the result of the corresponding RPC
 * operation": each route is called over HTTP and its operation over a real gRPC client of the
 * same service, with the same request, in both gateway modes. Fields that legitimately differ
 * between two calls (a fresh token, a timing) are named per case and compared for type only.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { CallContext, Operations } from "../../src/operations/contract.js";
import type { EventRecord } from "../../src/contract/bodies.js";
import { routes } from "../../src/rest/routes.js";
import { adminPassword, gatewayModes, http, login, startTarget, type RestTarget } from "./harness.js";

interface ParityCase {
  operation: keyof Operations;
  method: string;
  path: string;
  body?: unknown;
  status?: number;
  /** The same request through the gRPC client. */
  rpc: (ops: Operations, ctx: CallContext) => Promise<unknown>;
  /** Top-level fields that may differ between the two calls. */
  varying?: string[];
}

/** An event's data or metadata as the REST JSON shows it: JSON text parsed, bytes as `<name>_base64`. */
function partAsJson(out: Record<string, unknown>, name: "data" | "metadata", part: string | Buffer): void {
  if (typeof part === "string") out[name] = JSON.parse(part) as unknown;
  else out[`${name}_base64`] = part.toString("base64");
}

/** The RPC result as the REST JSON body would show it: data/metadata text parsed, bytes as base64. */
function asJson(result: unknown): unknown {
  const events = (result as { events?: EventRecord[] }).events;
  if (!Array.isArray(events)) return JSON.parse(JSON.stringify(result));
  return {
    ...(JSON.parse(JSON.stringify(result)) as object),
    events: events.map((e) => {
      const { data, metadata, ...rest } = e;
      const out: Record<string, unknown> = { ...rest };
      partAsJson(out, "data", data);
      partAsJson(out, "metadata", metadata);
      return out;
    }),
  };
}

function withoutVarying(value: unknown, varying: string[] = []): unknown {
  const copy = { ...(value as Record<string, unknown>) };
  for (const field of varying) {
    assert.equal(typeof copy[field], typeof (value as Record<string, unknown>)[field]);
    copy[field] = "(varies)";
  }
  return copy;
}

for (const mode of gatewayModes) {
  describe(`REST bodies equal RPC results (${mode})`, () => {
    let target: RestTarget;
    let admin: string;
    const stream = `parity-${randomUUID()}`;
    const eventId = randomUUID();
    const binaryEventId = randomUUID();
    /** A verify job, done before the cases run, so its answers no longer change. */
    let doneJobId = "";

    before(async () => {
      target = await startTarget(mode);
      admin = await login(target, "admin", adminPassword);
      await target.rpc.append(
        { token: admin },
        {
          stream_id: stream,
          events: [
            { event_type: "A", data: { n: 1, s: "é" }, event_id: eventId },
            { event_type: "B", data: { n: 2 }, metadata: { m: true } },
            { event_type: "C", data: { n: 3 } },
            // A binary event, metadata kept as bytes, a JSON value that is not an object.
            { event_type: "D", data_base64: Buffer.from([0xff, 0x00, 0xfe]).toString("base64") },
            { event_type: "E", data: [1, "two"], metadata_base64: Buffer.from("raw").toString("base64") },
          ],
        },
      );
      for (const name of ["old-1", "old-2"]) {
        await target.rpc.createUser(
          { token: admin },
          { username: `${name}-${mode}`, password: "password-1", tenant_id: "acme", role: "reader" },
        );
      }
      await target.rpc.append({ token: admin }, { stream_id: `${stream}-gone`, event_type: "t", data: {} });
      doneJobId = (await target.rpc.startJob({ token: admin }, { kind: "verify" })).job_id;
      while ((await target.rpc.getJob({ token: admin }, { job_id: doneJobId })).state !== "done") {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    });
    after(async () => {
      await target?.stop();
    });

    const cases = (): ParityCase[] => [
      {
        operation: "check",
        method: "GET",
        path: "/v1/health",
        rpc: (ops) => ops.check(),
        varying: ["uptime_seconds"],
      },
      {
        operation: "login",
        method: "POST",
        path: "/v1/auth/login",
        body: { username: "admin", password: adminPassword },
        rpc: (ops, ctx) => ops.login(ctx, { username: "admin", password: adminPassword }),
        varying: ["access_token"],
      },
      {
        operation: "append",
        method: "POST",
        path: `/v1/streams/${stream}/append`,
        body: { event_type: "A", data: { n: 1, s: "é" }, event_id: eventId },
        rpc: (ops, ctx) =>
          ops.append(ctx, { stream_id: stream, event_type: "A", data: { n: 1, s: "é" }, event_id: eventId }),
      },
      {
        // A binary event (idempotent on its id: the second call answers what the first did).
        operation: "append",
        method: "POST",
        path: `/v1/streams/${stream}-bin/append`,
        body: { event_type: "D", data_base64: "/wA=", metadata_base64: "", event_id: binaryEventId },
        rpc: (ops, ctx) =>
          ops.append(ctx, {
            stream_id: `${stream}-bin`,
            event_type: "D",
            data_base64: "/wA=",
            metadata_base64: "",
            event_id: binaryEventId,
          }),
      },
      {
        operation: "read",
        method: "GET",
        path: `/v1/streams/${stream}?from=1&limit=2`,
        rpc: (ops, ctx) => ops.read(ctx, { stream_id: stream, from: 1, limit: 2 }),
      },
      {
        operation: "read",
        method: "GET",
        path: `/v1/streams/${stream}?direction=backward`,
        rpc: (ops, ctx) => ops.read(ctx, { stream_id: stream, direction: "backward" }),
      },
      {
        operation: "getInfo",
        method: "GET",
        path: `/v1/streams/${stream}/info`,
        rpc: (ops, ctx) => ops.getInfo(ctx, { stream_id: stream }),
      },
      {
        operation: "list",
        method: "GET",
        path: `/v1/streams?prefix=parity-&limit=1`,
        rpc: (ops, ctx) => ops.list(ctx, { prefix: "parity-", limit: 1 }),
      },
      {
        operation: "readAll",
        method: "GET",
        path: `/v1/events?from_position=0&limit=2`,
        rpc: (ops, ctx) => ops.readAll(ctx, { from_position: 0, limit: 2 }),
      },
      {
        operation: "setRetention",
        method: "PUT",
        path: `/v1/streams/${stream}/retention`,
        body: { max_count: 100 },
        rpc: (ops, ctx) => ops.setRetention(ctx, { stream_id: stream, max_count: 100 }),
        varying: ["updated_at"],
      },
      {
        operation: "delete",
        method: "DELETE",
        path: `/v1/streams/${stream}-gone`,
        rpc: (ops, ctx) => ops.delete(ctx, { stream_id: `${stream}-gone` }),
        varying: ["updated_at"],
      },
      {
        operation: "delete",
        method: "DELETE",
        // Refused alike (WRONG_EXPECTED_REVISION): the name was never used.
        path: `/v1/streams/${stream}-tomb?tombstone=true&expected_revision=stream_exists`,
        rpc: (ops, ctx) =>
          ops.delete(ctx, {
            stream_id: `${stream}-tomb`,
            tombstone: true,
            expected_revision: "stream_exists",
          }),
      },
      {
        operation: "setMetadata",
        method: "PUT",
        path: `/v1/streams/${stream}/metadata`,
        body: { metadata: { owner: "é", n: [1, 2], $maxCount: 100 } },
        rpc: (ops, ctx) =>
          ops.setMetadata(ctx, { stream_id: stream, metadata: { owner: "é", n: [1, 2], $maxCount: 100 } }),
        varying: ["metadata_revision"],
      },
      {
        operation: "getMetadata",
        method: "GET",
        path: `/v1/streams/${stream}/metadata`,
        rpc: (ops, ctx) => ops.getMetadata(ctx, { stream_id: stream }),
      },
      {
        operation: "listStreams",
        method: "GET",
        path: `/v1/admin/streams?tenant=default&limit=5`,
        rpc: (ops, ctx) => ops.listStreams(ctx, { tenant: "default", limit: 5 }),
      },
      {
        operation: "verify",
        method: "GET",
        path: "/v1/admin/verify",
        rpc: (ops, ctx) => ops.verify(ctx),
        varying: ["duration_ms"],
      },
      {
        operation: "getStorageStatus",
        method: "GET",
        path: "/v1/admin/storage-status",
        rpc: (ops, ctx) => ops.getStorageStatus(ctx),
      },
      {
        operation: "listTenants",
        method: "GET",
        path: "/v1/admin/tenants?limit=10",
        rpc: (ops, ctx) => ops.listTenants(ctx, { limit: 10 }),
      },
      {
        operation: "getTenant",
        method: "GET",
        path: "/v1/admin/tenants/default",
        rpc: (ops, ctx) => ops.getTenant(ctx, { tenant_id: "default" }),
      },
      {
        operation: "scavenge",
        method: "POST",
        path: "/v1/admin/scavenge",
        body: { dry_run: true },
        rpc: (ops, ctx) => ops.scavenge(ctx, { dry_run: true }),
        varying: ["duration_ms"],
      },
      // The two job listings first: the startJob case adds jobs that then run.
      {
        operation: "getJob",
        method: "GET",
        // Read when the case runs: the job is started in before(), after the cases are declared.
        get path() {
          return doneJobId === "" ? "/v1/admin/jobs/{id}" : `/v1/admin/jobs/${doneJobId}`;
        },
        rpc: (ops, ctx) => ops.getJob(ctx, { job_id: doneJobId }),
      },
      {
        operation: "listJobs",
        method: "GET",
        path: "/v1/admin/jobs?limit=5",
        rpc: (ops, ctx) => ops.listJobs(ctx, { limit: 5 }),
      },
      {
        operation: "startJob",
        method: "POST",
        path: "/v1/admin/jobs",
        body: { kind: "scavenge", dry_run: true },
        status: 202,
        rpc: (ops, ctx) => ops.startJob(ctx, { kind: "scavenge", dry_run: true }),
        varying: ["job_id", "created_at"],
      },
      {
        operation: "createUser",
        method: "POST",
        path: "/v1/admin/users",
        body: { username: `new-rest-${mode}`, password: "password-1", tenant_id: "acme", role: "writer" },
        status: 201,
        rpc: (ops, ctx) =>
          ops.createUser(ctx, {
            username: `new-rpc-${mode}`,
            password: "password-1",
            tenant_id: "acme",
            role: "writer",
          }),
        varying: ["username", "created_at"],
      },
      {
        operation: "listUsers",
        method: "GET",
        path: "/v1/admin/users?limit=3",
        rpc: (ops, ctx) => ops.listUsers(ctx, { limit: 3 }),
      },
      {
        operation: "deleteUser",
        method: "DELETE",
        path: `/v1/admin/users/old-1-${mode}`,
        rpc: (ops, ctx) => ops.deleteUser(ctx, { username: `old-2-${mode}` }),
        varying: ["username", "created_at"],
      },
    ];

    test("every mapped operation has a parity case", () => {
      const covered = new Set(cases().map((c) => c.operation));
      for (const route of routes)
        if (route.operationId !== "openapi") assert.ok(covered.has(route.operationId), route.operationId);
    });

    for (const c of cases()) {
      test(`${c.method} ${c.path.replace(/parity-[0-9a-f-]+/, "parity-…")} answers what ${c.operation} answers over gRPC`, async (t) => {
        const rest = await http(target, c.method, c.path, {
          token: admin,
          ...(c.body === undefined ? {} : { body: c.body }),
        });
        let rpc: unknown;
        try {
          rpc = await c.rpc(target.rpc, { token: admin });
        } catch (error) {
          // Both must then fail the same way (an operation the engine does not offer yet, say).
          const failure = error as { code: string; message: string };
          assert.deepEqual((rest.body as { error: { code: string } }).error.code, failure.code, rest.text);
          t.diagnostic(`both failed with ${failure.code}: ${failure.message}`);
          return;
        }
        assert.equal(rest.status, c.status ?? 200, rest.text);
        assert.deepEqual(withoutVarying(rest.body, c.varying), withoutVarying(asJson(rpc), c.varying));
        // JSON payloads are spliced in as their stored text.
        const events = (rpc as { events?: EventRecord[] }).events;
        for (const event of Array.isArray(events) ? events : []) {
          if (typeof event.data === "string" && typeof event.metadata === "string") {
            assert.ok(rest.text.includes(`"data":${event.data},"metadata":${event.metadata}`), rest.text);
          }
        }
      });
    }
  });
}

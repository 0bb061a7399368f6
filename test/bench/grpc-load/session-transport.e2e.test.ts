// The load generator's session transport (bench/grpc-load/session-transport.ts: sessions
// straight over node:http2) against the real server, beside the product client (grpc-js): the
// same results, errors and endings; the scenarios every client passes
// (test/client/session-scenarios.ts); and what only this transport does: an idle session that
// was never closed lets the process exit.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createLoadClient } from "../../../bench/grpc-load/load-client.js";
import type { RpcClient } from "../../../src/client/rpc-client.js";
import type { EssError } from "../../../src/errors.js";
import type { CallContext } from "../../../src/operations/contract.js";
import { Payload } from "../../../src/contract/payload.js";
import { startTestService, type TestService } from "../../rpc/service-harness.js";
import { essError, outputOfChildThatExits } from "../../client/client-under-test.js";
import { event, sessionScenarios } from "../../client/session-scenarios.js";
import { loadClient } from "./load-client-under-test.js";

let ts: TestService;
/** The load client of the service; `ts.client` is the product client. */
let load: RpcClient;
let writer: CallContext;

before(async () => {
  ts = await startTestService();
  load = createLoadClient({ address: ts.address, deadlineMs: 20_000 });
  writer = await ts.userContext("session-writer", "acme", "writer");
});

after(async () => {
  load.close();
  await ts.close();
});

function described(error: EssError) {
  return { code: error.code, message: error.message, details: error.details };
}

test("a session answers the same over the load client's transport and through the product client (grpc-js)", async () => {
  const outcomes = [];
  // The same stream names in a tenant of each transport's own, so that the answers compare whole.
  for (const [name, client] of [
    ["load", load],
    ["product", ts.client],
  ] as const) {
    const ctx = await ts.userContext(`same-${name}`, `same-${name}`, "writer");
    const session = client.openAppendSession(ctx);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => session.append({ stream_id: `same-${i % 4}`, ...event(i) })),
    );
    const conflict = await essError(
      session.append({ stream_id: "same-0", expected_revision: 3, ...event(-1) }),
    );
    const tooLarge = await essError(
      session.append({ stream_id: "same-0", event_type: "E", data: { big: "x".repeat(2_000_000) } }),
    );
    // The session goes on after failed appends.
    const after = await session.append({ stream_id: "same-0", expected_revision: 49, ...event(200) });
    await session.close();
    const closed = await essError(session.append({ stream_id: "same-0", ...event(201) }));
    const refused = client.openAppendSession({ token: "not-a-jwt" });
    const unauthenticated = await essError(refused.append({ stream_id: "same-0", ...event(202) }));
    await refused.close();

    assert.equal(new Set(results.map((r) => `${r.stream_id}/${r.last_revision}`)).size, 200);
    for (let s = 0; s < 4; s++) {
      const read = await ts.client.read(ctx, { stream_id: `same-${s}`, limit: 100 });
      assert.equal(read.events.length, s === 0 ? 51 : 50, `${name}: every answered append stored once`);
    }
    outcomes.push({
      after: { first_revision: after.first_revision, count: after.count },
      conflict: described(conflict),
      tooLarge: described(tooLarge),
      closed: described(closed),
      unauthenticated: described(unauthenticated),
    });
  }
  const [viaLoad, viaProduct] = outcomes;
  assert.deepEqual(viaLoad, viaProduct);
  assert.equal(viaLoad?.conflict.code, "WRONG_EXPECTED_REVISION");
  assert.equal(viaLoad?.tooLarge.code, "PAYLOAD_TOO_LARGE");
  assert.equal(viaLoad?.closed.code, "UNAVAILABLE");
  assert.equal(viaLoad?.unauthenticated.code, "UNAUTHENTICATED");
  assert.deepEqual(viaLoad?.after, { first_revision: 50, count: 1 });
});

test("a read session answers the same over the load client's transport and through the product client (grpc-js)", async () => {
  const writes = Array.from({ length: 30 }, (_, i) => ({
    event_type: "E",
    data: Payload.fromText(`{"i":${i},"text":"é ✓"}`),
    metadata: i % 2 === 0 ? { i } : undefined,
  }));
  await ts.client.append(writer, { stream_id: "read-same", events: writes });
  const requests = [
    { stream_id: "read-same" },
    { stream_id: "read-same", from: 7, limit: 5 },
    { stream_id: "read-same", direction: "backward" as const, limit: 3 },
    { stream_id: "read-same-missing" },
    { stream_id: "read-same", tenant: "another-tenant" },
  ];
  const outcomes = [];
  for (const client of [load, ts.client]) {
    const session = client.openReadSession(writer);
    outcomes.push(
      await Promise.all(
        requests.map((request) =>
          session.read(request).then(
            (result) => ({ result }),
            (error: EssError) => described(error),
          ),
        ),
      ),
    );
    await session.close();
  }
  const [viaLoad, viaProduct] = outcomes;
  assert.deepEqual(viaLoad, viaProduct);
  assert.equal((viaLoad?.[0] as { result: { events: unknown[] } }).result.events.length, 30);
  assert.deepEqual(
    viaLoad?.slice(3).map((outcome) => (outcome as { code: string }).code),
    ["STREAM_NOT_FOUND", "PERMISSION_DENIED"],
  );
});

sessionScenarios(loadClient);

test("an idle session never closed lets the process exit", async () => {
  // A child opens a session, gets one answer, and never closes anything: it must exit by itself.
  const payloadModule = fileURLToPath(new URL("../../../src/contract/payload.js", import.meta.url));
  const script =
    `const { createLoadClient } = await import(${JSON.stringify(loadClient.module)});` +
    `const { Payload } = await import(${JSON.stringify(payloadModule)});` +
    `const c = createLoadClient({ address: ${JSON.stringify(ts.address)} });` +
    `const s = c.openAppendSession({ token: ${JSON.stringify(writer.token)} });` +
    `const r = await s.append({ stream_id: "idle-child", event_type: "E", data: Payload.fromText("{}") });` +
    `process.stdout.write(String(r.count));`;
  assert.equal(await outputOfChildThatExits(script), "1");
});

// Several appends in one Streams.AppendSession message on the log engine, through the fast
// carrier and through grpc-js alone (SERVICE_RPC_FAST_CARRIER=false): the scenarios of
// ./append-session-batched-scenarios.ts, and the product client's appends joined into messages
// against the real service.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { CallContext } from "../../src/operations/contract.js";
import { Payload } from "../../src/contract/payload.js";
import { batchedSessionScenarios } from "./append-session-batched-scenarios.js";
import { startTestService, type TestService } from "./service-harness.js";

const services: Record<string, { ts?: TestService; writer?: CallContext }> = { fast: {}, "grpc-js": {} };

before(async () => {
  for (const [name, settings] of [
    ["fast", {}],
    ["grpc-js", { SERVICE_RPC_FAST_CARRIER: "false" }],
  ] as const) {
    const ts = await startTestService(settings);
    services[name] = { ts, writer: await ts.userContext(`w-${name}`, "acme", "writer") };
  }
});

after(async () => {
  for (const { ts } of Object.values(services)) await ts?.close();
});

for (const name of ["fast", "grpc-js"]) {
  batchedSessionScenarios(`log engine, ${name}`, {
    service: () => services[name]!.ts!,
    writer: () => services[name]!.writer!,
    groupCommits: async () => (await services[name]!.ts!.service.engine.status()).writer!.batches,
    // The appends of one message reach the log writer in one turn: one group commit.
    groupsPerMessageMax: () => 1,
    oneGroup: true,
  });
}

test("the product client's concurrent appends go in few messages and few group commits, each with its own result", async () => {
  const { ts, writer } = services.fast!;
  const session = ts!.client.openAppendSession(writer!);
  await session.append({ stream_id: "joined-warm", event_type: "E", data: Payload.fromText("{}") });
  const before = (await ts!.service.engine.status()).writer!.batches;
  const count = 64;
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      session
        .append({
          stream_id: `joined-${i % 8}`,
          event_type: "E",
          data: Payload.fromText(`{"i":${i}}`),
          ...(i === 5 ? { expected_revision: 99 } : {}),
        })
        .then(
          (result) => result,
          (error: Error) => error,
        ),
    ),
  );
  const groups = (await ts!.service.engine.status()).writer!.batches - before;
  await session.close();
  results.forEach((result, i) => {
    if (i === 5)
      assert.ok(result instanceof Error && /expected/.test(result.message), JSON.stringify(result));
    else
      assert.ok(!(result instanceof Error) && result.stream_id === `joined-${i % 8}`, JSON.stringify(result));
  });
  assert.equal(groups, 1, `${count} appends requested together took ${groups} group commits`);
});

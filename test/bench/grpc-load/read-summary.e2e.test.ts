// The load client's summarized reads (bench/grpc-load/load-client.ts: readSummary and
// openReadSummarySession, what the bench:compare read cells call) against the real server: the
// same stream id, count and revisions as the product client's read of the same page, and the
// same EssErrors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createLoadClient, type LoadClient } from "../../../bench/grpc-load/load-client.js";
import type { ReadStreamResult } from "../../../src/contract/bodies.js";
import type { EssError } from "../../../src/errors.js";
import { Payload } from "../../../src/contract/payload.js";
import { startTestService, type TestService } from "../../rpc/service-harness.js";
import { essError } from "../../client/client-under-test.js";

let ts: TestService;
let load: LoadClient;

before(async () => {
  ts = await startTestService();
  load = createLoadClient({ address: ts.address, deadlineMs: 20_000 });
  await load.append(ts.admin, {
    stream_id: "summary-1",
    events: Array.from({ length: 150 }, (_, i) => ({
      event_type: "A",
      data: Payload.fromText(`{"i":${i}}`),
    })),
    expected_revision: "no_stream",
  });
});

after(async () => {
  load.close();
  await ts.close();
});

/** What a summary says of a fully decoded page. */
function summaryOf(result: ReadStreamResult) {
  const revisions = result.events.map((e) => e.revision);
  return {
    stream_id: result.stream_id,
    events: revisions.length,
    first_revision: revisions[0] ?? -1,
    last_revision: revisions[revisions.length - 1] ?? -1,
    consecutive: revisions.every((r, i) => i === 0 || r === revisions[i - 1]! + 1),
  };
}

function described(error: EssError) {
  return { code: error.code, message: error.message, details: error.details };
}

const requests = [
  { stream_id: "summary-1", limit: 100 },
  { stream_id: "summary-1", from: 120, limit: 100 },
  { stream_id: "summary-1", from: 149, limit: 10, direction: "backward" },
  { stream_id: "summary-1", from: 150, limit: 10 },
];

test("a unary summarized read says what the product client's read of the page says", async () => {
  for (const request of requests) {
    const summary = await load.readSummary(ts.admin, request);
    assert.deepEqual(summary, summaryOf(await ts.client.read(ts.admin, request)), JSON.stringify(request));
  }
  assert.deepEqual(await load.readSummary(ts.admin, requests[0]!), {
    stream_id: "summary-1",
    events: 100,
    first_revision: 0,
    last_revision: 99,
    consecutive: true,
  });
});

test("a summarized read in a session says what the product client's read says", async () => {
  const session = load.openReadSummarySession(ts.admin);
  for (const request of requests) {
    assert.deepEqual(
      await session.read(request),
      summaryOf(await ts.client.read(ts.admin, request)),
      JSON.stringify(request),
    );
  }
  await session.close();
});

test("a failed summarized read gives the product client's EssError", async () => {
  const denied = { stream_id: "summary-1", limit: 10 };
  const invalid = { stream_id: "summary-1", limit: 0 };
  const missing = { stream_id: "summary-none", limit: 10 };
  for (const [ctx, request] of [
    [{ token: null }, denied],
    [ts.admin, invalid],
    [ts.admin, missing],
  ] as const) {
    const expected = described(await essError(ts.client.read(ctx, request)));
    assert.deepEqual(described(await essError(load.readSummary(ctx, request))), expected);
    const session = load.openReadSummarySession(ctx);
    assert.deepEqual(described(await essError(session.read(request))), expected);
    await session.close().catch(() => undefined);
  }
});

// Several appends in one Streams.AppendSession message (docs/rpc.md, "Several appends in one
// message"), against a whole service: run by append-session-batched.e2e.test.ts (log engine, the
// fast carrier and grpc-js alone) and append-session-batched-postgres.int.test.ts. The session is
// driven message by message through a stock grpc-js client with proto-loader's codec, so each
// 'data' event is one answer message and each write one request message.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { limits } from "../../src/limits.js";
import type { CallContext } from "../../src/operations/contract.js";
import type { AppendRequest } from "../../src/rpc/generated/ess/v1/AppendRequest.js";
import type { AppendSessionRequest } from "../../src/rpc/generated/ess/v1/AppendSessionRequest.js";
import type { AppendSessionResponse__Output } from "../../src/rpc/generated/ess/v1/AppendSessionResponse.js";
import type { AppendSessionOutcome__Output } from "../../src/rpc/generated/ess/v1/AppendSessionOutcome.js";
import type { TestService } from "./service-harness.js";

export interface BatchedScenarioSetup {
  /** The service under test (started before the scenarios run). */
  service(): TestService;
  /** A writer of tenant "acme" on it. */
  writer(): CallContext;
  /** Group commits the engine made so far; null when the engine does not count them. */
  groupCommits(): Promise<number | null>;
  /** The largest number of group commits one message of `count` appends may take when idle. */
  groupsPerMessageMax(count: number): number;
  /**
   * Whether a message's appends are committed as one group, so that each sees the ones before it
   * (the log engine); PostgreSQL may run the first two in transactions of their own, side by side.
   */
  oneGroup: boolean;
}

/** A session driven message by message; every answer message is kept as it came. */
function rawSession(ts: TestService, ctx: CallContext) {
  const call = ts.client.grpc.streams.AppendSession(ts.client.metadataFor(ctx));
  const messages: AppendSessionResponse__Output[] = [];
  call.on("data", (response: AppendSessionResponse__Output) => messages.push(response));
  call.on("error", () => undefined);
  const status = new Promise<grpc.StatusObject>((resolve) => call.on("status", resolve));
  /** Every answer so far, one per append, whichever message carried it. */
  const answers = (): AppendSessionOutcome__Output[] =>
    messages.flatMap((m) => [
      { correlation_id: m.correlation_id, result: m.result, error: m.error, outcome: m.outcome },
      ...m.outcomes,
    ]);
  return {
    call,
    messages,
    status,
    answers,
    send: (message: AppendSessionRequest) => call.write(message),
    async answered(count: number): Promise<Map<number, AppendSessionOutcome__Output>> {
      while (answers().length < count) await new Promise((resolve) => call.once("data", resolve));
      return new Map(answers().map((a) => [a.correlation_id, a]));
    },
  };
}

const event = (i: number | string) => ({ event_type: "E", data: Buffer.from(`{"i":${JSON.stringify(i)}}`) });

/** A message of `appends` (the first in fields 1 and 2, the rest in `appends`). */
function message(appends: { correlation_id: number; append: AppendRequest }[]): AppendSessionRequest {
  const [first, ...rest] = appends;
  return { correlation_id: first!.correlation_id, append: first!.append, appends: rest };
}

export function batchedSessionScenarios(name: string, setup: BatchedScenarioSetup): void {
  test(`${name}: many appends in one message each get their own result, in one group commit and few answer messages`, async () => {
    const ts = setup.service();
    const raw = rawSession(ts, setup.writer());
    const count = 50;
    const before = await setup.groupCommits();
    raw.send(
      message(
        Array.from({ length: count }, (_, i) => ({
          correlation_id: 1000 + i,
          append: { stream_id: `batched-${name}-${i % 5}`, events: [event(i), event(`${i}b`)] },
        })),
      ),
    );
    const byId = await raw.answered(count);
    assert.equal(raw.answers().length, count, "one answer per append");
    const positions = new Set<number>();
    for (let i = 0; i < count; i++) {
      const answer = byId.get(1000 + i);
      assert.equal(answer?.outcome, "result", `append ${i}: ${JSON.stringify(answer?.error)}`);
      assert.equal(answer.result?.stream_id, `batched-${name}-${i % 5}`);
      assert.equal(answer.result?.count, 2);
      positions.add(answer.result?.position ?? -1);
    }
    assert.equal(positions.size, count, "each append has its own position");
    assert.ok(raw.messages.length < count, `${count} answers came in ${raw.messages.length} messages`);
    const after = await setup.groupCommits();
    if (before !== null && after !== null) {
      assert.ok(
        after - before <= setup.groupsPerMessageMax(count),
        `one message's appends took ${after - before} group commits`,
      );
    }
    // Each stream holds its appends' events, each once.
    for (let s = 0; s < 5; s++) {
      const read = await ts.client.read(setup.writer(), { stream_id: `batched-${name}-${s}`, limit: 1000 });
      assert.equal(read.events.length, (count / 5) * 2);
    }
    raw.call.end();
    assert.equal((await raw.status).code, grpc.status.OK);
  });

  test(`${name}: one bad append in a message fails alone with its own error; the others are stored and the session goes on`, async () => {
    const ts = setup.service();
    const writer = setup.writer();
    const stream = `bad-one-${name}`;
    await ts.client.append(writer, { stream_id: stream, event_type: "E", data: {} });
    const raw = rawSession(ts, writer);
    const big = Buffer.from(JSON.stringify({ big: "x".repeat(limits.eventBytesMax) }));
    const appends: { correlation_id: number; append: AppendRequest; fails?: string }[] = [
      { correlation_id: 1, append: { stream_id: stream, events: [event(1)] } },
      {
        correlation_id: 2,
        append: { stream_id: stream, events: [event(2)], expected_revision: "7" },
        fails: "WRONG_EXPECTED_REVISION",
      },
      {
        correlation_id: 3,
        append: { stream_id: stream, events: [{ event_type: "E", data: Buffer.from("{not json") }] },
        fails: "INVALID_JSON",
      },
      { correlation_id: 4, append: { stream_id: stream, events: [event(4)] } },
      {
        correlation_id: 5,
        append: { stream_id: stream, events: [{ event_type: "E", data: big }] },
        fails: "PAYLOAD_TOO_LARGE",
      },
      { correlation_id: 6, append: { stream_id: "$bad", events: [event(6)] }, fails: "INVALID_ARGUMENT" },
      { correlation_id: 7, append: { stream_id: "", events: [event(7)] }, fails: "INVALID_ARGUMENT" },
      { correlation_id: 8, append: { stream_id: stream, events: [event(8)] } },
    ];
    raw.send(message(appends));
    const byId = await raw.answered(appends.length);
    for (const { correlation_id, fails } of appends) {
      const answer = byId.get(correlation_id)!;
      if (fails === undefined) assert.equal(answer.outcome, "result", `append ${correlation_id}`);
      else {
        assert.equal(answer.outcome, "error", `append ${correlation_id}`);
        assert.equal(answer.error?.code, fails, `append ${correlation_id}: ${answer.error?.message}`);
      }
    }
    // The appends before it in the message were committed with it, in the message's order.
    const details = JSON.parse(byId.get(2)!.error!.details.toString()) as { actual: number };
    assert.deepEqual(details, {
      stream_id: stream,
      expected: 7,
      actual: setup.oneGroup ? 1 : details.actual,
    });
    // On PostgreSQL it may run before, beside or after any of the other three.
    assert.ok(details.actual >= 0 && details.actual <= 3, `actual ${details.actual}`);
    // One group keeps the message's order; PostgreSQL may commit a message's appends in more than
    // one transaction, and independent appends in concurrent transactions land in either order.
    const order = (values: (number | undefined)[]) => (setup.oneGroup ? values : [...values].sort());
    assert.deepEqual(order([1, 4, 8].map((n) => byId.get(n)?.result?.last_revision)), [1, 2, 3]);
    const read = await ts.client.read(writer, { stream_id: stream });
    const stored = read.events.map((e) => (JSON.parse(e.data as string) as { i?: number }).i);
    assert.equal(stored[0], undefined, "the first event");
    assert.deepEqual(order(stored.slice(1)), [1, 4, 8], "the three good appends");
    for (const n of [1, 4, 8]) {
      assert.equal(stored[byId.get(n)!.result!.last_revision], n, `append ${n} answered its own revision`);
    }
    // The session goes on: a one-append message after it.
    raw.send({
      correlation_id: 9,
      append: { stream_id: stream, events: [event(9)], expected_revision: "3" },
    });
    const next = await raw.answered(appends.length + 1);
    assert.equal(next.get(9)?.result?.last_revision, 4);
    raw.call.end();
    assert.equal((await raw.status).code, grpc.status.OK);
  });

  test(`${name}: a malformed message (an entry without its append, or more than sessionAppendsPerMessageMax) ends the session; none of it runs`, async () => {
    const ts = setup.service();
    const writer = setup.writer();
    const stream = `malformed-${name}`;
    const tooMany = Array.from({ length: limits.sessionAppendsPerMessageMax + 1 }, (_, i) => ({
      correlation_id: i + 1,
      append: { stream_id: stream, events: [event(i)] },
    }));
    const cases: { request: AppendSessionRequest; says: RegExp }[] = [
      {
        request: {
          correlation_id: 1,
          append: { stream_id: stream, events: [event(1)] },
          appends: [
            { correlation_id: 2 },
            { correlation_id: 3, append: { stream_id: stream, events: [event(3)] } },
          ],
        },
        says: /session request 2 carries no append/,
      },
      { request: message(tooMany), says: /at most 256 requests; this one carries 257/ },
    ];
    for (const { request, says } of cases) {
      const raw = rawSession(ts, writer);
      // An earlier message is answered before the session ends.
      raw.send({ correlation_id: 100, append: { stream_id: `${stream}-before`, events: [event(0)] } });
      raw.send(request);
      const status = await raw.status;
      assert.equal(status.code, grpc.status.INVALID_ARGUMENT);
      assert.match(status.details, says);
      assert.equal(status.metadata.get("error-code")[0], "INVALID_ARGUMENT");
      assert.deepEqual(
        raw.answers().map((a) => a.correlation_id),
        [100],
      );
    }
    await assert.rejects(ts.client.read(writer, { stream_id: stream }), /not found|STREAM_NOT_FOUND/i);
  });

  test(`${name}: a client that sends one append per message (an older client) gets one answer per message`, async () => {
    const ts = setup.service();
    const raw = rawSession(ts, setup.writer());
    const count = 40;
    raw.call.cork();
    for (let i = 0; i < count; i++)
      raw.send({ correlation_id: i + 1, append: { stream_id: `old-${name}-${i % 4}`, events: [event(i)] } });
    raw.call.uncork();
    await raw.answered(count);
    assert.equal(raw.messages.length, count);
    for (const m of raw.messages) {
      assert.deepEqual(m.outcomes, [], "no answer message carries a second answer");
      assert.equal(m.outcome, "result");
    }
    raw.call.end();
    assert.equal((await raw.status).code, grpc.status.OK);
  });

  test(`${name}: an append sent twice in one message, and again in a later one, is stored once (idempotent event ids)`, async () => {
    const ts = setup.service();
    const writer = setup.writer();
    const stream = `idem-${name}`;
    const id = (n: number) => `0b0f6f5e-5d0e-4c43-9f0a-2a1f0f6d9e${String(n).padStart(2, "0")}`;
    const append = (n: number): AppendRequest => ({
      stream_id: stream,
      events: [
        { ...event(n), event_id: id(n) },
        { ...event(`${n}b`), event_id: id(n + 50) },
      ],
    });
    const raw = rawSession(ts, writer);
    raw.send(
      message([
        { correlation_id: 1, append: append(1) },
        { correlation_id: 2, append: append(1) },
        { correlation_id: 3, append: append(2) },
      ]),
    );
    const first = await raw.answered(3);
    for (const n of [1, 2, 3])
      assert.equal(first.get(n)?.outcome, "result", JSON.stringify(first.get(n)?.error));
    assert.deepEqual(first.get(2)?.result, first.get(1)?.result, "the repeat answers as the first");
    raw.send(
      message([
        { correlation_id: 4, append: append(2) },
        { correlation_id: 5, append: append(1) },
      ]),
    );
    const again = await raw.answered(5);
    assert.deepEqual(again.get(4)?.result, first.get(3)?.result);
    assert.deepEqual(again.get(5)?.result, first.get(1)?.result);
    const read = await ts.client.read(writer, { stream_id: stream });
    const stored = read.events.map((e) => e.event_id);
    // Each append's two events once, at the revisions its answer gave (on PostgreSQL the two
    // appends may commit in either order, in concurrent transactions).
    assert.equal(stored.length, 4);
    for (const [n, answer] of [
      [1, first.get(1)],
      [2, first.get(3)],
    ] as const) {
      const at = answer!.result!.first_revision;
      assert.deepEqual(stored.slice(at, at + 2), [id(n), id(n + 50)], `append ${n}`);
    }
    if (setup.oneGroup) assert.deepEqual(stored, [id(1), id(51), id(2), id(52)]);
    raw.call.end();
    assert.equal((await raw.status).code, grpc.status.OK);
  });
}

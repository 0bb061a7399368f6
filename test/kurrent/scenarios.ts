// What an application written for KurrentDB does with KurrentDB's official Node client
// (@kurrent/kurrentdb-client), unchanged, against the real service with the KurrentDB listener
// on: scenarios that the log-engine and postgres-engine test files both run.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  AccessDeniedError,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  binaryEvent,
  eventTypeFilter,
  streamNameFilter,
  excludeSystemEvents,
  jsonEvent,
} from "@kurrent/kurrentdb-client";
import { KurrentDBClient } from "@kurrent/kurrentdb-client";
import { adminPassword, type KurrentRunning, collect } from "./harness.js";
import { createRpcClient } from "../../src/client/rpc-client.js";
import type { EventRecord } from "../../src/contract/bodies.js";
import { TestClient } from "../subscriptions/ws-client.js";

/** A client of `kurrentdb://CREDENTIALS@127.0.0.1:PORT?tls=false`, disposed when the service stops. */
function connect(
  ess: KurrentRunning,
  credentials: string | null = `admin:${adminPassword}`,
): KurrentDBClient {
  const auth = credentials === null ? "" : `${credentials}@`;
  const client = KurrentDBClient.connectionString`kurrentdb://${auth}127.0.0.1:${String(ess.port)}?tls=false`;
  ess.onStop(() => client.dispose());
  return client;
}

export interface KurrentScenario {
  name: string;
  /** Settings beyond the harness's (e.g. SERVICE_KURRENT_ANONYMOUS_USER). */
  settings: Record<string, string>;
  run(ess: KurrentRunning): Promise<void>;
}

export const kurrentScenarios: KurrentScenario[] = [
  {
    name: "an application appends and reads a stream through the KurrentDB client",
    settings: { SERVICE_KURRENT_ANONYMOUS_USER: "admin" },
    async run(ess) {
      const client = connect(ess);
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      const first = await client.appendToStream(
        "orders-1",
        ids.map((id, i) =>
          jsonEvent({ id, type: "OrderPlaced", data: { n: i, sku: "a-1" }, metadata: { by: "test" } }),
        ),
        { streamState: NO_STREAM },
      );
      assert.equal(first.success, true);
      assert.equal(first.nextExpectedRevision, 2n);

      const read = await collect(client.readStream("orders-1"));
      assert.deepEqual(
        read.map((e) => [e.event?.id, e.event?.type, e.event?.revision, e.event?.data, e.event?.metadata]),
        ids.map((id, i) => [id, "OrderPlaced", BigInt(i), { n: i, sku: "a-1" }, { by: "test" }]),
      );
      // The append's position is the last event's position, as the client's own tests expect.
      assert.deepEqual(read[2]?.event?.position, first.position);
      assert.ok(read.every((e) => e.event?.isJson === true));
      const created = read[0]?.event?.created;
      assert.ok(
        created instanceof Date && Math.abs(created.getTime() - Date.now()) < 60_000,
        String(created),
      );

      const backwards = await collect(
        client.readStream("orders-1", { direction: BACKWARDS, fromRevision: END, maxCount: 2 }),
      );
      assert.deepEqual(
        backwards.map((e) => e.event?.revision),
        [2n, 1n],
      );
      const fromOne = await collect(client.readStream("orders-1", { direction: FORWARDS, fromRevision: 1n }));
      assert.deepEqual(
        fromOne.map((e) => e.event?.revision),
        [1n, 2n],
      );
      const fromStart = await collect(client.readStream("orders-1", { fromRevision: START, maxCount: 1 }));
      assert.deepEqual(
        fromStart.map((e) => e.event?.id),
        [ids[0]],
      );
    },
  },
  {
    name: "KurrentDB answers the client expects: not found, wrong expected version, idempotent re-append",
    settings: { SERVICE_KURRENT_ANONYMOUS_USER: "admin" },
    async run(ess) {
      const client = connect(ess);
      await assert.rejects(collect(client.readStream("never-written")), StreamNotFoundError);

      const event = jsonEvent({ type: "Opened", data: { at: 1 } });
      await client.appendToStream("account-7", [event], { streamState: NO_STREAM });
      await assert.rejects(
        client.appendToStream("account-7", [jsonEvent({ type: "Opened", data: { at: 2 } })], {
          streamState: NO_STREAM,
        }),
        (error: unknown) => {
          assert.ok(error instanceof WrongExpectedVersionError, String(error));
          assert.equal(error.streamName, "account-7");
          assert.equal(error.actualState, 0n);
          assert.equal(error.expectedState, NO_STREAM);
          return true;
        },
      );
      await assert.rejects(
        client.appendToStream("account-7", [jsonEvent({ type: "Deposited", data: { amount: 5 } })], {
          streamState: 5n,
        }),
        (error: unknown) => error instanceof WrongExpectedVersionError && error.expectedState === 5n,
      );
      // The same event id again: the original result, nothing written twice.
      const again = await client.appendToStream("account-7", [event], { streamState: ANY });
      assert.equal(again.nextExpectedRevision, 0n);
      assert.equal((await collect(client.readStream("account-7"))).length, 1);
    },
  },
  {
    name: "an append of no events checks the expected revision and writes nothing",
    settings: { SERVICE_KURRENT_ANONYMOUS_USER: "admin" },
    async run(ess) {
      const client = connect(ess);
      // The answer is no_stream (test/kurrent/raw-protocol.e2e.test.ts), which this client reads as 0n.
      const none = await client.appendToStream("checked-1", [], { streamState: NO_STREAM });
      assert.equal(none.success, true);
      await assert.rejects(
        client.appendToStream("checked-1", [], { streamState: STREAM_EXISTS }),
        (error: unknown) => error instanceof WrongExpectedVersionError,
      );
      await client.appendToStream("checked-1", [jsonEvent({ type: "T", data: { i: 0 } })]);
      const exact = await client.appendToStream("checked-1", [], { streamState: 0n });
      assert.equal(exact.nextExpectedRevision, 0n);
      await assert.rejects(
        client.appendToStream("checked-1", [], { streamState: NO_STREAM }),
        (error: unknown) => error instanceof WrongExpectedVersionError && error.actualState === 0n,
      );
      assert.equal((await collect(client.readStream("checked-1"))).length, 1);
    },
  },
  {
    name: "without an anonymous user, calls without credentials are refused the KurrentDB way",
    settings: {},
    async run(ess) {
      // tls=false: the client sends no credentials on appends; its reads send Basic.
      const client = connect(ess);
      await assert.rejects(
        client.appendToStream("s", [jsonEvent({ type: "T", data: {} })]),
        (error: unknown) => error instanceof AccessDeniedError,
      );
      const wrong = connect(ess, "admin:not-the-password");
      await assert.rejects(
        collect(wrong.readStream("s")),
        (error: unknown) => error instanceof AccessDeniedError,
      );
    },
  },
  {
    name: "reads with Basic credentials act in the user's tenant; $all is the tenant's own order",
    settings: { SERVICE_KURRENT_ANONYMOUS_USER: "admin" },
    async run(ess) {
      const client = connect(ess);
      await client.appendToStream("a-1", [jsonEvent({ type: "T", data: { i: 1 } })]);
      await client.appendToStream("b-1", [jsonEvent({ type: "T", data: { i: 2 } })]);
      const all = await collect(client.readAll({ fromPosition: START, maxCount: 10 }));
      assert.deepEqual(
        all.map((e) => e.event?.streamId),
        ["a-1", "b-1"],
      );
      const second = all[1]?.event?.position;
      assert.ok(second);
      const fromSecond = await collect(client.readAll({ fromPosition: second, maxCount: 10 }));
      assert.deepEqual(
        fromSecond.map((e) => e.event?.streamId),
        ["b-1"],
        "a read from a position includes it",
      );
    },
  },
  {
    name: "a catch-up subscription gets the history, then live events, after its exclusive start",
    settings: { SERVICE_KURRENT_ANONYMOUS_USER: "admin" },
    async run(ess) {
      const client = connect(ess);
      await client.appendToStream(
        "live-1",
        [0, 1, 2, 3].map((i) => jsonEvent({ type: "T", data: { i } })),
      );
      const subscription = client.subscribeToStream("live-1", { fromRevision: 1n });
      let confirmations = 0;
      subscription.on("confirmation", () => confirmations++);
      const seen: bigint[] = [];
      let caughtUp = false;
      subscription.on("caughtUp", () => (caughtUp = true));
      for await (const event of subscription) {
        seen.push(event.event?.revision ?? -1n);
        if (seen.length === 2) {
          await client.appendToStream("live-1", [jsonEvent({ type: "T", data: { i: 4 } })]);
        }
        if (seen.length === 3) break;
      }
      await subscription.unsubscribe();
      assert.deepEqual(seen, [2n, 3n, 4n]);
      assert.equal(confirmations, 1);
      assert.equal(caughtUp, true);
    },
  },
  {
    name: "both append paths: BatchAppend (advertised, the client's default) and Append (per-call credentials)",
    settings: { SERVICE_KURRENT_ANONYMOUS_USER: "admin" },
    async run(ess) {
      const client = connect(ess);
      const credentials = { username: "admin", password: "admin-password" };
      // Per-call credentials make the client use the client-streaming Append.
      const viaAppend = await client.appendToStream(
        "paths",
        [jsonEvent({ type: "A", data: { via: "append" } })],
        {
          credentials,
          streamState: NO_STREAM,
        },
      );
      const viaBatch = await client.appendToStream(
        "paths",
        [jsonEvent({ type: "B", data: { via: "batch" } })],
        {
          streamState: 0n,
        },
      );
      assert.equal(viaAppend.nextExpectedRevision, 0n);
      assert.equal(viaBatch.nextExpectedRevision, 1n);
      for (const options of [{ credentials }, {}]) {
        await assert.rejects(
          client.appendToStream("paths", [jsonEvent({ type: "C", data: {} })], {
            ...options,
            streamState: 0n,
          }),
          (error: unknown) =>
            error instanceof WrongExpectedVersionError &&
            error.expectedState === 0n &&
            error.actualState === 1n,
        );
      }
      // A batch larger than the client's 3 MiB chunks arrives over several messages and is one append.
      const big = "x".repeat(200_000);
      const many = Array.from({ length: 18 }, (_, i) => jsonEvent({ type: "Big", data: { i, big } }));
      const result = await client.appendToStream("paths", many);
      assert.equal(result.nextExpectedRevision, 19n);
      const read = await collect(client.readStream("paths", { fromRevision: 2n }));
      assert.equal(read.length, 18);
    },
  },
  {
    name: "events cross interfaces unchanged: KurrentDB client <-> REST, gRPC ess.v1 and WebSocket",
    settings: {
      SERVICE_KURRENT_ANONYMOUS_USER: "admin",
      SERVICE_REST_ENABLED: "true",
      SERVICE_REST_ADDRESS: "127.0.0.1:0",
      SERVICE_WS_ENABLED: "true",
      SERVICE_WS_ADDRESS: "127.0.0.1:0",
    },
    async run(ess) {
      const client = connect(ess);
      const port = (name: string): number =>
        ess.service.listeners.find((l) => l.name === name)?.address.port ?? 0;
      const rpc = createRpcClient({ address: `127.0.0.1:${ess.service.rpcAddress.port}` });
      ess.onStop(() => Promise.resolve(rpc.close()));
      const login = await rpc.login({ token: null }, { username: "admin", password: adminPassword });
      const ctx = { token: login.access_token };
      const rest = async (path: string, init: RequestInit = {}): Promise<unknown> => {
        const response = await fetch(`http://127.0.0.1:${port("rest")}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${login.access_token}`, "content-type": "application/json" },
        });
        assert.equal(response.status, 200, await response.clone().text());
        return response.json();
      };

      const id = randomUUID();
      await client.appendToStream(
        "cross-1",
        jsonEvent({ id, type: "Shipped", data: { parcel: "p-1", kg: 2.5 }, metadata: { trace: "t" } }),
      );
      const [fromKurrent] = await collect(client.readStream("cross-1"));
      const viaRest = (await rest("/v1/streams/cross-1")) as { events: Record<string, unknown>[] };
      const viaRpc = await rpc.read(ctx, { stream_id: "cross-1" });
      const ws = await TestClient.open(port("ws"), login.access_token);
      ess.onStop(() => Promise.resolve(ws.close()));
      ws.subscribe("s1", "cross-1", 0);
      await ws.untilEvents("s1", 1);
      const viaWs = ws.eventsOf("s1")[0] as unknown as Record<string, unknown>;
      for (const [name, record] of [
        ["REST", viaRest.events[0]],
        ["WebSocket", viaWs],
      ] as const) {
        assert.equal(record?.event_id, id, name);
        assert.equal(record?.event_type, "Shipped", name);
        assert.deepEqual(record?.data, { parcel: "p-1", kg: 2.5 }, name);
        assert.deepEqual(record?.metadata, { trace: "t" }, name);
        assert.equal(BigInt(record?.position as number), fromKurrent?.event?.position?.commit, name);
        // The client's reads (its native bridge) keep whole seconds of `created`.
        const createdMs = Date.parse(record?.created_at as string);
        assert.equal(createdMs - (createdMs % 1000), fromKurrent?.event?.created.getTime(), name);
      }
      const rpcEvent = viaRpc.events[0] as EventRecord;
      assert.equal(rpcEvent.event_id, id);
      assert.equal(rpcEvent.content_type, "application/json");
      assert.deepEqual(JSON.parse(rpcEvent.data as string), { parcel: "p-1", kg: 2.5 });

      // And the other way: appended over REST, read by the KurrentDB client.
      await rest("/v1/streams/cross-2/append", {
        method: "POST",
        body: JSON.stringify({ event_type: "Packed", data: { box: 3 }, metadata: { by: "rest" } }),
      });
      const [fromRest] = await collect(client.readStream("cross-2"));
      assert.equal(fromRest?.event?.type, "Packed");
      assert.deepEqual(fromRest?.event?.data, { box: 3 });
      assert.deepEqual(fromRest?.event?.metadata, { by: "rest" });
    },
  },
  {
    name: "deletes, tombstones and stream metadata as KurrentDB applications use them",
    settings: { SERVICE_KURRENT_ANONYMOUS_USER: "admin" },
    async run(ess) {
      const client = connect(ess);
      const five = [0, 1, 2, 3, 4].map((i) => jsonEvent({ type: "T", data: { i } }));
      await client.appendToStream("meta-1", five);

      // Metadata: $maxCount hides older events at once; custom keys are kept.
      await client.setStreamMetadata("meta-1", { maxCount: 2, custom: { team: "billing" } } as never);
      const kept = await collect(client.readStream("meta-1"));
      assert.deepEqual(
        kept.map((e) => e.event?.revision),
        [3n, 4n],
      );
      const metadata = await client.getStreamMetadata("meta-1");
      assert.equal(metadata.metadata?.maxCount, 2);
      assert.deepEqual((metadata.metadata as Record<string, unknown> | undefined)?.custom, {
        team: "billing",
      });
      const none = await client.getStreamMetadata("never-had-metadata");
      assert.equal(none.metadata, undefined);

      // Soft delete: reads say not found; the next append continues the revisions.
      await assert.rejects(
        client.deleteStream("meta-1", { expectedRevision: 1n }),
        (error: unknown) => error instanceof WrongExpectedVersionError && error.streamName === "meta-1",
      );
      await client.deleteStream("meta-1", { expectedRevision: 4n });
      await assert.rejects(collect(client.readStream("meta-1")), StreamNotFoundError);
      const continued = await client.appendToStream("meta-1", jsonEvent({ type: "T", data: { i: 5 } }));
      assert.equal(continued.nextExpectedRevision, 5n);

      // Tombstone: reads and appends (both append paths) answer "stream deleted", for good.
      await client.appendToStream("gone-1", jsonEvent({ type: "T", data: {} }));
      await client.tombstoneStream("gone-1");
      await assert.rejects(collect(client.readStream("gone-1")), StreamDeletedError);
      await assert.rejects(
        client.appendToStream("gone-1", jsonEvent({ type: "T", data: {} })),
        (error: unknown) => error instanceof StreamDeletedError,
      );
      await assert.rejects(
        client.appendToStream("gone-1", jsonEvent({ type: "T", data: {} }), {
          credentials: { username: "admin", password: adminPassword },
        }),
        (error: unknown) => error instanceof StreamDeletedError,
      );
    },
  },
  {
    name: "binary events, any JSON value, backward and filtered $all, filtered subscriptions with checkpoints",
    settings: { SERVICE_KURRENT_ANONYMOUS_USER: "admin" },
    async run(ess) {
      const client = connect(ess);
      const bytes = new Uint8Array([0xff, 0x00, 0xfe, 0x80]);
      await client.appendToStream("bin-1", [
        binaryEvent({ type: "Blob", data: bytes, metadata: new Uint8Array([1, 2]) }),
        jsonEvent({ type: "List", data: [1, "two", null] as never }),
      ]);
      const [blob, list] = await collect(client.readStream("bin-1"));
      assert.equal(blob?.event?.isJson, false);
      assert.deepEqual(Buffer.from(blob?.event?.data), Buffer.from(bytes));
      assert.deepEqual(Buffer.from(blob?.event?.metadata as Uint8Array), Buffer.from([1, 2]));
      assert.deepEqual(list?.event?.data, [1, "two", null]);

      for (let i = 0; i < 5; i++) {
        await client.appendToStream(
          `orders-${i}`,
          jsonEvent({ type: i % 2 === 0 ? "Placed" : "Paid", data: { i } }),
        );
      }
      const all = await collect(client.readAll({ fromPosition: START, maxCount: 100 }));
      const backwards = await collect(
        client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 3 }),
      );
      assert.deepEqual(
        backwards.map((e) => e.event?.streamId),
        ["orders-4", "orders-3", "orders-2"],
      );
      const byPrefix = await collect(
        client.readAll({
          fromPosition: START,
          maxCount: 100,
          filter: streamNameFilter({ prefixes: ["orders-"] }),
        }),
      );
      assert.equal(byPrefix.length, 5);
      const byType = await collect(
        client.readAll({ fromPosition: START, maxCount: 100, filter: eventTypeFilter({ regex: "^Pa" }) }),
      );
      assert.deepEqual(
        byType.map((e) => e.event?.streamId),
        ["orders-1", "orders-3"],
      );
      const userEvents = await collect(
        client.readAll({ fromPosition: START, maxCount: 100, filter: excludeSystemEvents() }),
      );
      assert.equal(userEvents.length, 7);

      // The history ends on an event the filter passes over: a checkpoint past it comes first.
      await client.appendToStream("orders-5", jsonEvent({ type: "Paid", data: { i: 5 } }));
      const checkpoints: bigint[] = [];
      const subscription = client.subscribeToAll({
        fromPosition: START,
        filter: eventTypeFilter({
          prefixes: ["Placed"],
          checkpointReached: (_subscription, position) => {
            checkpoints.push(position.commit);
            return Promise.resolve();
          },
        }),
      });
      const seen: string[] = [];
      for await (const event of subscription) {
        seen.push(event.event?.streamId ?? "?");
        if (seen.length === 3) await client.appendToStream("late-1", jsonEvent({ type: "Placed", data: {} }));
        if (seen.length === 4) break;
      }
      await subscription.unsubscribe();
      assert.deepEqual(seen, ["orders-0", "orders-2", "orders-4", "late-1"]);
      const lastPlaced = all.find((e) => e.event?.streamId === "orders-4");
      assert.ok(checkpoints.length >= 1, "a filtered subscription reports checkpoints");
      assert.ok(
        checkpoints.every((p) => p >= (lastPlaced?.event?.position?.commit ?? 0n)),
        String(checkpoints),
      );
    },
  },
];

// The older pure-JS client, @eventstore/db-client 6.x, against the real service with the
// KurrentDB listener on. It takes other code paths than @kurrent/kurrentdb-client: its reads go
// through grpc-js (not a native bridge) and it parses answers with google-protobuf itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
} from "@eventstore/db-client";
import { adminPassword, serveKurrent, collect } from "./harness.js";

test("the legacy @eventstore/db-client appends, reads, reads $all and subscribes", async () => {
  const ess = await serveKurrent({ SERVICE_KURRENT_ANONYMOUS_USER: "admin" });
  const client = EventStoreDBClient.connectionString`esdb://admin:${adminPassword}@127.0.0.1:${String(ess.port)}?tls=false`;
  ess.onStop(() => client.dispose());
  try {
    await assert.rejects(collect(client.readStream("legacy-1")), StreamNotFoundError);
    const appended = await client.appendToStream(
      "legacy-1",
      [1, 2, 3].map((n) => jsonEvent({ type: "Counted", data: { n } })),
      { expectedRevision: NO_STREAM },
    );
    assert.equal(appended.nextExpectedRevision, 2n);
    await assert.rejects(
      client.appendToStream("legacy-1", [jsonEvent({ type: "Counted", data: { n: 4 } })], {
        expectedRevision: 1n,
      }),
      (error: unknown) => error instanceof WrongExpectedVersionError,
    );

    const forwards = await collect(client.readStream("legacy-1", { fromRevision: START }));
    assert.deepEqual(
      forwards.map((e) => e.event?.data),
      [{ n: 1 }, { n: 2 }, { n: 3 }],
    );
    const backwards = await collect(
      client.readStream("legacy-1", { direction: BACKWARDS, fromRevision: END, maxCount: 1 }),
    );
    assert.deepEqual(
      backwards.map((e) => e.event?.revision),
      [2n],
    );
    const all = await collect(client.readAll({ fromPosition: START, maxCount: 100 }));
    assert.deepEqual(
      all.map((e) => [e.event?.streamId, e.event?.revision]),
      [
        ["legacy-1", 0n],
        ["legacy-1", 1n],
        ["legacy-1", 2n],
      ],
    );

    const subscription = client.subscribeToAll({ fromPosition: START });
    const seen: string[] = [];
    for await (const event of subscription) {
      seen.push(`${event.event?.streamId}@${event.event?.revision}`);
      if (seen.length === 3) await client.appendToStream("legacy-2", [jsonEvent({ type: "Live", data: {} })]);
      if (seen.length === 4) break;
    }
    await subscription.unsubscribe();
    assert.deepEqual(seen, ["legacy-1@0", "legacy-1@1", "legacy-1@2", "legacy-2@0"]);
  } finally {
    await ess.stop();
  }
});

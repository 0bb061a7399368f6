// Streams.ReadSession on the postgres engine, whose reads answer asynchronously: a client that
// sends many reads of ~1 MB pages and takes no answer must not make the server start them all.
// Each running read counts a whole page against limits.sessionUnwrittenBytesMax until its answer
// is weighed (docs/rpc.md, "Pipelined reads"). The reads are held in PostgreSQL by a lock while
// the session receives them, so without that reservation every one of them starts, and all of
// them run once the lock goes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import pg from "pg";
import { limits } from "../../src/limits.js";
import type { CallContext } from "../../src/operations/contract.js";
import { createTestDatabase, type TestDatabase } from "../storage/postgres-test-database.js";
import {
  appendHeavyPage,
  readsRunCounter,
  heavyPageBytes,
  heavyReadSession,
  startTestService,
  steadyCount,
  type TestService,
} from "./service-harness.js";

let db: TestDatabase;
let ts: TestService;
let reads: ReturnType<typeof readsRunCounter>;
let writer: CallContext;

before(async () => {
  db = await createTestDatabase();
  ts = await startTestService({ SERVICE_STORAGE: "postgres", SERVICE_POSTGRES_URL: db.url });
  reads = readsRunCounter(ts, "acme");
  writer = await ts.userContext("pg-writer", "acme", "writer");
});

after(async () => {
  reads.close();
  await ts.close();
  await db.drop();
});

test(
  "a client that stops reading makes the server start only about sessionUnwrittenBytesMax of its reads, also while the engine has not answered any",
  { timeout: 120_000 },
  async () => {
    await appendHeavyPage(ts.client, writer, "pg-heavy");
    const readsRun = reads.count;
    const before = await readsRun();

    // Reads of the events table wait for this lock: the session's reads start and cannot finish.
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE ess_events IN ACCESS EXCLUSIVE MODE");

    const { call, answered, status, read } = heavyReadSession(ts, writer, "pg-heavy");
    call.pause();
    const sent = 200;
    for (let i = 1; i <= sent; i++) read(i);
    // Let the server receive the requests and start what it will start.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await locker.query("COMMIT");
    await locker.end();

    // Reads go on in batches as the client's side takes answers (read-session.e2e.test.ts).
    const ran = (await steadyCount(readsRun, 1000)) - before;
    // The answers the server may hold (16 pages); the paused client, the HTTP/2 windows and the
    // socket buffers take some more, as in read-session.e2e.test.ts. Without the reservation all
    // 200 run.
    const bound = Math.ceil(limits.sessionUnwrittenBytesMax / heavyPageBytes);
    assert.ok(
      ran >= Math.floor(bound / 2),
      `${ran} reads ran before the client's backlog held the session back`,
    );
    assert.ok(ran <= bound + 40, `${ran} of ${sent} reads ran for a client that stopped reading`);

    call.end();
    call.resume();
    assert.equal((await status).code, grpc.status.OK);
    assert.deepEqual(
      answered.sort((a, b) => a - b),
      Array.from({ length: sent }, (_, i) => i + 1),
    );
    assert.equal((await readsRun()) - before, sent, "each read ran once");
  },
);

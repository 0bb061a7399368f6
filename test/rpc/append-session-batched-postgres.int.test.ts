// Several appends in one Streams.AppendSession message on the postgres engine (the scenarios of
// ./append-session-batched-scenarios.ts, through the fast carrier).
import { before, after } from "node:test";
import type { CallContext } from "../../src/operations/contract.js";
import { createTestDatabase, type TestDatabase } from "../storage/postgres-test-database.js";
import { batchedSessionScenarios } from "./append-session-batched-scenarios.js";
import { startTestService, type TestService } from "./service-harness.js";

let db: TestDatabase;
let ts: TestService;
let writer: CallContext;

before(async () => {
  db = await createTestDatabase();
  ts = await startTestService({ SERVICE_STORAGE: "postgres", SERVICE_POSTGRES_URL: db.url });
  writer = await ts.userContext("pg-batch-writer", "acme", "writer");
});

after(async () => {
  await ts.close();
  await db.drop();
});

batchedSessionScenarios("postgres", {
  service: () => ts,
  writer: () => writer,
  // The engine reports no count of its transactions here.
  groupCommits: () => Promise.resolve(null),
  groupsPerMessageMax: (count) => count,
  oneGroup: false,
});

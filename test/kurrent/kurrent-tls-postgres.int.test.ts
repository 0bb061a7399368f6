// The official KurrentDB client over TLS with Basic credentials, on the postgres engine (./tls-scenario.ts).
import { test } from "node:test";
import { createTestDatabase } from "../storage/postgres-test-database.js";
import { kurrentOverTls } from "./tls-scenario.js";

test("postgres: the KurrentDB client with tls=true and Basic credentials: append, read, subscribe, delete", async () => {
  const db = await createTestDatabase();
  try {
    await kurrentOverTls({ SERVICE_STORAGE: "postgres", SERVICE_POSTGRES_URL: db.url });
  } finally {
    await db.drop();
  }
});

// KurrentDB's official Node client against the real service on the postgres engine
// (./scenarios.ts): each scenario in a database of its own.
import { test } from "node:test";
import { createTestDatabase } from "../storage/postgres-test-database.js";
import { serveKurrent } from "./harness.js";
import { kurrentScenarios } from "./scenarios.js";

for (const scenario of kurrentScenarios) {
  test(`postgres: ${scenario.name}`, async () => {
    const db = await createTestDatabase();
    const ess = await serveKurrent({
      ...scenario.settings,
      SERVICE_STORAGE: "postgres",
      SERVICE_POSTGRES_URL: db.url,
    });
    try {
      await scenario.run(ess);
    } finally {
      await ess.stop();
      await db.drop();
    }
  });
}

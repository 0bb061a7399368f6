// KurrentDB's official Node client against the real service on the log engine (./scenarios.ts).
import { test } from "node:test";
import { serveKurrent } from "./harness.js";
import { kurrentScenarios } from "./scenarios.js";

for (const scenario of kurrentScenarios) {
  test(scenario.name, async () => {
    const ess = await serveKurrent(scenario.settings);
    try {
      await scenario.run(ess);
    } finally {
      await ess.stop();
    }
  });
}

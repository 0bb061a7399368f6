// Waiting in tests for something another process or connection does: poll a condition until it
// holds, and fail the test naming what never happened (never a fixed sleep, which a loaded
// machine outlasts).
import assert from "node:assert/strict";

export async function eventually(
  check: () => boolean,
  what: string | (() => string),
  timeoutMs = 15_000,
  pollMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      assert.fail(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

// Every call gets a request id of its own (src/contract/request-id.ts): answers compared across
// carriers or paths are compared with it present, not by its value.
import assert from "node:assert/strict";

export const requestIdMark = "(a request id)";

/** `answer` with its `x-request-id` checked to be there and replaced by requestIdMark. */
export function withRequestIdMarked<T extends Record<string, unknown>>(answer: T): T {
  assert.equal(typeof answer["x-request-id"], "string", `no x-request-id in ${JSON.stringify(answer)}`);
  return { ...answer, "x-request-id": requestIdMark };
}

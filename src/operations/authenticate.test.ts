import { test } from "node:test";
import assert from "node:assert/strict";
import { contextOfHeader } from "./authenticate.js";

test("a transport that passes the bearer header on gets a context that fails authentication when it is malformed", () => {
  assert.deepEqual(contextOfHeader("Bearer a b"), { token: null, malformedAuthorization: true });
  assert.deepEqual(contextOfHeader("Bearer t"), { token: "t" });
  assert.deepEqual(contextOfHeader(undefined), { token: null });
});

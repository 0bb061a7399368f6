import { test } from "node:test";
import assert from "node:assert/strict";
import { bearerTokenOf, contextOfHeader } from "./bearer.js";
import { isEssError } from "../errors.js";

test("one bearer rule: scheme in any case, spaces or tabs, one token; anything else is refused", () => {
  assert.equal(bearerTokenOf(undefined), null);
  for (const header of [
    "Bearer abc",
    "bearer abc",
    "BEARER  abc",
    "Bearer\tabc",
    "Bearer abc \t",
    ["Bearer abc", "x"],
  ]) {
    assert.equal(bearerTokenOf(header), "abc", JSON.stringify(header));
  }
  for (const header of [
    "",
    "Bearer",
    "Bearer ",
    "Bearer a b",
    "Basic abc",
    "Bearerabc",
    " Bearer abc",
    "Bearer\nabc",
    [],
  ]) {
    assert.throws(
      () => bearerTokenOf(header),
      (error: unknown) => isEssError(error) && error.code === "UNAUTHENTICATED",
      JSON.stringify(header),
    );
  }
  // A transport that passes the header on gets a context that fails authentication.
  assert.deepEqual(contextOfHeader("Bearer a b"), { token: null, malformedAuthorization: true });
  assert.deepEqual(contextOfHeader("Bearer t"), { token: "t" });
});

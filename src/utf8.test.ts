import { test } from "node:test";
import assert from "node:assert/strict";
import { isUtf8Bytes, requireWellFormed, requireWellFormedJson } from "./utf8.js";
import { isEssError } from "./errors.js";

function fieldOf(fn: () => unknown): string | null {
  try {
    fn();
  } catch (error) {
    assert.ok(isEssError(error) && error.code === "INVALID_ARGUMENT", String(error));
    return error.details.field as string;
  }
  return null;
}

test("bytes: UTF-8 passes; a surrogate's WTF-8 form, stray or truncated bytes do not", () => {
  assert.equal(isUtf8Bytes(Buffer.from("plain ascii")), true);
  assert.equal(isUtf8Bytes(Buffer.from("ünïcødé € \u{1F600}")), true);
  assert.equal(isUtf8Bytes(Buffer.from("x".repeat(100) + "€")), true);
  for (const bytes of [
    [0xed, 0xa0, 0x80],
    [0xed, 0xbf, 0xbf],
    [0xff],
    [0xc3],
    [0x80],
    [0xf4, 0x90, 0x80, 0x80],
  ]) {
    assert.equal(isUtf8Bytes(Buffer.from(bytes)), false, JSON.stringify(bytes));
    assert.equal(isUtf8Bytes(Buffer.concat([Buffer.from("x".repeat(60)), Buffer.from(bytes)])), false);
  }
});

test("text: lone surrogates are refused, pairs pass", () => {
  assert.equal(requireWellFormed("a\u{1F600}", "f"), "a\u{1F600}");
  assert.equal(
    fieldOf(() => requireWellFormed("a\ud800", "f")),
    "f",
  );
  assert.equal(
    fieldOf(() => requireWellFormed("\udc00a", "f")),
    "f",
  );
});

test("JSON: a lone surrogate escape in any string or key is refused with its path", () => {
  assert.equal(
    fieldOf(() => requireWellFormedJson('{"s": "\\ud83d\\ude00", "t": "\\\\ud800"}', "data")),
    null,
  );
  assert.equal(
    fieldOf(() => requireWellFormedJson('{"s": "\\ud800"}', "data")),
    "data.s",
  );
  assert.equal(
    fieldOf(() => requireWellFormedJson('{"a": [1, {"b": "\\uDBFFx"}]}', "data")),
    "data.a[1].b",
  );
  assert.equal(
    fieldOf(() => requireWellFormedJson('{"\\udc00": 1}', "data")),
    "data",
  );
  assert.equal(
    fieldOf(() => requireWellFormedJson('{"event_type": "\\ud800"}', "")),
    "event_type",
  );
  // Text that is not JSON is left to the caller's own parse.
  assert.equal(
    fieldOf(() => requireWellFormedJson('{"s": "\\ud800"', "data")),
    null,
  );
});

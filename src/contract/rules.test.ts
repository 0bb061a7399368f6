import { test } from "node:test";
import assert from "node:assert/strict";
import {
  bearerTokenOf,
  hasControlCharacter,
  isStoredEventId,
  isUtf8Bytes,
  isUuid,
  requireDistinctEventIds,
  requireId,
  requireWellFormed,
  requireWellFormedJson,
  textPatterns,
} from "./rules.js";
import { isEssError } from "../errors.js";
import { limits } from "../limits.js";

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
});

test("one control-character rule: C0 controls, DEL and C1 controls, nothing else", () => {
  for (const text of ["\u0000", "a\u0001b", "\u001f", "\u007f", "\u0080", "c1\u0085", "\u009f"]) {
    assert.equal(hasControlCharacter(text), true, JSON.stringify(text));
  }
  for (const text of ["plain", " ", "~", "\u00a0", "\u00e9", "\u2028", "\u{1F600}"]) {
    assert.equal(hasControlCharacter(text), false, JSON.stringify(text));
  }
});

test("an id is 1 to 200 bytes of UTF-8, without control characters, not starting with $", () => {
  for (const id of ["orders-1", "caf\u00e9/1", "a b", "a$", "\u00e9".repeat(limits.idBytesMax / 2)]) {
    assert.equal(requireId(id, "stream_id"), id);
  }
  for (const id of [
    "",
    "$all",
    "tab\there",
    "del\u007f",
    "c1\u0085",
    "x".repeat(limits.idBytesMax + 1),
    "\u00e9".repeat(limits.idBytesMax / 2) + "x",
    "sur\ud800",
    42,
    null,
  ]) {
    assert.equal(
      fieldOf(() => requireId(id, "stream_id")),
      "stream_id",
      JSON.stringify(id),
    );
  }
});

test("a stored event id is a lowercase UUID; a batch names each event id once", () => {
  assert.equal(isStoredEventId("0f8fad5b-d9cb-469f-a165-70867728950e"), true);
  assert.equal(isStoredEventId("0F8FAD5B-D9CB-469F-A165-70867728950E"), false);
  assert.equal(isStoredEventId("order-1"), false);
  assert.equal(isStoredEventId(undefined), false);
  const id = "0f8fad5b-d9cb-469f-a165-70867728950e";
  requireDistinctEventIds([{ event_id: id }, { event_id: null }, { event_id: null }]);
  assert.equal(
    fieldOf(() => requireDistinctEventIds([{ event_id: id }, { event_id: null }, { event_id: id }])),
    "events[2].event_id",
  );
});

test("the UUID checks answer as the published pattern does, character by character", () => {
  // The checks are hand-written loops; the OpenAPI document states textPatterns.uuid.
  const pattern = new RegExp(textPatterns.uuid);
  const stored = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const base = "0f8fad5b-d9cb-469f-a165-70867728950e";
  const candidates = [base, base.toUpperCase(), "", base.slice(1), base + "0", `${base}\n`];
  // Every character at every place: each dash and digit position sees every class of code unit.
  const probes = ["0", "9", "a", "f", "g", "A", "F", "G", "-", " ", "\u0000", "\u0130", "\uff10", "\u00e9"];
  for (let i = 0; i < base.length; i++) {
    for (const c of probes) candidates.push(base.slice(0, i) + c + base.slice(i + 1));
  }
  for (const text of candidates) {
    assert.equal(isUuid(text), pattern.test(text), JSON.stringify(text));
    assert.equal(isStoredEventId(text), stored.test(text), JSON.stringify(text));
  }
});

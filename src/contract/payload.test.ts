import { test } from "node:test";
import assert from "node:assert/strict";
import { isEssError } from "../errors.js";
import { Payload } from "./payload.js";

function refusal(fn: () => unknown): { code: string; message: string } | null {
  try {
    fn();
  } catch (error) {
    if (isEssError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  return null;
}

test("a caller's text is checked once by the JSON-object rule, naming the field", () => {
  assert.deepEqual(
    refusal(() => Payload.fromText("{not json").requireJsonObject("events[2].data")),
    { code: "INVALID_JSON", message: "events[2].data is not valid JSON" },
  );
  for (const text of ["[1]", '"{}"', "null", "42"]) {
    assert.equal(
      refusal(() => Payload.fromText(text).requireJsonObject("data"))?.code,
      "INVALID_ARGUMENT",
      text,
    );
  }
  // A lone surrogate, as a JSON escape or raw in the text, is not UTF-8.
  assert.equal(
    refusal(() => Payload.fromText('{"s":"\\udc00"}').requireJsonObject("data"))?.code,
    "INVALID_ARGUMENT",
  );
  assert.equal(
    refusal(() => Payload.fromText('{"s":"\ud800"}').requireJsonObject("data"))?.code,
    "INVALID_ARGUMENT",
  );
  const payload = Payload.fromText('{ "a" : 1.50 }');
  assert.equal(payload.isChecked, false);
  assert.equal(payload.requireJsonObject("data"), payload);
  assert.equal(payload.isChecked, true);
  assert.equal(payload.text, '{ "a" : 1.50 }', "kept byte for byte");
});

test("a refused payload stays unchecked", () => {
  const payload = Payload.fromText("[1]");
  assert.notEqual(
    refusal(() => payload.requireJsonObject("data")),
    null,
  );
  assert.equal(payload.isChecked, false);
  assert.notEqual(
    refusal(() => payload.requireJsonObject("data")),
    null,
  );
});

test("bytes that are not UTF-8 are refused as they are taken; the JSON is checked later", () => {
  assert.deepEqual(
    refusal(() => Payload.fromUtf8Bytes(Buffer.from([0x7b, 0xff, 0x7d]), "events[0].data")),
    {
      code: "INVALID_ARGUMENT",
      message: "events[0].data is not valid UTF-8",
    },
  );
  const payload = Payload.fromUtf8Bytes(Buffer.from('{"city":"Kraków"}'), "data");
  assert.equal(payload.isChecked, false);
  assert.equal(payload.byteLength, 18);
  assert.equal(payload.requireJsonObject("data").isChecked, true);
  assert.equal(
    refusal(() => Payload.fromUtf8Bytes(Buffer.from("nope"), "data").requireJsonObject("data"))?.code,
    "INVALID_JSON",
  );
});

test("a parser's object slice is checked as it is made; anything not shaped like an object is not", () => {
  assert.equal(Payload.fromParsedObjectText('{"a": [1, 2]}').isChecked, true);
  for (const text of ["[1]", '"x"', "", " {}", "{} "]) {
    assert.equal(Payload.fromParsedObjectText(text).isChecked, false, text);
  }
});

test("a parsed value is serialized once and checked; what is not an object is refused", () => {
  const payload = Payload.fromValue({ b: 1, a: "é" }, "data");
  assert.equal(payload.text, '{"b":1,"a":"é"}');
  assert.equal(payload.isChecked, true);
  for (const value of [[1], "{}", null, 3, { toJSON: () => [1] }, { toJSON: () => "{}" }]) {
    assert.equal(
      refusal(() => Payload.fromValue(value, "data"))?.code,
      "INVALID_ARGUMENT",
      JSON.stringify(value),
    );
  }
  // JSON.stringify writes a lone surrogate as an escape: refused as one sent as an escape.
  assert.equal(refusal(() => Payload.fromValue({ s: "\ud800" }, "metadata"))?.code, "INVALID_ARGUMENT");
});

test("a payload's size is its UTF-8 bytes", () => {
  assert.equal(Payload.fromText('{"s":"é✓"}').byteLength, 13);
  assert.equal(Payload.emptyObject.text, "{}");
  assert.equal(Payload.emptyObject.isChecked, true);
  assert.equal(Payload.emptyObject.byteLength, 2);
});

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

test("a caller's text is checked once by the JSON rule, naming the field", () => {
  assert.deepEqual(
    refusal(() => Payload.fromText("{not json").requireJson("events[2].data")),
    { code: "INVALID_JSON", message: "events[2].data is not valid JSON" },
  );
  // Any JSON value passes (KurrentDB clients store arrays, strings, numbers).
  for (const text of ["[1]", '"{}"', "null", "42", " true "]) {
    assert.equal(
      refusal(() => Payload.fromText(text).requireJson("data")),
      null,
      text,
    );
  }
  for (const text of ["", "{", "[1,]", "'x'", "1 2"]) {
    assert.equal(refusal(() => Payload.fromText(text).requireJson("data"))?.code, "INVALID_JSON", text);
  }
  // A lone surrogate, as a JSON escape or raw in the text, is not UTF-8.
  assert.equal(
    refusal(() => Payload.fromText('{"s":"\\udc00"}').requireJson("data"))?.code,
    "INVALID_ARGUMENT",
  );
  assert.equal(
    refusal(() => Payload.fromText('{"s":"\ud800"}').requireJson("data"))?.code,
    "INVALID_ARGUMENT",
  );
  const payload = Payload.fromText('{ "a" : 1.50 }');
  assert.equal(payload.isChecked, false);
  assert.equal(payload.requireJson("data"), payload);
  assert.equal(payload.isChecked, true);
  assert.equal(payload.text, '{ "a" : 1.50 }', "kept byte for byte");
});

test("a refused payload stays unchecked", () => {
  const payload = Payload.fromText("[1");
  assert.notEqual(
    refusal(() => payload.requireJson("data")),
    null,
  );
  assert.equal(payload.isChecked, false);
  assert.notEqual(
    refusal(() => payload.requireJson("data")),
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
  assert.equal(payload.requireJson("data").isChecked, true);
  assert.equal(
    refusal(() => Payload.fromUtf8Bytes(Buffer.from("nope"), "data").requireJson("data"))?.code,
    "INVALID_JSON",
  );
});

test("a parser's object slice is checked as it is made; anything not shaped like an object is not", () => {
  assert.equal(Payload.fromParsedObjectText('{"a": [1, 2]}').isChecked, true);
  for (const text of ["[1]", '"x"', "", " {}", "{} "]) {
    assert.equal(Payload.fromParsedObjectText(text).isChecked, false, text);
  }
});

test("a parsed value is serialized once and checked; what JSON cannot hold is refused", () => {
  const payload = Payload.fromValue({ b: 1, a: "é" }, "data");
  assert.equal(payload.text, '{"b":1,"a":"é"}');
  assert.equal(payload.isChecked, true);
  for (const [value, text] of [
    [[1], "[1]"],
    ["{}", '"{}"'],
    [null, "null"],
    [3, "3"],
    [{ toJSON: () => [1] }, "[1]"],
  ] as const) {
    assert.equal(Payload.fromValue(value, "data").text, text);
  }
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  for (const [name, value] of Object.entries({
    undefined,
    fn: () => 1,
    symbol: Symbol("s"),
    bigint: 1n,
    cycle,
  })) {
    assert.equal(refusal(() => Payload.fromValue(value, "data"))?.code, "INVALID_ARGUMENT", name);
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

test("bytes are kept as they are: checked, any bytes, counted by their length", () => {
  const bytes = Buffer.from([0xff, 0x00, 0xfe, 0x7b]);
  const payload = Payload.fromBytes(bytes);
  assert.equal(payload.isBinary, true);
  assert.equal(payload.isChecked, true);
  assert.equal(payload.bytes, bytes);
  assert.equal(payload.byteLength, 4);
  assert.equal(payload.requireJson("data"), payload, "the JSON rule does not apply to bytes");
  assert.equal(Payload.fromBytes(Buffer.alloc(0)).byteLength, 0);
  assert.equal(Payload.fromText("{}").isBinary, false);
});

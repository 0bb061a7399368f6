import { test } from "node:test";
import assert from "node:assert/strict";
import { Payload } from "../contract/payload.js";
import { parseAppendRequest, toPayload } from "./validate.js";
import { isEssError } from "../errors.js";

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return isEssError(error) ? error.code : String(error);
  }
  return "no error";
}

test("event payloads come out as the JSON text of an object, or the append is refused", () => {
  // Text is kept byte for byte (spacing, key order, number spelling), values are serialized.
  assert.equal(toPayload(Payload.fromText('{ "b": 1.0, "a": [] }'), "data").text, '{ "b": 1.0, "a": [] }');
  assert.equal(toPayload({ a: 1, b: "x" }, "data").text, '{"a":1,"b":"x"}');
  assert.equal(
    codeOf(() => toPayload(Payload.fromText("{not json"), "data")),
    "INVALID_JSON",
  );
  assert.equal(
    codeOf(() => toPayload(Payload.fromText("[1,2]"), "data")),
    "INVALID_ARGUMENT",
  );
  assert.equal(
    codeOf(() => toPayload([1, 2], "data")),
    "INVALID_ARGUMENT",
  );
  // The storage engine takes a checked payload as it is, so an object whose toJSON makes it
  // something else must be refused here.
  assert.equal(
    codeOf(() => toPayload({ toJSON: () => [1] }, "data")),
    "INVALID_ARGUMENT",
  );
  assert.equal(
    codeOf(() => toPayload({ toJSON: () => "{}" }, "data")),
    "INVALID_ARGUMENT",
  );
  // Every payload that comes out is checked: the engine takes it as it is.
  assert.equal(toPayload(Payload.fromText("{}"), "data").isChecked, true);
  assert.equal(toPayload({}, "data").isChecked, true);
});

test("a parsed append carries metadata {} when none was sent", () => {
  const parsed = parseAppendRequest({ stream_id: "s", event_type: "E", data: Payload.fromText('{"x":1}') });
  assert.deepEqual(
    parsed.events.map((e) => [e.data.text, e.metadata.text]),
    [['{"x":1}', "{}"]],
  );
});

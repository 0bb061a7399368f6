import { test } from "node:test";
import assert from "node:assert/strict";
import { JsonText } from "./contract.js";
import { parseAppendRequest, toJsonObjectText } from "./validate.js";
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
  assert.equal(toJsonObjectText(new JsonText('{ "b": 1.0, "a": [] }'), "data"), '{ "b": 1.0, "a": [] }');
  assert.equal(toJsonObjectText({ a: 1, b: "x" }, "data"), '{"a":1,"b":"x"}');
  assert.equal(
    codeOf(() => toJsonObjectText(new JsonText("{not json"), "data")),
    "INVALID_JSON",
  );
  assert.equal(
    codeOf(() => toJsonObjectText(new JsonText("[1,2]"), "data")),
    "INVALID_ARGUMENT",
  );
  assert.equal(
    codeOf(() => toJsonObjectText([1, 2], "data")),
    "INVALID_ARGUMENT",
  );
  // The storage engine keeps only a shape check for payloads that passed here, so an object whose
  // toJSON makes it something else must be refused here.
  assert.equal(
    codeOf(() => toJsonObjectText({ toJSON: () => [1] }, "data")),
    "INVALID_ARGUMENT",
  );
  assert.equal(
    codeOf(() => toJsonObjectText({ toJSON: () => "{}" }, "data")),
    "INVALID_ARGUMENT",
  );
});

test("a parsed append carries metadata {} when none was sent", () => {
  const parsed = parseAppendRequest({ stream_id: "s", event_type: "E", data: new JsonText('{"x":1}') });
  assert.deepEqual(
    parsed.events.map((e) => [e.data, e.metadata]),
    [['{"x":1}', "{}"]],
  );
});

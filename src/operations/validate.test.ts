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

test("event payloads come out as JSON text of any value, or bytes, or the append is refused", () => {
  // Text is kept byte for byte (spacing, key order, number spelling), values are serialized.
  assert.equal(toPayload(Payload.fromText('{ "b": 1.0, "a": [] }'), "data").text, '{ "b": 1.0, "a": [] }');
  assert.equal(toPayload({ a: 1, b: "x" }, "data").text, '{"a":1,"b":"x"}');
  assert.equal(
    codeOf(() => toPayload(Payload.fromText("{not json"), "data")),
    "INVALID_JSON",
  );
  // Any JSON value is data (KurrentDB clients store arrays, strings, numbers).
  assert.equal(toPayload(Payload.fromText("[1,2]"), "data").text, "[1,2]");
  assert.equal(toPayload([1, 2], "data").text, "[1,2]");
  assert.equal(toPayload({ toJSON: () => "{}" }, "data").text, '"{}"');
  assert.equal(toPayload("text", "data").text, '"text"');
  assert.equal(
    codeOf(() => toPayload(() => 1, "data")),
    "INVALID_ARGUMENT",
  );
  // A Buffer is bytes, kept as they are.
  const bytes = Buffer.from([0xff, 0x00]);
  assert.equal(toPayload(bytes, "data").bytes, bytes);
  // Every payload that comes out is checked: the engine takes it as it is.
  assert.equal(toPayload(Payload.fromText("{}"), "data").isChecked, true);
  assert.equal(toPayload({}, "data").isChecked, true);
});

test("data_base64 and metadata_base64 are decoded; malformed base64, both forms, or no data are refused naming the field", () => {
  const parsed = parseAppendRequest({
    stream_id: "s",
    events: [{ event_type: "E", data_base64: "/wA=", metadata_base64: "" }],
  });
  assert.deepEqual(
    parsed.events.map((e) => [e.data.bytes, e.metadata.bytes]),
    [[Buffer.from([0xff, 0x00]), Buffer.alloc(0)]],
  );
  const fieldOf = (request: Record<string, unknown>): unknown => {
    try {
      parseAppendRequest({ stream_id: "s", event_type: "E", ...request });
    } catch (error) {
      return isEssError(error) ? [error.code, error.details?.field] : String(error);
    }
    return "no error";
  };
  assert.deepEqual(fieldOf({ data_base64: "AAA" }), ["INVALID_ARGUMENT", "data_base64"]);
  assert.deepEqual(fieldOf({ data_base64: "A A=" }), ["INVALID_ARGUMENT", "data_base64"]);
  assert.deepEqual(fieldOf({ data_base64: "-_==" }), ["INVALID_ARGUMENT", "data_base64"]);
  assert.deepEqual(fieldOf({ data: {}, metadata_base64: 3 }), ["INVALID_ARGUMENT", "metadata_base64"]);
  assert.deepEqual(fieldOf({ data: {}, data_base64: "" }), ["INVALID_ARGUMENT", "data_base64"]);
  assert.deepEqual(fieldOf({ data: {}, metadata: {}, metadata_base64: "" }), [
    "INVALID_ARGUMENT",
    "metadata_base64",
  ]);
  assert.deepEqual(fieldOf({ metadata_base64: "" }), ["INVALID_ARGUMENT", "data"]);
  assert.equal(fieldOf({ data: {}, metadata: null, metadata_base64: "AA==" }), "no error");
});

test("a parsed append carries metadata {} when none was sent", () => {
  const parsed = parseAppendRequest({ stream_id: "s", event_type: "E", data: Payload.fromText('{"x":1}') });
  assert.deepEqual(
    parsed.events.map((e) => [e.data.text, e.metadata.text]),
    [['{"x":1}', "{}"]],
  );
});

test("each event of a batch is named by its position in its errors (events[i].field), the same at every position", () => {
  const refusal = (events: unknown[]): unknown => {
    try {
      parseAppendRequest({ stream_id: "s", events });
    } catch (error) {
      return isEssError(error) ? [error.code, error.message, error.details?.field] : String(error);
    }
    return "no error";
  };
  const good = { event_type: "E", data: Payload.fromText("{}") };
  for (const at of [0, 1, 7, 999]) {
    const before = Array.from({ length: at }, () => good);
    // Twice: the second time the position's names are the ones made the first time.
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(refusal([...before, 3]), [
        "INVALID_ARGUMENT",
        `events[${at}] must be an object`,
        `events[${at}]`,
      ]);
      assert.deepEqual(refusal([...before, { event_type: "E" }]), [
        "INVALID_ARGUMENT",
        `events[${at}].data is required`,
        `events[${at}].data`,
      ]);
      assert.deepEqual(refusal([...before, { ...good, data: Payload.fromText("{x") }]), [
        "INVALID_JSON",
        `events[${at}].data is not valid JSON`,
        `events[${at}].data`,
      ]);
      assert.deepEqual(refusal([...before, { ...good, metadata: {}, metadata_base64: "" }]), [
        "INVALID_ARGUMENT",
        `send events[${at}].metadata or events[${at}].metadata_base64, not both`,
        `events[${at}].metadata_base64`,
      ]);
      assert.deepEqual(refusal([...before, { ...good, data_base64: "AAA" }]), [
        "INVALID_ARGUMENT",
        `send events[${at}].data or events[${at}].data_base64, not both`,
        `events[${at}].data_base64`,
      ]);
      assert.deepEqual(refusal([...before, { ...good, event_id: "x" }]), [
        "INVALID_ARGUMENT",
        `events[${at}].event_id must be a UUID`,
        `events[${at}].event_id`,
      ]);
      const eventType = refusal([...before, { ...good, event_type: "" }]) as unknown[];
      assert.deepEqual([eventType[0], eventType[2]], ["INVALID_ARGUMENT", `events[${at}].event_type`]);
    }
  }
  // A single-event append names its fields as they are.
  assert.throws(
    () => parseAppendRequest({ stream_id: "s", event_type: "E" }),
    (error: unknown) =>
      isEssError(error) && error.message === "data is required" && error.details?.field === "data",
  );
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { isEssError } from "../errors.js";
import { fromPbEventToAppend } from "./convert-events.js";
import type { EventToAppend__Output } from "./generated/ess/v1/EventToAppend.js";

function refusal(event: Partial<EventToAppend__Output>, index: number): unknown {
  try {
    fromPbEventToAppend({ event_type: "E", data: Buffer.from("{}"), ...event }, index);
  } catch (error) {
    return isEssError(error) ? [error.code, error.message, error.details?.field] : String(error);
  }
  return "no error";
}

test("an event of an Append message is named by its position in its errors, the same at every position", () => {
  for (const at of [0, 3, 999, 1000, 5000]) {
    // Twice: the second time a position's names are the ones made the first time.
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(refusal({ content_type: "text/plain" }, at), [
        "INVALID_ARGUMENT",
        `events[${at}].content_type must be application/json or application/octet-stream`,
        `events[${at}].content_type`,
      ]);
      assert.deepEqual(refusal({ metadata: Buffer.from("{}"), metadata_bytes: Buffer.alloc(1) }, at), [
        "INVALID_ARGUMENT",
        `send events[${at}].metadata or events[${at}].metadata_bytes, not both`,
        `events[${at}].metadata_bytes`,
      ]);
      const notUtf8 = refusal({ data: Buffer.from([0x7b, 0xff, 0x7d]) }, at) as unknown[];
      assert.deepEqual([notUtf8[0], notUtf8[2]], ["INVALID_ARGUMENT", `events[${at}].data`]);
      const metadataNotUtf8 = refusal({ metadata: Buffer.from([0xff]) }, at) as unknown[];
      assert.deepEqual(metadataNotUtf8[2], `events[${at}].metadata`);
    }
  }
  assert.equal(refusal({}, 2), "no error");
});

// The load generator's read check (bench/grpc-load/read-summary.ts): a ReadResult's stream id,
// event count and revisions read without building its events, on messages of the product codec
// (src/rpc/codec/read-results.ts), and the check the read cells make of it.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  eventsFromStart,
  summarizeReadResult,
  summarizeReadSessionAnswer,
} from "../../../bench/grpc-load/read-summary.js";
import { jsonContentType, type EventRecord, type ReadStreamResult } from "../../../src/contract/bodies.js";
import { encodeReadResult } from "../../../src/rpc/codec/read-results.js";
import { decodeReadSessionResponse, encodeReadSessionResponse } from "../../../src/rpc/session-codec.js";
import { EssError } from "../../../src/errors.js";

function record(stream: string, revision: number): EventRecord {
  return {
    stream_id: stream,
    revision,
    position: 1_000 + revision,
    event_id: `00000000-0000-4000-8000-${String(revision).padStart(12, "0")}`,
    event_type: "OrderPlaced",
    data: `{"n":${revision},"note":"ü"}`,
    metadata: "{}",
    created_at: "2026-01-01T00:00:00.000Z",
    content_type: jsonContentType,
  };
}

function page(stream: string, revisions: number[]): ReadStreamResult {
  return {
    stream_id: stream,
    direction: "forward",
    events: revisions.map((r) => record(stream, r)),
    next_revision: null,
    is_end: true,
  };
}

test("a page's stream id, count and revisions, as the full decode would give them", () => {
  const revisions = Array.from({ length: 100 }, (_, i) => i);
  assert.deepEqual(summarizeReadResult(encodeReadResult(page("cmp-r-7", revisions))), {
    stream_id: "cmp-r-7",
    events: 100,
    first_revision: 0,
    last_revision: 99,
    consecutive: true,
  });
  // Revisions past one varint byte, and past 2^32.
  assert.deepEqual(summarizeReadResult(encodeReadResult(page("s", [127, 128, 2 ** 32 + 1]))), {
    stream_id: "s",
    events: 3,
    first_revision: 127,
    last_revision: 2 ** 32 + 1,
    consecutive: false,
  });
  assert.deepEqual(summarizeReadResult(encodeReadResult(page("empty", []))), {
    stream_id: "empty",
    events: 0,
    first_revision: -1,
    last_revision: -1,
    consecutive: true,
  });
});

test("a page from the start is checked: the stream asked for, revisions 0, 1, 2, … in order", () => {
  const summary = (revisions: number[], stream = "s") =>
    summarizeReadResult(encodeReadResult(page(stream, revisions)));
  assert.equal(eventsFromStart(summary([0, 1, 2]), "s"), 3);
  assert.equal(eventsFromStart(summary([]), "s"), 0);
  assert.throws(() => eventsFromStart(summary([0, 1, 2], "t"), "s"), /answered the page of 't'/);
  assert.throws(() => eventsFromStart(summary([1, 2, 3]), "s"), /revisions 1\.\.3/);
  assert.throws(() => eventsFromStart(summary([0, 2, 3]), "s"), /revisions 0\.\.3, not in order/);
  assert.throws(() => eventsFromStart(summary([0, 1, 1]), "s"), /not in order/);
});

test("malformed bytes throw the product decoder's INVALID_ARGUMENT", () => {
  const whole = encodeReadResult(page("s", [0, 1]));
  for (const bytes of [whole.subarray(0, whole.length - 3), Buffer.from([0x1a, 0x05, 0x10])]) {
    assert.throws(
      () => summarizeReadResult(bytes),
      (error: unknown) => error instanceof EssError && error.code === "INVALID_ARGUMENT",
    );
  }
});

test("a read session's answer: the result summarized, an error as the product decoder reads it", () => {
  const result = page("s", [0, 1, 2]);
  assert.deepEqual(summarizeReadSessionAnswer(encodeReadSessionResponse([{ correlation_id: 300, result }])), {
    correlation_id: 300,
    result: { stream_id: "s", events: 3, first_revision: 0, last_revision: 2, consecutive: true },
  });
  const error = { code: "STREAM_NOT_FOUND", message: "no stream 's'", details: Buffer.from("{}") };
  const encoded = encodeReadSessionResponse([{ correlation_id: 5, error }]);
  assert.deepEqual(summarizeReadSessionAnswer(encoded), decodeReadSessionResponse(encoded));
  assert.deepEqual(summarizeReadSessionAnswer(encoded), { correlation_id: 5, error });
});

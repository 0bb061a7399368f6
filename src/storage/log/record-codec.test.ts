import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkRecord,
  decodeRecord,
  decodeSegmentHeader,
  encodeRecord,
  encodeSegmentHeader,
  FLAG_BATCH_END,
  KIND_EVENT,
  measureRecord,
  type RecordFields,
} from "./record-codec.js";

const fields: RecordFields = {
  kind: KIND_EVENT,
  flags: FLAG_BATCH_END,
  tenant: "acme",
  stream: "orders-ü-1",
  eventType: "order-placed",
  position: 2 ** 40 + 3,
  revision: 17,
  createdAtMs: 1_790_000_000_123,
  eventId: "0f8fad5b-d9cb-469f-a165-70867728950e",
  metadata: '{"by":"me"}',
  data: '{"total":12.5,"note":"ünïcödé"}',
};

test("a record decodes to exactly the fields it was encoded from", () => {
  const m = measureRecord(fields);
  const buf = Buffer.alloc(m.totalBytes + 10);
  const end = encodeRecord(buf, 5, m);
  assert.equal(end, 5 + m.totalBytes);
  assert.deepEqual(checkRecord(buf, 5, end, 1 << 20), { ok: true, length: m.totalBytes });
  assert.deepEqual(decodeRecord(buf, 5), fields);
});

test("a flipped bit anywhere in a record fails its check", () => {
  const m = measureRecord(fields);
  const buf = Buffer.alloc(m.totalBytes);
  encodeRecord(buf, 0, m);
  for (let i = 0; i < m.totalBytes; i++) {
    const copy = Buffer.from(buf);
    copy[i]! ^= 0x10;
    assert.equal(checkRecord(copy, 0, copy.length, 1 << 20).ok, false, `byte ${i}`);
  }
});

test("a record cut short is reported as short, the signature of a torn tail", () => {
  const m = measureRecord(fields);
  const buf = Buffer.alloc(m.totalBytes);
  encodeRecord(buf, 0, m);
  const check = checkRecord(buf, 0, m.totalBytes - 1, 1 << 20);
  assert.equal(check.ok, false);
  assert.equal(!check.ok && check.reason, "short");
});

test("a segment header round-trips and a damaged one is refused", () => {
  const buf = encodeSegmentHeader({ segmentNo: 7, generation: 3, basePosition: 12345 });
  assert.deepEqual(decodeSegmentHeader(buf), { segmentNo: 7, generation: 3, basePosition: 12345 });
  buf[9]! ^= 1;
  assert.equal(decodeSegmentHeader(buf), null);
});

test("text of every length around the short-text copy decodes as written, ASCII or not", () => {
  for (const length of [0, 1, 47, 48, 49, 200]) {
    for (const unit of ["a", "é", "€", "\u{1F600}", "\u007f"]) {
      const text = unit.repeat(length);
      const f: RecordFields = {
        ...fields,
        stream: text || "s",
        eventType: text || "t",
        metadata: text,
        data: text,
      };
      const m = measureRecord(f);
      const buf = Buffer.alloc(m.totalBytes);
      assert.equal(encodeRecord(buf, 0, m), m.totalBytes);
      assert.deepEqual(checkRecord(buf, 0, buf.length, 1 << 20), { ok: true, length: m.totalBytes });
      assert.deepEqual(decodeRecord(buf, 0), f, `${length} × ${JSON.stringify(unit)}`);
    }
  }
});

import assert from "node:assert/strict";
import { test } from "node:test";
import type { EventRecord, ReadStreamResult } from "../contract/bodies.js";
import { serializeEventsResult } from "./serialize.js";

function event(overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    stream_id: "orders-1",
    revision: 0,
    position: 1,
    event_id: "0d8f0a52-3a4c-4a8e-9b1e-6a1f7b9c2d3e",
    event_type: "OrderPlaced",
    data: '{"amount": 1.50, "z": 1, "a": 2}',
    metadata: "{}",
    created_at: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

function result(events: EventRecord[]): ReadStreamResult {
  return { stream_id: "orders-1", direction: "forward", events, next_revision: null, is_end: true };
}

test("a read result's event data and metadata are written byte for byte, never re-serialized", () => {
  const text = serializeEventsResult(result([event()]));
  assert.ok(text.includes('"data":{"amount": 1.50, "z": 1, "a": 2}'));
  assert.ok(text.includes('"metadata":{}'));
  const parsed = JSON.parse(text) as { events: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(parsed.events[0] ?? {}), Object.keys(event()));
});

test("stream ids and event types that need escaping stay valid JSON with the same values", () => {
  const odd = event({ stream_id: 'a"b\\c\u2028é', event_type: "type\twith\ttabs" });
  const parsed = JSON.parse(serializeEventsResult(result([odd, event({ revision: 1, position: 2 })]))) as {
    events: { stream_id: string; event_type: string; revision: number }[];
  };
  assert.equal(parsed.events[0]?.stream_id, odd.stream_id);
  assert.equal(parsed.events[0]?.event_type, odd.event_type);
  assert.equal(parsed.events[1]?.revision, 1);
});

test("fields an event record gains later are written too", () => {
  const extended = { ...event(), tenant_id: "acme" } as EventRecord;
  const parsed = JSON.parse(serializeEventsResult(result([extended]))) as {
    events: Record<string, unknown>[];
  };
  assert.equal(parsed.events[0]?.tenant_id, "acme");
});

test("event data a transport already parsed is stringified, so the output stays valid JSON", () => {
  const parsedData = { ...event(), data: { amount: 2 } } as unknown as EventRecord;
  const parsed = JSON.parse(serializeEventsResult(result([parsedData]))) as { events: { data: unknown }[] };
  assert.deepEqual(parsed.events[0]?.data, { amount: 2 });
});

test("events of one page with different stream ids, types and times each keep their own", () => {
  const events = [
    event(),
    event({ stream_id: "orders-2", event_type: "OrderPaid", created_at: "2026-01-01T00:00:00.001Z" }),
    event({ revision: 1, position: 3 }),
    event({ stream_id: "orders-2", event_type: "OrderPlaced", created_at: "2026-01-01T00:00:00.001Z" }),
  ];
  const parsed = JSON.parse(serializeEventsResult(result(events))) as { events: Record<string, unknown>[] };
  assert.deepEqual(
    parsed.events.map((e) => [e.stream_id, e.event_type, e.created_at]),
    events.map((e) => [e.stream_id, e.event_type, e.created_at]),
  );
});

import assert from "node:assert/strict";
import { test } from "node:test";
import type { EventRecord, ReadStreamResult } from "../contract/bodies.js";
import { BINARY_DATA, BINARY_METADATA, StoredEventRecord } from "../contract/stored-event-record.js";
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
    content_type: "application/json",
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

/** A StoredEventRecord holding `e`'s fields as the log engine stores them (the id as latin1), amid others. */
function storedOf(e: EventRecord): StoredEventRecord {
  const filler = Buffer.from([0xff, 0x00, 0x7f]);
  const id = Buffer.from(e.event_id, "latin1");
  const type = Buffer.from(e.event_type, "utf8");
  const metadata = typeof e.metadata === "string" ? Buffer.from(e.metadata, "utf8") : e.metadata;
  const data = typeof e.data === "string" ? Buffer.from(e.data, "utf8") : e.data;
  const binary =
    (typeof e.data === "string" ? 0 : BINARY_DATA) | (typeof e.metadata === "string" ? 0 : BINARY_METADATA);
  const bytes = Buffer.concat([filler, id, filler, type, metadata, data, filler]);
  const idStart = filler.length;
  const typeStart = idStart + id.length + filler.length;
  const metadataStart = typeStart + type.length;
  const dataStart = metadataStart + metadata.length;
  return new StoredEventRecord(
    e.stream_id,
    e.revision,
    e.position,
    Date.parse(e.created_at),
    bytes,
    idStart,
    idStart + id.length,
    typeStart,
    metadataStart,
    dataStart,
    dataStart + data.length,
    binary,
  );
}

test("events over the engine's stored bytes are written exactly as their plain records", () => {
  const events = [
    event(),
    event({ revision: 1, position: 2, metadata: '{"by": "東京"}' }),
    event({ revision: 2, position: 3, event_type: 'type "quoted" é', data: '{ "s" : "Zoë ✓" }' }),
    event({ revision: 3, position: 4, event_type: 'type "quoted" é', metadata: '{"by": "東京"}' }),
    event({ revision: 4, position: 9, created_at: "2026-01-01T00:00:00.001Z" }),
  ];
  const plain = serializeEventsResult(result(events));
  assert.equal(serializeEventsResult(result(events.map(storedOf))), plain);
  const all = { events: events.map(storedOf), next_position: 10, is_end: false };
  assert.equal(serializeEventsResult(all), serializeEventsResult({ ...all, events }));
});

test("bytes are written as data_base64 and metadata_base64, with the event's content_type", () => {
  const bytes = Buffer.from([0xff, 0x00, 0xfe, 0x22]);
  const events = [
    event({ data: bytes, content_type: "application/octet-stream" }),
    event({ revision: 1, position: 2, metadata: Buffer.from("not json") }),
    event({
      revision: 2,
      position: 3,
      data: Buffer.alloc(0),
      metadata: Buffer.alloc(0),
      content_type: "application/octet-stream",
    }),
    event({ revision: 3, position: 4, data: "[1,2]" }),
  ];
  const text = serializeEventsResult(result(events));
  assert.equal(serializeEventsResult(result(events.map(storedOf))), text, "stored records write the same");
  const parsed = JSON.parse(text) as { events: Record<string, unknown>[] };
  assert.equal(parsed.events[0]?.data_base64, "/wD+Ig==");
  assert.equal(parsed.events[0]?.content_type, "application/octet-stream");
  assert.deepEqual(parsed.events[0]?.metadata, {});
  assert.deepEqual(Object.keys(parsed.events[0] ?? {}), [
    "stream_id",
    "revision",
    "position",
    "event_id",
    "event_type",
    "data_base64",
    "metadata",
    "created_at",
    "content_type",
  ]);
  assert.equal(parsed.events[1]?.metadata_base64, Buffer.from("not json").toString("base64"));
  assert.equal("metadata" in (parsed.events[1] ?? {}), false);
  assert.deepEqual(parsed.events[1]?.data, { amount: 1.5, z: 1, a: 2 });
  assert.equal(parsed.events[1]?.content_type, "application/json");
  assert.equal(parsed.events[2]?.data_base64, "");
  assert.equal(parsed.events[2]?.metadata_base64, "");
  assert.deepEqual(parsed.events[3]?.data, [1, 2]);
});

/**
 * Binary events and raw metadata (docs/contract.md "Binary events"): data given as bytes makes an
 * event of content type application/octet-stream, kept and returned byte for byte; metadata given
 * as bytes comes back as bytes; JSON data and metadata may be any JSON value, kept as their text.
 * Every read form (a stream, the tenant's order, stored bytes, after a reopen, after a scavenge)
 * gives the same.
 */
import assert from "node:assert/strict";
import { limits } from "../../limits.js";
import { Payload } from "../../contract/payload.js";
import type { EventRecord } from "../../contract/bodies.js";
import type { StorageEngine } from "../engine.js";
import type { CaseContext } from "./suite.js";
import { appendEvents, newEvent, readStreamFully, readTenantFully, rejectsWith } from "./harness.js";

const JSON_TYPE = "application/json";
const BINARY_TYPE = "application/octet-stream";

/** Every byte value, then bytes that are not UTF-8 (a lone continuation, an overlong form, a surrogate). */
const allBytes = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from([0x80, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xff, 0xfe, 0x00]),
]);

/** What a read gives of an event's payload, to compare across read forms. */
function payloadOf(e: EventRecord): {
  content_type: string;
  data: string | Buffer;
  metadata: string | Buffer;
} {
  return { content_type: e.content_type, data: e.data, metadata: e.metadata };
}

/** The stream read plainly, with stored bytes, backward, and in the tenant's order. */
async function everyReadForm(engine: StorageEngine, stream: string): Promise<EventRecord[][]> {
  const stored = await engine.readStream({
    tenant_id: "acme",
    stream_id: stream,
    direction: "forward",
    from_revision: null,
    limit: 1000,
    stored_bytes: true,
  });
  const backward = await engine.readStream({
    tenant_id: "acme",
    stream_id: stream,
    direction: "backward",
    from_revision: null,
    limit: 1000,
  });
  return [
    await readStreamFully(engine, "acme", stream),
    stored.events,
    backward.events.reverse(),
    (await readTenantFully(engine, "acme")).filter((e) => e.stream_id === stream),
  ];
}

/** Every read form of `stream` gives `expected` (content type, data, metadata per event). */
async function assertPayloads(
  engine: StorageEngine,
  stream: string,
  expected: ReturnType<typeof payloadOf>[],
): Promise<void> {
  for (const [form, events] of (await everyReadForm(engine, stream)).entries()) {
    assert.deepEqual(events.map(payloadOf), expected, `read form ${form}`);
  }
}

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function binaryCases({ test }: CaseContext): void {
  test("binary data is kept byte for byte: bytes that are not UTF-8, a zero byte, empty data", async (store) => {
    const events = [
      { ...newEvent(), data: allBytes },
      { ...newEvent(), data: Payload.fromBytes(Buffer.from([0xff])) },
      { ...newEvent(), data: Buffer.alloc(0) },
      { ...newEvent(), data: Buffer.from('{"looks":"like JSON"}') },
    ];
    const result = await appendEvents(store.engine, "acme", "bin", events);
    assert.equal(result.count, 4);
    const expected = [
      allBytes,
      Buffer.from([0xff]),
      Buffer.alloc(0),
      Buffer.from('{"looks":"like JSON"}'),
    ].map((data) => ({ content_type: BINARY_TYPE, data, metadata: "{}" }));
    await assertPayloads(store.engine, "bin", expected);
    await assertPayloads(await store.reopen(), "bin", expected);
  });

  test("JSON data and metadata may be any JSON value, kept as their text", async (store) => {
    const values = ["[1, 2,3 ]", '"a string"', "42", "-1.50e3", "true", "false", "null", ' {"a" : 1} '];
    const events = values.map((data, i) => newEvent({ data, metadata: values[(i + 3) % values.length]! }));
    await appendEvents(store.engine, "acme", "values", events);
    const expected = events.map((e) => ({ content_type: JSON_TYPE, data: e.data, metadata: e.metadata }));
    await assertPayloads(store.engine, "values", expected);
    await assertPayloads(await store.reopen(), "values", expected);
  });

  test("metadata given as bytes is kept and returned as bytes, with JSON or binary data", async (store) => {
    const raw = Buffer.from([0x00, 0xff, 0x7b, 0x7d]);
    const events = [
      { ...newEvent({ data: '{"a":1}' }), metadata: raw },
      { ...newEvent(), data: allBytes, metadata: Payload.fromBytes(Buffer.from("{}")) },
      { ...newEvent({ data: "[]" }), metadata: Buffer.alloc(0) },
    ];
    await appendEvents(store.engine, "acme", "meta", events);
    const expected = [
      { content_type: JSON_TYPE, data: '{"a":1}', metadata: raw },
      { content_type: BINARY_TYPE, data: allBytes, metadata: Buffer.from("{}") },
      { content_type: JSON_TYPE, data: "[]", metadata: Buffer.alloc(0) },
    ];
    await assertPayloads(store.engine, "meta", expected);
    await assertPayloads(await store.reopen(), "meta", expected);
  });

  test("a batch mixing JSON and binary events is one atomic append with gapless revisions", async (store) => {
    await appendEvents(store.engine, "acme", "mixed", [newEvent()]);
    const batch = [newEvent({ data: "[1]" }), { ...newEvent(), data: allBytes }, newEvent()];
    const result = await appendEvents(store.engine, "acme", "mixed", batch, 0);
    assert.deepEqual([result.first_revision, result.last_revision, result.count], [1, 3, 3]);
    const read = await readStreamFully(store.engine, "acme", "mixed");
    assert.deepEqual(
      read.map((e) => [e.revision, e.content_type]),
      [
        [0, JSON_TYPE],
        [1, JSON_TYPE],
        [2, BINARY_TYPE],
        [3, JSON_TYPE],
      ],
    );
    assert.deepEqual(read[2]!.data, allBytes);
    assert.equal(read[3]!.position, result.position);
    // A batch with one bad event stores none of them, binary ones included.
    await rejectsWith(
      appendEvents(store.engine, "acme", "mixed", [
        { ...newEvent(), data: allBytes },
        newEvent({ data: "{" }),
      ]),
      "INVALID_ARGUMENT",
    );
    assert.equal((await readStreamFully(store.engine, "acme", "mixed")).length, 4);
  });

  test("appending a binary event again with its event id is idempotent", async (store) => {
    const event = { ...newEvent(), data: allBytes, metadata: Buffer.from([1, 2, 3]) };
    const first = await appendEvents(store.engine, "acme", "idem", [event]);
    await appendEvents(store.engine, "acme", "idem", [newEvent()]);
    const again = await appendEvents(store.engine, "acme", "idem", [
      { ...event, data: Buffer.from(allBytes) },
    ]);
    assert.deepEqual(again, first);
    const read = await readStreamFully(store.engine, "acme", "idem");
    assert.equal(read.length, 2);
    assert.deepEqual(payloadOf(read[0]!), {
      content_type: BINARY_TYPE,
      data: allBytes,
      metadata: Buffer.from([1, 2, 3]),
    });
  });

  test(
    "the event size limit counts bytes: data plus metadata of exactly the limit is stored, one byte more is not",
    async (store) => {
      const metadata = Buffer.from([0xff, 0xfe]);
      const data = Buffer.alloc(limits.eventBytesMax - metadata.length, 0xab);
      const result = await appendEvents(store.engine, "acme", "big", [{ ...newEvent(), data, metadata }]);
      assert.equal(result.count, 1);
      await rejectsWith(
        appendEvents(store.engine, "acme", "big", [
          { ...newEvent(), data: Buffer.concat([data, Buffer.from([1])]), metadata },
        ]),
        "PAYLOAD_TOO_LARGE",
      );
      const [event] = await readStreamFully(store.engine, "acme", "big");
      assert.deepEqual(event!.data, data);
      assert.deepEqual(event!.metadata, metadata);
      // A stream's bytes count a binary event as a JSON event of as many bytes.
      const text = `"${"x".repeat(data.length - 2)}"`;
      await appendEvents(store.engine, "acme", "bij", [newEvent({ data: text, metadata: '""' })]);
      const binaryInfo = await store.engine.getStreamInfo("acme", "big");
      const jsonInfo = await store.engine.getStreamInfo("acme", "bij");
      assert.equal(binaryInfo?.bytes, jsonInfo?.bytes);
    },
    { fullLimits: true },
  );

  test("binary events pass verify and survive a scavenge of other events", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "gone", [{ ...newEvent(), data: allBytes }, newEvent()]);
    await appendEvents(engine, "acme", "kept", [
      { ...newEvent(), data: allBytes, metadata: Buffer.from([0]) },
      newEvent({ data: "[true]" }),
    ]);
    await engine.deleteStream("acme", "gone");
    assert.equal((await engine.verify()).ok, true);
    await engine.scavenge({ dry_run: false });
    const expected = [
      { content_type: BINARY_TYPE, data: allBytes, metadata: Buffer.from([0]) },
      { content_type: JSON_TYPE, data: "[true]", metadata: "{}" },
    ];
    await assertPayloads(engine, "kept", expected);
    assert.equal((await engine.verify()).ok, true);
    const reopened = await store.reopen();
    await assertPayloads(reopened, "kept", expected);
    assert.equal((await reopened.verify()).ok, true);
    assert.equal((await reopened.getStreamInfo("acme", "kept"))?.event_count, 2);
  });
}

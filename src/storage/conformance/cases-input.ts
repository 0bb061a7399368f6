/**
 * Bad input: the engine refuses it with an EssError before anything is written, even though
 * the operations layer validates first. Written as a table, one case per row.
 */
import assert from "node:assert/strict";
import type { ErrorCode } from "../../errors.js";
import { limits } from "../../limits.js";
import { Payload } from "../../contract/payload.js";
import type { AppendInput, EventToAppend } from "../engine.js";
import type { CaseContext } from "./suite.js";
import { newEvent, newEvents, readTenantFully, rejectsWith } from "./harness.js";

interface BadAppend {
  name: string;
  input: () => AppendInput;
  code: ErrorCode | ErrorCode[];
}

function append(events: EventToAppend[], fields: Partial<AppendInput> = {}): AppendInput {
  return { tenant_id: "acme", stream_id: "s", events, expected_revision: "any", ...fields };
}

/** An event whose data and metadata together hold `bytes` bytes of JSON text. */
function eventOfBytes(bytes: number): EventToAppend {
  const metadata = '{"m":1}';
  const shell = '{"p":""}';
  return newEvent({ data: `{"p":"${"x".repeat(bytes - metadata.length - shell.length)}"}`, metadata });
}

const badAppends: BadAppend[] = [
  // Text that is not valid UTF-8 (docs/contract.md "Errors"): never written as U+FFFD.
  {
    name: "a stream id holding a lone surrogate",
    input: () => append(newEvents(1), { stream_id: "sur\ud800" }),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "a tenant id holding a lone surrogate",
    input: () => append(newEvents(1), { tenant_id: "acme\udbff" }),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "an event type holding a lone surrogate",
    input: () => append([newEvent({ event_type: "E\udc00" })]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "data with a lone surrogate escape in a string",
    input: () => append([newEvent({ data: '{"s":"\\ud800"}' })]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "metadata with a lone surrogate in a key",
    input: () => append([newEvent({ metadata: '{"\ud800":1}' })]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "an event larger than the event limit",
    input: () => append([eventOfBytes(limits.eventBytesMax + 1)]),
    code: "PAYLOAD_TOO_LARGE",
  },
  {
    name: "a batch whose last event is larger than the event limit",
    input: () => append([...newEvents(3), eventOfBytes(limits.eventBytesMax + 1)]),
    code: "PAYLOAD_TOO_LARGE",
  },
  {
    name: "more events than one append may carry",
    input: () => append(newEvents(limits.appendEventsMax + 1)),
    code: "INVALID_ARGUMENT",
  },
  { name: "an append without events", input: () => append([]), code: "INVALID_ARGUMENT" },
  {
    name: "an event id that is not a UUID",
    input: () => append([newEvent({ event_id: "order-1" })]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "an event id in upper case",
    input: () => append([newEvent({ event_id: "9B2F5C1E-3D4A-4E5F-8A6B-7C8D9E0F1A2B" })]),
    code: "INVALID_ARGUMENT",
  },
  { name: "an empty event id", input: () => append([newEvent({ event_id: "" })]), code: "INVALID_ARGUMENT" },
  {
    name: "the same event id twice in one batch",
    input: () => {
      const event = newEvent();
      return append([event, { ...event }]);
    },
    code: "INVALID_ARGUMENT",
  },
  // Any JSON value is data (an array, a number, null: cases-binary.ts); text that is not JSON is not.
  {
    name: "data that is not JSON",
    input: () => append([newEvent({ data: "{not json" })]),
    code: "INVALID_ARGUMENT",
  },
  { name: "empty data", input: () => append([newEvent({ data: "" })]), code: "INVALID_ARGUMENT" },
  {
    name: "data with text after the object",
    input: () => append([newEvent({ data: '{"a":1} {"b":2}' })]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "data given as a payload nobody checked, that is not JSON",
    input: () => append([{ ...newEvent(), data: Payload.fromText("{not json") }]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "metadata given as a payload nobody checked, that is not JSON",
    input: () => append([{ ...newEvent(), metadata: Payload.fromText("[1") }]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "metadata that is not JSON",
    input: () => append([newEvent({ metadata: "m" })]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "data that is neither text nor bytes",
    input: () => append([{ ...newEvent(), data: 42 as unknown as string }]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "binary data larger than the event limit",
    input: () => append([{ ...newEvent(), data: Buffer.alloc(limits.eventBytesMax - 1), metadata: "{}" }]),
    code: "PAYLOAD_TOO_LARGE",
  },
  {
    name: "an empty event type",
    input: () => append([newEvent({ event_type: "" })]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "an event type longer than its limit",
    input: () => append([newEvent({ event_type: "t".repeat(limits.eventTypeBytesMax + 1) })]),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "an empty stream id",
    input: () => append(newEvents(1), { stream_id: "" }),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "a stream id longer than its limit in UTF-8 bytes",
    input: () => append(newEvents(1), { stream_id: "\u00e9".repeat(limits.idBytesMax / 2) + "x" }),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "a stream id starting with $",
    input: () => append(newEvents(1), { stream_id: "$all" }),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "a stream id with a control character",
    input: () => append(newEvents(1), { stream_id: "a\u0001b" }),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "an empty tenant id",
    input: () => append(newEvents(1), { tenant_id: "" }),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "a negative expected revision",
    input: () => append(newEvents(1), { expected_revision: -1 }),
    code: "INVALID_ARGUMENT",
  },
  {
    name: "a fractional expected revision",
    input: () => append(newEvents(1), { expected_revision: 1.5 }),
    code: "INVALID_ARGUMENT",
  },
];

export function inputCases({ test }: CaseContext): void {
  for (const bad of badAppends) {
    test(
      `an append with ${bad.name} is refused and writes nothing`,
      async (store) => {
        const { engine } = store;
        const input = bad.input();
        await rejectsWith(engine.append(input), bad.code);
        assert.deepEqual(
          (await engine.listStreams({ tenant_id: null, prefix: null, limit: 10, cursor: null })).streams,
          [],
        );
        const status = await engine.status();
        assert.equal(status.events_total, 0);
        assert.equal(status.streams_total, 0);
        assert.deepEqual(await readTenantFully(engine, "acme"), []);
        assert.equal(await engine.getTenantUsage("acme"), null);
      },
      { sharedStore: "bad input" },
    );
  }

  test(
    "the largest allowed event, ids and batch are accepted",
    async (store) => {
      const { engine } = store;
      const longId = "\u00e9".repeat(limits.idBytesMax / 2);
      const big = eventOfBytes(limits.eventBytesMax);
      const result = await engine.append(append([big], { stream_id: longId, tenant_id: longId }));
      assert.equal(result.count, 1);
      const page = await engine.readStream({
        tenant_id: longId,
        stream_id: longId,
        direction: "forward",
        from_revision: null,
        limit: 1,
      });
      assert.equal(page.events[0]!.data, big.data);
      const many = newEvents(limits.appendEventsMax, () => ({
        event_type: "t".repeat(limits.eventTypeBytesMax),
      }));
      const batch = await engine.append(append(many));
      assert.equal(batch.count, limits.appendEventsMax);
      assert.equal(batch.last_revision, limits.appendEventsMax - 1);
    },
    { fullLimits: true },
  );

  test("a refused bad batch leaves an existing stream as it was", async (store) => {
    const { engine } = store;
    await engine.append(append(newEvents(2)));
    const before = await engine.getStreamInfo("acme", "s");
    await rejectsWith(engine.append(append([...newEvents(2), newEvent({ data: "[" })])), "INVALID_ARGUMENT");
    assert.deepEqual(await engine.getStreamInfo("acme", "s"), before);
    assert.equal((await readTenantFully(engine, "acme")).length, 2);
  });
}

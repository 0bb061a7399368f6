import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Payload } from "../contract/payload.js";
import { keepEventPayloadText } from "./raw-json.js";

const jsonObject = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 });

/** JSON text of `value` with random whitespace between tokens, as a hand-written body might have. */
function looselyFormatted(value: unknown, indent: number): string {
  return JSON.stringify(value, null, indent).replace(/":/g, indent % 2 ? '" :' : '":');
}

test("the payload texts handed on are the client's own bytes and mean the parsed values", () => {
  fc.assert(
    fc.property(jsonObject, jsonObject, fc.integer({ min: 0, max: 3 }), (data, metadata, indent) => {
      const dataText = looselyFormatted(data, indent);
      const metadataText = looselyFormatted(metadata, 3 - indent);
      const text = `{ "metadata" :${metadataText}, "event_type":"t","data":  ${dataText} }`;
      const body = JSON.parse(text) as Record<string, unknown>;
      keepEventPayloadText(body, text);
      assert.deepEqual(body.data, Payload.fromText(dataText));
      assert.deepEqual(body.metadata, Payload.fromText(metadataText));
      assert.deepEqual(JSON.parse(body.data.text), JSON.parse(dataText));
    }),
    { numRuns: 300 },
  );
});

test("every event of a batch keeps its own payload text", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(jsonObject, fc.option(jsonObject)), { minLength: 1, maxLength: 5 }),
      (events) => {
        const parts = events.map(
          ([data, metadata]) =>
            `{"event_type":"t","data":${JSON.stringify(data, null, 1)}` +
            (metadata === null ? "}" : `, "metadata": ${JSON.stringify(metadata)}}`),
        );
        const text = `{"expected_revision":"any","events":[ ${parts.join(" ,\n")} ]}`;
        const body = JSON.parse(text) as { events: Record<string, unknown>[] };
        keepEventPayloadText(body, text);
        events.forEach(([data, metadata], i) => {
          assert.deepEqual(body.events[i]?.data, Payload.fromText(JSON.stringify(data, null, 1)));
          if (metadata !== null)
            assert.deepEqual(body.events[i]?.metadata, Payload.fromText(JSON.stringify(metadata)));
        });
      },
    ),
    { numRuns: 200 },
  );
});

test("escaped keys, duplicate keys and big numbers resolve as JSON.parse does, bytes kept", () => {
  const text = '{"event_type":"t","data":{"first":1},"d\\u0061ta":{"n": 12345678901234567890, "s":"\\"}"}}';
  const body = JSON.parse(text) as Record<string, unknown>;
  keepEventPayloadText(body, text);
  assert.deepEqual(body.data, Payload.fromText('{"n": 12345678901234567890, "s":"\\"}"}'));
});

test("payloads that are not objects are left parsed for the operations to refuse", () => {
  const text = '{"event_type":"t","data":[1,2],"metadata":"m"}';
  const body = JSON.parse(text) as Record<string, unknown>;
  keepEventPayloadText(body, text);
  assert.deepEqual(body.data, [1, 2]);
  assert.equal(body.metadata, "m");
});

test("payload texts JSON.parse accepted are checked payloads, so they are not parsed again", () => {
  fc.assert(
    fc.property(jsonObject, (data) => {
      const dataText = JSON.stringify(data, null, 2);
      const text = `{"event_type":"t","data":${dataText},"metadata":{}}`;
      const body = JSON.parse(text) as { data: Payload; metadata: Payload };
      keepEventPayloadText(body, text);
      assert.equal(body.data.isChecked, true);
      assert.equal(body.metadata.isChecked, true);
      assert.equal(body.data.text, dataText);
    }),
    { numRuns: 200 },
  );
  // A transport's own text (gRPC) is not checked yet: the operations parse it once.
  assert.equal(Payload.fromText("{}").isChecked, false);
});

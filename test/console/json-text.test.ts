import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { eventPayloadTexts, indentJson } from "../../console/src/lib/json-text.js";

test("each event's data and metadata come out of the answer's text byte for byte", () => {
  const answer =
    '{"stream_id":"s","direction":"forward","events":[' +
    '{"stream_id":"s","revision":0,"data":{"price":1.50,"big":12345678901234567890,"s":"a \\"}\\" b"},"metadata":{}},' +
    '{"revision":1,"data_base64":"AAE=","metadata":{"k":[1,{"x":"]"}]}},' +
    '{"revision":2,"data":{"dup":1,"dup":2},"metadata":null}' +
    '],"next_revision":null,"is_end":true}';
  assert.deepEqual(eventPayloadTexts(answer), [
    { data: '{"price":1.50,"big":12345678901234567890,"s":"a \\"}\\" b"}', metadata: "{}" },
    { data: null, metadata: '{"k":[1,{"x":"]"}]}' },
    { data: '{"dup":1,"dup":2}', metadata: "null" },
  ]);
  assert.deepEqual(eventPayloadTexts('{"events":[],"next_position":null}'), []);
  assert.equal(eventPayloadTexts('{"streams":[]}'), null);
  assert.equal(eventPayloadTexts("not json"), null);
});

test("indenting changes only the whitespace between tokens", () => {
  assert.equal(
    indentJson('{"price":1.50,"list":[1e3,-0.0,true,null],"empty":{},"none":[],"s":"a,b:{c}"}'),
    '{\n  "price": 1.50,\n  "list": [\n    1e3,\n    -0.0,\n    true,\n    null\n  ],\n  "empty": {},\n  "none": [],\n  "s": "a,b:{c}"\n}',
  );
  assert.equal(indentJson(" 42 "), "42");
  assert.equal(indentJson('"\\u00e9\\n"'), '"\\u00e9\\n"');
  assert.equal(indentJson("{"), null);
  assert.equal(indentJson("}"), null);
});

test("indented JSON parses to the same value as the original, for any JSON", () => {
  fc.assert(
    fc.property(fc.json(), (text) => {
      const indented = indentJson(text);
      assert.notEqual(indented, null);
      assert.deepEqual(JSON.parse(indented ?? ""), JSON.parse(text));
      // Idempotent: indenting again changes nothing.
      assert.equal(indentJson(indented ?? ""), indented);
    }),
    { numRuns: 300 },
  );
});

test("payload texts are found in any answer the service could send", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.json(), fc.json()), { maxLength: 5 }), (payloads) => {
      const answer = `{"events":[${payloads
        .map(([data, metadata], revision) => `{"revision":${revision},"data":${data},"metadata":${metadata}}`)
        .join(",")}],"is_end":true}`;
      assert.deepEqual(
        eventPayloadTexts(answer),
        payloads.map(([data, metadata]) => ({ data, metadata })),
      );
    }),
    { numRuns: 200 },
  );
});

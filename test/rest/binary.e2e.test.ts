/**
 * Binary events over REST, in both gateway modes: `data_base64` / `metadata_base64` in an append,
 * the same names in reads for bytes, `content_type` on every event, malformed base64 refused with
 * the field named and nothing stored, and what gRPC clients store (JSON values that are not
 * objects) read back as JSON.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  adminPassword,
  gatewayModes,
  http,
  login,
  responseValidators,
  startTarget,
  type RestTarget,
} from "./harness.js";

type ErrorBody = { error: { code: string; message: string; details: Record<string, unknown> } };
type ReadBody = { events: Record<string, unknown>[] };

const validate = responseValidators();

/** Every byte value, then bytes that are not UTF-8. */
const bytes = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from([0xed, 0xa0, 0x80]),
]);

for (const mode of gatewayModes) {
  describe(`REST binary events (${mode})`, () => {
    let target: RestTarget;
    let token: string;

    before(async () => {
      target = await startTarget(mode);
      token = await login(target, "admin", adminPassword);
    });
    after(async () => {
      await target?.stop();
    });

    async function read(stream: string): Promise<ReadBody> {
      const response = await http(target, "GET", `/v1/streams/${stream}`, { token });
      assert.equal(response.status, 200, response.text);
      assert.equal(validate("ReadResult", response.body), null, response.text);
      return response.body as ReadBody;
    }

    async function refused(stream: string, body: unknown, field: string): Promise<void> {
      const response = await http(target, "POST", `/v1/streams/${stream}/append`, { token, body });
      assert.equal(response.status, 400, response.text);
      assert.equal(validate("Error", response.body), null, response.text);
      const error = (response.body as ErrorBody).error;
      assert.equal(error.code, "INVALID_ARGUMENT", response.text);
      assert.equal(error.details.field, field, response.text);
      const info = await http(target, "GET", `/v1/streams/${stream}/info`, { token });
      assert.equal(info.status, 404, `nothing stored: ${info.text}`);
    }

    test("data_base64 and metadata_base64 are stored as bytes and read back as base64, byte for byte", async () => {
      const stream = `bin-${randomUUID()}`;
      const appended = await http(target, "POST", `/v1/streams/${stream}/append`, {
        token,
        body: {
          events: [
            { event_type: "Blob", data_base64: bytes.toString("base64"), metadata_base64: "AP8=" },
            { event_type: "Empty", data_base64: "" },
            {
              event_type: "Json",
              data: { a: [1, 2] },
              metadata_base64: Buffer.from("not json").toString("base64"),
            },
          ],
        },
      });
      assert.equal(appended.status, 200, appended.text);
      assert.equal(validate("AppendResult", appended.body), null);
      const single = await http(target, "POST", `/v1/streams/${stream}/append`, {
        token,
        body: { event_type: "One", data_base64: "/w==" },
      });
      assert.equal(single.status, 200, single.text);
      const events = (await read(stream)).events;
      assert.deepEqual(
        events.map((e) => [
          e.event_type,
          e.content_type,
          e.data,
          e.data_base64,
          e.metadata,
          e.metadata_base64,
        ]),
        [
          ["Blob", "application/octet-stream", undefined, bytes.toString("base64"), undefined, "AP8="],
          ["Empty", "application/octet-stream", undefined, "", {}, undefined],
          [
            "Json",
            "application/json",
            { a: [1, 2] },
            undefined,
            undefined,
            Buffer.from("not json").toString("base64"),
          ],
          ["One", "application/octet-stream", undefined, "/w==", {}, undefined],
        ],
      );
      const all = await http(target, "GET", "/v1/events?limit=1000", { token });
      assert.equal(validate("ReadAllResult", all.body), null, all.text);
      const mine = (all.body as ReadBody).events.filter((e) => e.stream_id === stream);
      assert.deepEqual(mine, events);
    });

    test("every event carries content_type; JSON values a gRPC client stored read back as JSON", async () => {
      const stream = `json-${randomUUID()}`;
      await target.rpc.append(
        { token },
        {
          stream_id: stream,
          events: [
            { event_type: "Array", data: [1, "two"] },
            { event_type: "Text", data: "a string", metadata: 7 },
            { event_type: "Null", data: null },
            // An in-process caller's Buffer is bytes (what a read gives for a binary event).
            { event_type: "Bytes", data: Buffer.from([0xff]), metadata: Buffer.from("m") },
          ],
        },
      );
      const response = await http(target, "GET", `/v1/streams/${stream}`, { token });
      assert.match(response.text, /"data":\[1,"two"\],"metadata":\{\},/);
      const events = (response.body as ReadBody).events;
      assert.deepEqual(
        events.map((e) => [e.data, e.metadata, e.content_type]),
        [
          [[1, "two"], {}, "application/json"],
          ["a string", 7, "application/json"],
          [null, {}, "application/json"],
          [undefined, undefined, "application/octet-stream"],
        ],
      );
    });

    test("an event read over gRPC appends again as it was, bytes included", async () => {
      const stream = `again-${randomUUID()}`;
      const source = await target.rpc.read({ token }, { stream_id: stream }).catch(() => null);
      assert.equal(source, null, "a new stream");
      await target.rpc.append(
        { token },
        {
          stream_id: stream,
          events: [{ event_type: "B", data: Buffer.from([1, 2]), metadata: Buffer.from([3]) }],
        },
      );
      const [event] = (await target.rpc.read({ token }, { stream_id: stream })).events;
      assert.deepEqual(
        [event!.content_type, event!.data, event!.metadata],
        ["application/octet-stream", Buffer.from([1, 2]), Buffer.from([3])],
      );
      const copy = `${stream}-copy`;
      await target.rpc.append(
        { token },
        {
          stream_id: copy,
          events: [{ event_type: event!.event_type, data: event!.data, metadata: event!.metadata }],
        },
      );
      const [copied] = (await target.rpc.read({ token }, { stream_id: copy })).events;
      assert.deepEqual(
        [copied!.content_type, copied!.data, copied!.metadata],
        [event!.content_type, event!.data, event!.metadata],
      );
    });

    test("malformed base64 is 400 INVALID_ARGUMENT naming the field, and nothing is stored", async () => {
      for (const bad of ["not base64!", "AAA", "AA=A", "A===", "QUJD\n", " QUJD", "QUJD-_"]) {
        await refused(`bad-${randomUUID()}`, { event_type: "T", data_base64: bad }, "data_base64");
      }
      await refused(
        `bad-${randomUUID()}`,
        { event_type: "T", data: {}, metadata_base64: "%%%%" },
        "metadata_base64",
      );
      await refused(
        `bad-${randomUUID()}`,
        {
          events: [
            { event_type: "T", data_base64: "AA==" },
            { event_type: "T", data_base64: "AA=" },
          ],
        },
        "events[1].data_base64",
      );
      await refused(`bad-${randomUUID()}`, { event_type: "T", data_base64: 5 }, "data_base64");
    });

    test("data and data_base64 together, or neither, are refused naming the field", async () => {
      await refused(`bad-${randomUUID()}`, { event_type: "T", data: {}, data_base64: "AA==" }, "data_base64");
      await refused(
        `bad-${randomUUID()}`,
        { event_type: "T", data: {}, metadata: {}, metadata_base64: "AA==" },
        "metadata_base64",
      );
      await refused(`bad-${randomUUID()}`, { event_type: "T" }, "data");
      await refused(
        `bad-${randomUUID()}`,
        { events: [{ event_type: "T", metadata_base64: "" }] },
        "events[0].data",
      );
      // The REST append keeps requiring an object for data.
      await refused(`bad-${randomUUID()}`, { event_type: "T", data: [1] }, "data");
    });

    test("the event size limit counts the decoded bytes", async () => {
      const stream = `big-${randomUUID()}`;
      const limit = 1024 * 1024;
      const fits = await http(target, "POST", `/v1/streams/${stream}/append`, {
        token,
        body: { event_type: "Big", data_base64: Buffer.alloc(limit - 2).toString("base64") },
      });
      assert.equal(fits.status, 200, fits.text.slice(0, 300));
      const tooBig = await http(target, "POST", `/v1/streams/${stream}/append`, {
        token,
        body: { event_type: "Big", data_base64: Buffer.alloc(limit - 1).toString("base64") },
      });
      assert.equal(tooBig.status, 413, tooBig.text.slice(0, 300));
      assert.equal((tooBig.body as ErrorBody).error.code, "PAYLOAD_TOO_LARGE");
    });

    test("the OpenAPI document describes data_base64, metadata_base64 and content_type", async () => {
      type Schema = { properties: Record<string, Schema>; items: Schema };
      const document = (await http(target, "GET", "/v1/openapi.json")).body as {
        components: { schemas: Record<string, Schema> };
      };
      const record = document.components.schemas.ReadResult?.properties.events?.items.properties ?? {};
      for (const name of ["data", "data_base64", "metadata", "metadata_base64", "content_type"]) {
        assert.ok(name in record, `EventRecord.${name}`);
      }
      assert.ok(
        JSON.stringify(document).includes('"data_base64":{"type":"string","contentEncoding":"base64"'),
      );
    });
  });
}

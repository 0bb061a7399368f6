/**
 * Deletes with expected_revision, tombstones and stream metadata over REST, end to end: the real
 * service, real HTTP, in both gateway modes (in-process and `ess gateway` over gRPC), answering
 * the same. Status codes, the error shape and the OpenAPI document's schemas are checked.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  adminPassword,
  expectError,
  expectOk,
  gatewayModes,
  http,
  login,
  startTarget,
  type RestTarget,
} from "./harness.js";

for (const mode of gatewayModes) {
  describe(`REST deletes, tombstones and stream metadata (${mode})`, () => {
    let target: RestTarget;
    let writer: string;
    let reader: string;

    before(async () => {
      target = await startTarget(mode);
      const admin = await login(target, "admin", adminPassword);
      for (const [username, role] of [
        ["wendy", "writer"],
        ["rita", "reader"],
      ]) {
        const created = await http(target, "POST", "/v1/admin/users", {
          token: admin,
          body: { username, password: `${username}-password`, tenant_id: "acme", role },
        });
        assert.equal(created.status, 201, created.text);
      }
      writer = await login(target, "wendy", "wendy-password");
      reader = await login(target, "rita", "rita-password");
    });
    after(async () => {
      await target?.stop();
    });

    const del = (path: string, token = writer) => http(target, "DELETE", `/v1/streams/${path}`, { token });
    const append = (stream: string, expected?: unknown) =>
      http(target, "POST", `/v1/streams/${stream}/append`, {
        token: writer,
        body: {
          event_type: "t",
          data: { n: 1 },
          ...(expected === undefined ? {} : { expected_revision: expected }),
        },
      });

    test("DELETE takes expected_revision and answers 409 when the stream is elsewhere", async () => {
      for (let i = 0; i < 3; i++) assert.equal((await append("d-1")).status, 200);
      const wrong = expectError(await del("d-1?expected_revision=1"), 409, "WRONG_EXPECTED_REVISION");
      assert.equal(wrong.details.actual, 2);
      expectError(await del("d-1?expected_revision=no_stream"), 409, "WRONG_EXPECTED_REVISION");
      expectError(await del("d-1?expected_revision=soon"), 400, "INVALID_ARGUMENT");
      expectError(await del("d-1", reader), 403, "PERMISSION_DENIED");
      const info = expectOk(await del("d-1?expected_revision=2"), "StreamInfo");
      assert.equal(info.deleted, true);
      assert.equal(info.tombstoned, false);
      expectError(await http(target, "GET", "/v1/streams/d-1", { token: reader }), 404, "STREAM_NOT_FOUND");
    });

    test("a tombstone answers 410 STREAM_TOMBSTONED to reads, appends and deletes; info says tombstoned", async () => {
      assert.equal((await append("t-1")).status, 200);
      const info = expectOk(await del("t-1?tombstone=true&expected_revision=stream_exists"), "StreamInfo");
      assert.equal(info.tombstoned, true);
      const gone = expectError(
        await http(target, "GET", "/v1/streams/t-1", { token: reader }),
        410,
        "STREAM_TOMBSTONED",
      );
      assert.equal(gone.details.stream_id, "t-1");
      expectError(await append("t-1"), 410, "STREAM_TOMBSTONED");
      expectError(await append("t-1", "no_stream"), 410, "STREAM_TOMBSTONED");
      expectError(await del("t-1?tombstone=true"), 410, "STREAM_TOMBSTONED");
      expectError(await del("t-1"), 410, "STREAM_TOMBSTONED");
      expectError(
        await http(target, "GET", "/v1/streams/t-1/metadata", { token: reader }),
        410,
        "STREAM_TOMBSTONED",
      );
      const again = expectOk(
        await http(target, "GET", "/v1/streams/t-1/info", { token: reader }),
        "StreamInfo",
      );
      assert.equal(again.tombstoned, true);
      assert.equal(again.deleted, true);
    });

    test("metadata: GET and PUT with a revision, concurrency, and retention as one truth", async () => {
      for (let i = 0; i < 5; i++) assert.equal((await append("m-1")).status, 200);
      assert.deepEqual(
        expectOk(await http(target, "GET", "/v1/streams/m-1/metadata", { token: reader }), "StreamMetadata"),
        {
          stream_id: "m-1",
          metadata_revision: null,
          metadata: {},
        },
      );
      const put = (body: unknown, token = writer) =>
        http(target, "PUT", "/v1/streams/m-1/metadata", { token, body });
      const first = expectOk(
        await put({ metadata: { owner: "ann", $maxCount: 2 }, expected_metadata_revision: "no_stream" }),
        "StreamMetadata",
      );
      assert.equal(first.metadata_revision, 0);
      expectError(await put({ metadata: {}, expected_metadata_revision: 7 }), 409, "WRONG_EXPECTED_REVISION");
      expectError(await put({ metadata: {} }, reader), 403, "PERMISSION_DENIED");
      const read = expectOk(await http(target, "GET", "/v1/streams/m-1", { token: reader }), "ReadResult");
      assert.deepEqual(
        (read.events as { revision: number }[]).map((e) => e.revision),
        [3, 4],
      );
      const info = expectOk(
        await http(target, "PUT", "/v1/streams/m-1/retention", {
          token: writer,
          body: { truncate_before: 1 },
        }),
        "StreamInfo",
      );
      assert.deepEqual(info.retention, { max_age_seconds: null, max_count: null, truncate_before: 1 });
      assert.deepEqual(
        expectOk(await http(target, "GET", "/v1/streams/m-1/metadata", { token: reader }), "StreamMetadata"),
        {
          stream_id: "m-1",
          metadata_revision: 1,
          metadata: { owner: "ann", $tb: 1 },
        },
      );
    });

    test("bad metadata is 400 naming the field; a stream with no event can have metadata", async () => {
      const put = (body: unknown) => http(target, "PUT", "/v1/streams/m-2/metadata", { token: writer, body });
      expectError(await put({ metadata: [] }), 400, "INVALID_ARGUMENT");
      expectError(await put({}), 400, "INVALID_ARGUMENT");
      const wrongType = expectError(await put({ metadata: { $maxAge: "1" } }), 400, "INVALID_ARGUMENT");
      assert.equal(wrongType.details.field, "metadata.$maxAge");
      expectError(
        await http(target, "PUT", "/v1/streams/m-2/metadata", {
          token: writer,
          rawBody: '{"metadata": {"a": ',
          headers: { "content-type": "application/json" },
        }),
        400,
        "INVALID_JSON",
      );
      const set = expectOk(await put({ metadata: { $maxCount: 1, k: "v" } }), "StreamMetadata");
      assert.equal(set.metadata_revision, 0);
      expectError(
        await http(target, "GET", "/v1/streams/m-2/info", { token: reader }),
        404,
        "STREAM_NOT_FOUND",
      );
      assert.equal((await append("m-2")).status, 200);
      assert.equal((await append("m-2")).status, 200);
      const info = expectOk(
        await http(target, "GET", "/v1/streams/m-2/info", { token: reader }),
        "StreamInfo",
      );
      assert.equal(info.event_count, 1);
    });
  });
}

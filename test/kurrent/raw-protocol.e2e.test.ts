// The KurrentDB listener's wire answers that the official clients hide or never ask for, through a
// plain grpc-js client of the protocol: ServerFeatures, structured event ids, Bearer tokens,
// missing event metadata, oversized appends and their trailers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { kurrentProto } from "../../src/kurrent/proto.js";
import { uuidText } from "../../src/kurrent/convert.js";
import { limits } from "../../src/limits.js";
import { serviceVersion } from "../../src/version.js";
import type { ReadResp__Output } from "../../src/rpc/generated/kurrent/event_store/client/streams/ReadResp.js";
import type { AppendResp__Output } from "../../src/rpc/generated/kurrent/event_store/client/streams/AppendResp.js";
import type { SupportedMethods__Output } from "../../src/rpc/generated/kurrent/event_store/client/server_features/SupportedMethods.js";
import type { AppendReq } from "../../src/rpc/generated/kurrent/event_store/client/streams/AppendReq.js";
import { adminPassword, serveKurrent, type KurrentRunning } from "./harness.js";

const basic = `Basic ${Buffer.from(`admin:${adminPassword}`).toString("base64")}`;

function clients(ess: KurrentRunning) {
  const address = `127.0.0.1:${ess.port}`;
  const insecure = grpc.credentials.createInsecure();
  const streams = new kurrentProto.event_store.client.streams.Streams(address, insecure);
  const features = new kurrentProto.event_store.client.server_features.ServerFeatures(address, insecure);
  ess.onStop(() => {
    streams.close();
    features.close();
    return Promise.resolve();
  });
  return { streams, features };
}

function metadata(authorization?: string): grpc.Metadata {
  const m = new grpc.Metadata();
  if (authorization !== undefined) m.set("authorization", authorization);
  return m;
}

/** A client-streaming Append of `messages`; resolves with the answer or the status error. */
function append(
  streams: ReturnType<typeof clients>["streams"],
  auth: grpc.Metadata,
  messages: AppendReq[],
): Promise<{ response?: AppendResp__Output; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    const call = streams.Append(auth, (error, response) =>
      resolve(error ? { error } : response ? { response } : {}),
    );
    for (const message of messages) call.write(message);
    call.end();
  });
}

function readAll(stream: grpc.ClientReadableStream<ReadResp__Output>): Promise<ReadResp__Output[]> {
  return new Promise((resolve, reject) => {
    const out: ReadResp__Output[] = [];
    stream.on("data", (m: ReadResp__Output) => out.push(m));
    stream.on("end", () => resolve(out));
    stream.on("error", reject);
  });
}

const streamId = (name: string) => ({ stream_name: Buffer.from(name) });

test("ServerFeatures is public and lists exactly what is served, with a semantic version", async () => {
  const ess = await serveKurrent();
  try {
    const { features } = clients(ess);
    const answer = await new Promise<SupportedMethods__Output>((resolve, reject) =>
      features.GetSupportedMethods({}, metadata(), (error, response) =>
        error || !response ? reject(error ?? new Error("no answer")) : resolve(response),
      ),
    );
    assert.match(answer.event_store_server_version, /^\d+\.\d+\.\d+$/);
    assert.equal(answer.event_store_server_version, serviceVersion);
    assert.deepEqual(answer.methods.map((m) => `${m.service_name}/${m.method_name}`).sort(), [
      "event_store.client.streams.streams/append",
      "event_store.client.streams.streams/batchappend",
      "event_store.client.streams.streams/delete",
      "event_store.client.streams.streams/read",
      "event_store.client.streams.streams/tombstone",
    ]);
  } finally {
    await ess.stop();
  }
});

test("event ids come back in the form the read asks for; Bearer tokens work; $-names read as not found", async () => {
  const ess = await serveKurrent();
  try {
    const { streams } = clients(ess);
    const login = await ess.service.operations.login(
      { token: null },
      { username: "admin", password: adminPassword },
    );
    const bearer = metadata(`Bearer ${login.access_token}`);
    const id = randomUUID();
    const appended = await append(streams, bearer, [
      { options: { stream_identifier: streamId("ids-1"), any: {} } },
      {
        proposed_message: {
          id: { string: id },
          metadata: { type: "T", "content-type": "application/json" },
          data: Buffer.from('{"a":1}'),
          custom_metadata: Buffer.alloc(0),
        },
      },
    ]);
    assert.equal(appended.error, undefined, appended.error?.message);
    assert.equal(appended.response?.success?.current_revision, "0");
    for (const form of ["structured", "string"] as const) {
      const answers = await readAll(
        streams.Read(
          {
            options: {
              stream: { stream_identifier: streamId("ids-1"), start: {} },
              count: "9007199254740991",
              no_filter: {},
              uuid_option: { [form]: {} },
            },
          },
          metadata(basic),
        ),
      );
      const event = answers[0]?.event?.event;
      assert.equal(event?.id?.value, form);
      assert.equal(uuidText(event?.id, "id"), id);
      assert.equal(event?.metadata["content-type"], "application/json");
      assert.equal(event?.commit_position, event?.prepare_position);
    }
    const system = await readAll(
      streams.Read(
        {
          options: {
            stream: { stream_identifier: streamId("$ce-orders"), start: {} },
            count: "10",
            no_filter: {},
            uuid_option: { string: {} },
          },
        },
        metadata(basic),
      ),
    );
    assert.deepEqual(
      system.map((m) => m.content),
      ["stream_not_found"],
    );
  } finally {
    await ess.stop();
  }
});

test("appends answer with the trailers KurrentDB clients read: missing metadata, too large", async () => {
  const ess = await serveKurrent();
  try {
    const { streams } = clients(ess);
    const options = { options: { stream_identifier: streamId("big"), any: {} } };
    const event = (bytes: number, meta: Record<string, string>) => ({
      proposed_message: {
        id: { string: randomUUID() },
        metadata: meta,
        data: Buffer.from(JSON.stringify({ x: "y".repeat(bytes) })),
        custom_metadata: Buffer.alloc(0),
      },
    });
    const missing = await append(streams, metadata(basic), [options, event(1, { type: "T" })]);
    assert.equal(missing.error?.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(missing.error?.metadata.get("exception")[0], "missing-required-metadata-property");
    assert.equal(missing.error?.metadata.get("required-metadata-properties")[0], "type,content-type");

    const json = { type: "T", "content-type": "application/json" };
    const tooMany = Array.from({ length: limits.appendEventsMax + 1 }, () => event(1, json));
    const tooLarge = await append(streams, metadata(basic), [options, ...tooMany]);
    assert.equal(tooLarge.error?.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(tooLarge.error?.metadata.get("exception")[0], "maximum-append-size-exceeded");
    assert.equal(tooLarge.error?.metadata.get("maximum-append-size")[0], String(limits.appendBodyBytesMax));

    const unauthenticated = await append(streams, metadata(), [options, event(1, json)]);
    assert.equal(unauthenticated.error?.code, grpc.status.UNAUTHENTICATED);
    assert.equal(unauthenticated.error?.metadata.get("exception")[0], "access-denied");
    // Nothing of the refused appends was stored.
    const info = await ess.service.operations
      .login({ token: null }, { username: "admin", password: adminPassword })
      .then((login) => ess.service.operations.getInfo({ token: login.access_token }, { stream_id: "big" }))
      .catch((error: unknown) => error);
    assert.equal((info as { code?: string }).code, "STREAM_NOT_FOUND");
  } finally {
    await ess.stop();
  }
});

test("calls arriving together with the same Basic credentials share one login", async () => {
  const ess = await serveKurrent();
  try {
    const { streams } = clients(ess);
    // More at once than password hashing admits (limits.passwordHashesRunningMax + WaitingMax):
    // without sharing, the later ones would be refused RATE_LIMITED.
    const calls = limits.passwordHashesRunningMax + limits.passwordHashesWaitingMax + 22;
    const answers = await Promise.all(
      Array.from({ length: calls }, () =>
        readAll(
          streams.Read(
            {
              options: {
                stream: { stream_identifier: streamId("nobody"), start: {} },
                count: "1",
                no_filter: {},
                uuid_option: { string: {} },
              },
            },
            metadata(basic),
          ),
        ),
      ),
    );
    assert.deepEqual(
      new Set(answers.map((a) => a.map((m) => m.content).join())),
      new Set(["stream_not_found"]),
    );
  } finally {
    await ess.stop();
  }
});

test("append messages that are not protobuf, or hold text that is not UTF-8, are refused with INVALID_ARGUMENT", async () => {
  const ess = await serveKurrent();
  const raw = new grpc.Client(`127.0.0.1:${ess.port}`, grpc.credentials.createInsecure());
  ess.onStop(() => Promise.resolve(raw.close()));
  const same = (bytes: Buffer): Buffer => bytes;
  try {
    /** The status a BatchAppend call ends with after `messages`, sent as they are. */
    const batchAppend = (messages: Buffer[]): Promise<grpc.ServiceError | null> =>
      new Promise((resolve) => {
        const call = raw.makeBidiStreamRequest(
          "/event_store.client.streams.Streams/BatchAppend",
          same,
          same,
          metadata(basic),
        );
        call.on("data", () => undefined);
        call.on("error", (error: grpc.ServiceError) => resolve(error));
        call.on("end", () => resolve(null));
        for (const message of messages) call.write(message);
      });
    // Wire type 7 does not exist.
    const notProtobuf = await batchAppend([Buffer.from([0x0f])]);
    assert.equal(notProtobuf?.code, grpc.status.INVALID_ARGUMENT);
    assert.match(notProtobuf.details, /malformed protobuf message/);

    // A batch whose event's type is the byte 0x80 (a lone continuation byte), else valid.
    const type = kurrentProto.event_store.client.streams.Streams.service.BatchAppend;
    const batch = type.requestSerialize({
      correlation_id: { string: randomUUID() },
      options: { stream_identifier: streamId("utf8"), any: {} },
      proposed_messages: [
        { metadata: { type: "Z", "content-type": "application/json" }, data: Buffer.from("{}") },
      ],
      is_final: true,
    });
    const at = batch.indexOf(Buffer.from([0x12, 0x01, 0x5a])); // the value "Z"
    assert.ok(at > 0);
    batch[at + 2] = 0x80;
    const notUtf8 = await batchAppend([batch]);
    assert.equal(notUtf8?.code, grpc.status.INVALID_ARGUMENT);

    const append = await new Promise<grpc.ServiceError | null>((resolve) => {
      const call = raw.makeClientStreamRequest(
        "/event_store.client.streams.Streams/Append",
        same,
        same,
        metadata(basic),
        (error) => resolve(error),
      );
      call.write(Buffer.from([0x0a, 0x05, 0x01]));
      call.end();
    });
    assert.equal(append?.code, grpc.status.INVALID_ARGUMENT, "a length past the message's end");
  } finally {
    await ess.stop();
  }
});

test("an append of no events checks the expected revision, writes nothing, and needs a writer", async () => {
  const ess = await serveKurrent();
  try {
    const { streams } = clients(ess);
    const ops = ess.service.operations;
    const admin = await ops.login({ token: null }, { username: "admin", password: adminPassword });
    const auth = metadata(`Bearer ${admin.access_token}`);
    const check = (name: string, expected: AppendReq["options"]) =>
      append(streams, auth, [{ options: { stream_identifier: streamId(name), ...expected } }]);

    // A stream with no events: no_stream, without a position.
    const none = await check("empty-1", { no_stream: {} });
    assert.equal(none.error, undefined, none.error?.message);
    assert.equal(none.response?.success?.current_revision_option, "no_stream");
    assert.equal(none.response?.success?.position_option, "no_position");
    const missing = await check("empty-1", { stream_exists: {} });
    assert.equal(missing.response?.wrong_expected_version?.current_revision_option, "current_no_stream");

    const event = (i: number) => ({
      proposed_message: {
        id: { string: randomUUID() },
        metadata: { type: "T", "content-type": "application/json" },
        data: Buffer.from(`{"i":${i}}`),
        custom_metadata: Buffer.alloc(0),
      },
    });
    const written = await append(streams, auth, [
      { options: { stream_identifier: streamId("empty-1"), no_stream: {} } },
      event(0),
      event(1),
    ]);
    assert.equal(written.response?.success?.current_revision, "1");
    // The stream's last revision comes back; a wrong one is a wrong expected version, not a write.
    const exact = await check("empty-1", { revision: "1" });
    assert.equal(exact.response?.success?.current_revision, "1");
    assert.equal(exact.response?.success?.position_option, "no_position");
    const stale = await check("empty-1", { revision: "0" });
    assert.equal(stale.response?.wrong_expected_version?.current_revision, "1");
    const notNew = await check("empty-1", { no_stream: {} });
    assert.equal(notNew.response?.wrong_expected_version?.current_revision, "1");
    const info = await ops.getInfo({ token: admin.access_token }, { stream_id: "empty-1" });
    assert.equal(info.event_count, 2, "nothing was written by the checks");

    // Checking is appending: a reader may not.
    await ops.createUser(
      { token: admin.access_token },
      { username: "rita", password: "rita-password", tenant_id: "default", role: "reader" },
    );
    const rita = await ops.login({ token: null }, { username: "rita", password: "rita-password" });
    const refused = await append(streams, metadata(`Bearer ${rita.access_token}`), [
      { options: { stream_identifier: streamId("empty-1"), any: {} } },
    ]);
    assert.equal(refused.error?.code, grpc.status.PERMISSION_DENIED, refused.error?.message);
  } finally {
    await ess.stop();
  }
});

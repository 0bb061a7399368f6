// Request ids on every interface: REST answers every response with x-request-id, gRPC calls
// get it in their response metadata (the headers, or a trailers-only failure) on the fast
// carrier, on grpc-js behind the hop and on grpc-js alone, and the WebSocket upgrade answers
// it too. A client's sane id comes back as sent; anything else is replaced by a new one. The
// log lines about a call (here the slow-operation line, every call being "slow") carry it.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import WebSocket from "ws";
import { proto } from "../../src/rpc/proto.js";
import { startRecordingService } from "../helpers/recording-service.js";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function startRecording(fastCarrier: boolean) {
  const recording = await startRecordingService({
    SERVICE_RPC_FAST_CARRIER: String(fastCarrier),
    SERVICE_WS_ENABLED: "true",
    SERVICE_WS_ADDRESS: "127.0.0.1:0",
  });
  return {
    ...recording,
    restUrl: `http://${recording.listener("rest")}`,
    wsUrl: `ws://${recording.listener("ws")}/v1/subscribe`,
    /** The request ids of the slow-operation lines about `rpc`. */
    loggedIds: (rpc: string) =>
      recording
        .slowLines()
        .filter((fields) => fields.rpc === rpc)
        .map((fields) => fields.request_id),
  };
}

type Answer = { error: grpc.ServiceError | null; headers: grpc.Metadata | null };

/** A unary gRPC call: its failure, if any, and the response headers' metadata, if any came. */
function unary(
  start: (
    metadata: grpc.Metadata,
    callback: (error: grpc.ServiceError | null) => void,
  ) => grpc.ClientUnaryCall,
  token: string | null,
  requestId: string | null,
): Promise<Answer> {
  const metadata = new grpc.Metadata();
  if (token !== null) metadata.set("authorization", `Bearer ${token}`);
  if (requestId !== null) metadata.set("x-request-id", requestId);
  let headers: grpc.Metadata | null = null;
  return new Promise((resolve) => {
    const call = start(metadata, (error) => resolve({ error, headers }));
    call.on("metadata", (m: grpc.Metadata) => (headers = m));
  });
}

function grpcAppend(address: string, token: string | null, requestId: string | null, compressed = false) {
  const client = new proto.ess.v1.Streams(address, grpc.credentials.createInsecure(), {
    ...(compressed ? { "grpc.default_compression_algorithm": 2 } : {}),
  });
  return unary(
    (metadata, callback) =>
      client.Append(
        { stream_id: "rid", events: [{ event_type: "E", data: Buffer.from("{}") }] },
        metadata,
        callback,
      ),
    token,
    requestId,
  ).finally(() => client.close());
}

function adminStatus(address: string, token: string | null, requestId: string | null) {
  const client = new proto.ess.v1.Admin(address, grpc.credentials.createInsecure());
  return unary(
    (metadata, callback) => client.GetStorageStatus({}, metadata, callback),
    token,
    requestId,
  ).finally(() => client.close());
}

const idOf = (metadata: grpc.Metadata | null | undefined) => metadata?.get("x-request-id")[0];

test("REST: every response carries x-request-id; a sane one sent comes back and is logged, others are replaced", async () => {
  const s = await startRecording(true);
  try {
    const append = (headers: Record<string, string>) =>
      fetch(`${s.restUrl}/v1/streams/rid-rest/append`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json", ...headers },
        body: '{"events":[{"event_type":"E","data":{}}]}',
      });
    const sent = await append({ "x-request-id": "client-42:retry/1" });
    assert.equal(sent.status, 200);
    assert.equal(sent.headers.get("x-request-id"), "client-42:retry/1");
    assert.deepEqual(s.loggedIds("Streams.Append"), ["client-42:retry/1"]);

    for (const insane of ["two words", "a".repeat(129), "x<script>", ""]) {
      const replaced = await append({ "x-request-id": insane });
      assert.equal(replaced.status, 200);
      assert.match(replaced.headers.get("x-request-id") ?? "", uuid, JSON.stringify(insane));
    }
    const longest = "b".repeat(128);
    assert.equal((await append({ "x-request-id": longest })).headers.get("x-request-id"), longest);

    // Refusals and unknown routes carry one too, a new one each time.
    const unauthenticated = await fetch(`${s.restUrl}/v1/streams/x`);
    const notFound = await fetch(`${s.restUrl}/v1/nothing-here`);
    assert.equal(unauthenticated.status, 401);
    assert.equal(notFound.status, 404);
    const ids = [unauthenticated, notFound].map((r) => r.headers.get("x-request-id") ?? "");
    for (const id of ids) assert.match(id, uuid);
    assert.notEqual(ids[0], ids[1]);
  } finally {
    await s.close();
  }
});

for (const fastCarrier of [true, false]) {
  const carrier = fastCarrier ? "the fast carrier (grpc-js behind its hop for the rest)" : "grpc-js alone";
  test(`gRPC on ${carrier}: the response metadata carries the request id, in the headers or a trailers-only failure`, async () => {
    const s = await startRecording(fastCarrier);
    try {
      const ok = await grpcAppend(s.address, s.token, "grpc-sent-1");
      assert.equal(ok.error, null);
      assert.equal(idOf(ok.headers), "grpc-sent-1");
      assert.deepEqual(s.loggedIds("Streams.Append"), ["grpc-sent-1"]);

      const generated = await grpcAppend(s.address, s.token, null);
      assert.match(String(idOf(generated.headers)), uuid);
      assert.match(
        String(idOf(await grpcAppend(s.address, s.token, "not sane!").then((a) => a.headers))),
        uuid,
      );

      // A refusal before any message: the id is in the trailers-only answer's metadata.
      const refused = await grpcAppend(s.address, "bad-token", "grpc-sent-2");
      assert.equal(refused.error?.code, grpc.status.UNAUTHENTICATED);
      assert.equal(idOf(refused.error?.metadata), "grpc-sent-2");

      // A compressed call (grpc-js behind the hop when the fast carrier is on) and an Admin call.
      const compressed = await grpcAppend(s.address, s.token, "grpc-sent-3", true);
      assert.equal(compressed.error, null);
      assert.equal(idOf(compressed.headers), "grpc-sent-3");
      const admin = await adminStatus(s.address, s.token, "grpc-sent-4");
      assert.equal(admin.error, null);
      assert.equal(idOf(admin.headers), "grpc-sent-4");
      assert.deepEqual(s.loggedIds("Admin.GetStorageStatus"), ["grpc-sent-4"]);
    } finally {
      await s.close();
    }
  });
}

test("WebSocket: the upgrade's answer carries the request id, a refused upgrade's too", async () => {
  const s = await startRecording(true);
  try {
    const upgraded = new WebSocket(s.wsUrl, {
      headers: { authorization: `Bearer ${s.token}`, "x-request-id": "ws-sent-1" },
    });
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      upgraded.once("upgrade", resolve).once("error", reject),
    );
    assert.equal(response.headers["x-request-id"], "ws-sent-1");
    await new Promise((resolve) =>
      upgraded.readyState === WebSocket.OPEN ? resolve(undefined) : upgraded.once("open", resolve),
    );
    upgraded.close();

    const refused = new WebSocket(s.wsUrl, {
      headers: { authorization: "Bearer bad", "x-request-id": "ws-sent-2" },
    });
    const answer = await new Promise<IncomingMessage>((resolve) =>
      refused.once("unexpected-response", (_r, res) => resolve(res)),
    );
    assert.equal(answer.statusCode, 401);
    assert.equal(answer.headers["x-request-id"], "ws-sent-2");
    // Ending a socket that never opened reports that as an error: expected here.
    refused.on("error", () => undefined);
    refused.terminate();
  } finally {
    await s.close();
  }
});

// The slow-operation log line says which carrier served the call: the gRPC server's fast carrier,
// grpc-js (behind the hop, or alone with SERVICE_RPC_FAST_CARRIER=false), or the REST gateway.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { proto } from "../../src/rpc/proto.js";
import { startRecordingService } from "../helpers/recording-service.js";

async function startRecording(fastCarrier: boolean) {
  const recording = await startRecordingService({ SERVICE_RPC_FAST_CARRIER: String(fastCarrier) });
  return {
    ...recording,
    restUrl: `http://${recording.listener("rest")}`,
    /** The carrier of the last slow Streams.Append line. */
    lastAppendCarrier: () =>
      recording
        .slowLines()
        .filter((fields) => fields.rpc === "Streams.Append")
        .at(-1)?.carrier,
  };
}

function grpcAppend(address: string, token: string, options: grpc.ChannelOptions): Promise<void> {
  const client = new proto.ess.v1.Streams(address, grpc.credentials.createInsecure(), options);
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return new Promise((resolve, reject) =>
    client.Append(
      { stream_id: "slow", events: [{ event_type: "E", data: Buffer.from("{}") }] },
      metadata,
      (error) => {
        client.close();
        if (error) reject(error);
        else resolve();
      },
    ),
  );
}

test("a slow call's log line names the carrier that served it", async () => {
  const withFastCarrier = await startRecording(true);
  try {
    await grpcAppend(withFastCarrier.address, withFastCarrier.token, {});
    assert.equal(withFastCarrier.lastAppendCarrier(), "fast");
    await grpcAppend(withFastCarrier.address, withFastCarrier.token, {
      "grpc.default_compression_algorithm": 2,
    });
    assert.equal(withFastCarrier.lastAppendCarrier(), "grpc-js");
    const answer = await fetch(`${withFastCarrier.restUrl}/v1/streams/slow/append`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${withFastCarrier.token}` },
      body: JSON.stringify({ event_type: "E", data: {} }),
    });
    assert.equal(answer.status, 200);
    assert.equal(withFastCarrier.lastAppendCarrier(), "rest");
    assert.ok(withFastCarrier.slowLines().every((fields) => typeof fields.duration_ms === "number"));
  } finally {
    await withFastCarrier.close();
  }

  const grpcJsAlone = await startRecording(false);
  try {
    await grpcAppend(grpcJsAlone.address, grpcJsAlone.token, {});
    assert.equal(grpcJsAlone.lastAppendCarrier(), "grpc-js");
  } finally {
    await grpcJsAlone.close();
  }
});

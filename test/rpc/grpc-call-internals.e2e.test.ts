// The grpc-js internals the server reaches (src/rpc/grpc-call-internals.ts) are where it looks for
// them in the grpc-js version installed: a real grpc-js server and client on 127.0.0.1. If an
// upgrade moves them, this fails here rather than the server quietly taking its fallbacks
// (unbounded unary reads, stalled subscribers ended by a status that waits behind their data).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import {
  callHttp2Stream,
  callSendMessage,
  resetCallStream,
  serverHttp2Servers,
} from "../../src/rpc/grpc-call-internals.js";

const identity = (value: Buffer): Buffer => value;
const service: grpc.ServiceDefinition = {
  Watch: {
    path: "/internals.Test/Watch",
    requestStream: false,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

test("grpc-js keeps a call's HTTP/2 stream and sendMessage, and a server's node:http2 servers, where the server looks", async () => {
  const server = new grpc.Server();
  const found: { stream: http2.ServerHttp2Stream | null; sendMessage: unknown; reset: boolean }[] = [];
  server.addService(service, {
    Watch: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      const stream = callHttp2Stream(call);
      found.push({ stream, sendMessage: callSendMessage(call), reset: false });
      call.write(Buffer.from("first"));
      // Reset as a stalled subscriber is: the client sees RST_STREAM CANCEL, not a status.
      setTimeout(() => (found[0]!.reset = resetCallStream(call, http2.constants.NGHTTP2_CANCEL)), 50);
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    const servers = serverHttp2Servers(server);
    assert.ok(servers !== null && servers.length === 1, "the server's node:http2 server");

    const call = client.makeServerStreamRequest("/internals.Test/Watch", identity, identity, Buffer.alloc(0));
    const messages: string[] = [];
    call.on("data", (message: Buffer) => messages.push(message.toString()));
    const error = await new Promise<grpc.ServiceError>((resolve) => call.on("error", resolve));

    assert.equal(found.length, 1);
    const { stream, sendMessage, reset } = found[0]!;
    assert.ok(stream !== null, "the call's HTTP/2 stream");
    assert.equal(typeof stream.respond, "function");
    assert.equal(typeof sendMessage, "function", "the call's sendMessage");
    assert.equal(reset, true);
    assert.equal(stream.rstCode, http2.constants.NGHTTP2_CANCEL);
    assert.deepEqual(messages, ["first"]);
    assert.equal(error.code, grpc.status.CANCELLED);
  } finally {
    client.close();
    server.forceShutdown();
  }
});

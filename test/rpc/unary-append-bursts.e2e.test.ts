// Unary appends that reach the server together (src/rpc/burst-queue.ts, through the unary fast
// path): a burst of limits.unaryAppendBurstSplitMin or more runs in halves, one turn apart, so
// it takes more than one group commit and most of it is answered before the rest is committed;
// a smaller burst shares one group commit. Driven by a raw HTTP/2 client that sends every call in one socket write.
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { after, before, test } from "node:test";
import { limits } from "../../src/limits.js";
import { decodeAppendResult, encodeAppendRequest } from "../../src/rpc/codec.js";
import { grpcFrame } from "../../src/rpc/grpc-frame.js";
import { startTestService, type TestService } from "./service-harness.js";

let ts: TestService;

before(async () => {
  ts = await startTestService();
  // A token's first use is verified asynchronously and then remembered; verified here, so the
  // bursts below reach the engine in the turns the server runs them in.
  await ts.client.getInfo(ts.admin, { stream_id: "warm-up" }).catch(() => undefined);
});

after(async () => {
  await ts.close();
});

interface Outcome {
  status: string | undefined;
  /** The revision the append got, when it succeeded. */
  revision: number | null;
}

/** Sends `count` unary Appends (one event each, streams `${prefix}-i`) in one socket write. */
async function appendTogether(
  prefix: string,
  count: number,
): Promise<{ outcomes: Outcome[]; groups: number }> {
  const before = (await ts.service.engine.status()).writer!.batches;
  const session = http2.connect(`http://${ts.address}`);
  try {
    await new Promise<void>((resolve, reject) => session.once("connect", resolve).once("error", reject));
    // The session's frames go out together at the end of this turn, as one write.
    const calls = Array.from({ length: count }, (_, i) => {
      const stream = session.request({
        ":method": "POST",
        ":path": "/ess.v1.Streams/Append",
        "content-type": "application/grpc",
        te: "trailers",
        authorization: `Bearer ${ts.admin.token}`,
      });
      stream.end(
        grpcFrame(
          encodeAppendRequest({
            stream_id: `${prefix}-${i}`,
            events: [{ event_type: "E", data: `{"i":${i}}` }],
            expected_revision: "no_stream",
          }),
        ),
      );
      return new Promise<Outcome>((resolve, reject) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("trailers", (trailers: http2.IncomingHttpHeaders) => {
          const body = Buffer.concat(chunks);
          const status = trailers["grpc-status"] as string | undefined;
          resolve({
            status,
            revision: body.length > 5 ? decodeAppendResult(body.subarray(5)).first_revision : null,
          });
        });
        stream.on("error", reject);
      });
    });
    const outcomes = await Promise.all(calls);
    const groups = (await ts.service.engine.status()).writer!.batches - before;
    return { outcomes, groups };
  } finally {
    session.close();
  }
}

test("a burst of unary appends is committed in halves, and every append lands once", async () => {
  const count = 2 * limits.unaryAppendBurstSplitMin;
  const { outcomes, groups } = await appendTogether("burst", count);
  assert.deepEqual(
    outcomes,
    Array.from({ length: count }, () => ({ status: "0", revision: 0 })),
  );
  // Whole, the burst would take one group commit; in halves it takes two (12, then 4).
  assert.ok(groups >= 2, `${count} appends sent together were committed in ${groups} group(s)`);
  for (let i = 0; i < count; i++) {
    const read = await ts.client.read(ts.admin, { stream_id: `burst-${i}` });
    assert.equal(read.events.length, 1, `burst-${i} holds its one event`);
  }
});

test("a burst below the split size shares one group commit", async () => {
  const count = limits.unaryAppendBurstSplitMin - 4;
  const { outcomes, groups } = await appendTogether("small", count);
  assert.deepEqual(
    outcomes,
    Array.from({ length: count }, () => ({ status: "0", revision: 0 })),
  );
  assert.equal(groups, 1, `${count} appends sent together were committed in ${groups} group(s)`);
});

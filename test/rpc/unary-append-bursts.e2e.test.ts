// Unary appends that reach the server together (src/rpc/fast-carrier/burst-queue.ts, through the unary fast
// path): a burst of limits.unaryAppendBurstSplitMin or more runs in halves, one turn apart, so
// it takes more than one group commit and most of it is answered before the rest is committed;
// a smaller burst shares one group commit. Driven by a raw HTTP/2 client that sends every call in one socket write.
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { after, before, test } from "node:test";
import { limits } from "../../src/limits.js";
import { decodeAppendResult, encodeAppendRequest } from "../../src/rpc/codec/append.js";
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

/** A raw HTTP/2 connection to the service, connected. */
async function connection(): Promise<http2.ClientHttp2Session> {
  const session = http2.connect(`http://${ts.address}`);
  await new Promise<void>((resolve, reject) => session.once("connect", resolve).once("error", reject));
  return session;
}

/**
 * Starts `count` unary Appends (one event each, streams `${prefix}-i`) on `session`; its frames go
 * out together at the end of this turn, as one write. Each resolves with its outcome and the
 * global position its event got (null when it failed).
 */
function sendAppends(
  session: http2.ClientHttp2Session,
  prefix: string,
  count: number,
): Promise<Outcome & { position: number | null }>[] {
  return Array.from({ length: count }, (_, i) => {
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
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("trailers", (trailers: http2.IncomingHttpHeaders) => {
        const body = Buffer.concat(chunks);
        const result = body.length > 5 ? decodeAppendResult(body.subarray(5)) : null;
        resolve({
          status: trailers["grpc-status"] as string | undefined,
          revision: result?.first_revision ?? null,
          position: result?.position ?? null,
        });
      });
      stream.on("error", reject);
    });
  });
}

/** Sends `count` unary Appends in one socket write; returns their outcomes and group commits. */
async function appendTogether(
  prefix: string,
  count: number,
): Promise<{ outcomes: Outcome[]; groups: number }> {
  const before = (await ts.service.engine.status()).writer!.batches;
  const session = await connection();
  try {
    const answered = await Promise.all(sendAppends(session, prefix, count));
    const groups = (await ts.service.engine.status()).writer!.batches - before;
    return { outcomes: answered.map(({ status, revision }) => ({ status, revision })), groups };
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

test("a call on another connection is not held behind a burst's halves", async () => {
  // Split per connection: the lone append on its own connection runs at the end of the turn it
  // arrived in, so it is committed before the tail of the burst sent beside it. (Behind the
  // burst in one queue, its event would come after all of the burst's.)
  const bursting = await connection();
  const lone = await connection();
  try {
    const burst = sendAppends(bursting, "beside-burst", 2 * limits.unaryAppendBurstSplitMin);
    const [alone] = sendAppends(lone, "beside-lone", 1);
    const burstOutcomes = await Promise.all(burst);
    const loneOutcome = await alone!;
    assert.equal(loneOutcome.status, "0");
    assert.ok(burstOutcomes.every((o) => o.status === "0"));
    const lastOfBurst = Math.max(...burstOutcomes.map((o) => o.position!));
    assert.ok(
      loneOutcome.position! < lastOfBurst,
      `the lone append got position ${loneOutcome.position}, the burst's last ${lastOfBurst}`,
    );
  } finally {
    bursting.close();
    lone.close();
  }
});

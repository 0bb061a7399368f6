// The load generator's unary transport (bench/grpc-load/unary-transport.ts: Append, Read and
// ReadAll on its own HTTP/2 connection, bench/grpc-load/h2/) against the real server: the same
// results and the same EssErrors as the product client (grpc-js), large read pages, and the
// scenarios every client passes (test/client/unary-scenarios.ts); and what only this transport
// does: a connection gone silent is left after a deadline.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createLoadClient } from "../../../bench/grpc-load/load-client.js";
import type { RpcClient } from "../../../src/client/rpc-client.js";
import type { EssError } from "../../../src/errors.js";
import { limits } from "../../../src/limits.js";
import type { CallContext } from "../../../src/operations/contract.js";
import { Payload } from "../../../src/contract/payload.js";
import { bareServer } from "../../rpc/bare-http2-server.js";
import { startTestService, type TestService } from "../../rpc/service-harness.js";
import { essError } from "../../client/client-under-test.js";
import { answerEmptyPage, unaryScenarios } from "../../client/unary-scenarios.js";
import { loadClient } from "./load-client-under-test.js";

let ts: TestService;
/** The load client of the service; `ts.client` is the product client. */
let load: RpcClient;

before(async () => {
  ts = await startTestService();
  load = createLoadClient({ address: ts.address, deadlineMs: 20_000 });
});

after(async () => {
  load.close();
  await ts.close();
});

function sameError(a: EssError, b: EssError): void {
  assert.deepEqual(
    { code: a.code, message: a.message, details: a.details },
    { code: b.code, message: b.message, details: b.details },
  );
}

test("appends and reads answer what the product client (grpc-js) answers", async () => {
  const stream = "load-same-1";
  const first = await load.append(ts.admin, {
    stream_id: stream,
    events: [
      { event_type: "A", data: Payload.fromText('{ "x" : "ü\\u00fc", "n": 1 }') },
      { event_type: "B", data: Payload.fromText('{"y":2}'), metadata: Payload.fromText('{"m":"ö"}') },
    ],
    expected_revision: "no_stream",
  });
  const second = await ts.client.append(ts.admin, {
    stream_id: stream,
    event_type: "C",
    data: Payload.fromText("{}"),
    expected_revision: 1,
  });
  assert.equal(first.last_revision, 1);
  assert.equal(second.last_revision, 2);
  const request = { stream_id: stream, limit: 10 };
  assert.deepEqual(await load.read(ts.admin, request), await ts.client.read(ts.admin, request));
  assert.equal((await load.read(ts.admin, request)).events[0]?.data, '{ "x" : "ü\\u00fc", "n": 1 }');
  const all = { from_position: 0, limit: 100 };
  assert.deepEqual(await load.readAll(ts.admin, all), await ts.client.readAll(ts.admin, all));
});

test("failed calls give the same EssError (code, message, details) as the product client", async () => {
  await load.append(ts.admin, {
    stream_id: "load-err-1",
    event_type: "E",
    data: Payload.fromText("{}"),
    expected_revision: "no_stream",
  });
  const conflict = {
    stream_id: "load-err-1",
    event_type: "E",
    data: Payload.fromText("{}"),
    expected_revision: 7,
  };
  const viaLoad = await essError(load.append(ts.admin, conflict));
  assert.equal(viaLoad.code, "WRONG_EXPECTED_REVISION");
  assert.equal(viaLoad.details.actual, 0);
  sameError(viaLoad, await essError(ts.client.append(ts.admin, conflict)));

  // A message with non-ASCII text travels percent-encoded in grpc-message.
  const missing = { stream_id: "load-ßtraße-€-missing", limit: 10 };
  const notFound = await essError(load.read(ts.admin, missing));
  assert.equal(notFound.code, "STREAM_NOT_FOUND");
  sameError(notFound, await essError(ts.client.read(ts.admin, missing)));

  const badToken: CallContext = { token: "not-a-token" };
  const unauthenticated = await essError(load.read(badToken, { stream_id: "load-err-1", limit: 1 }));
  assert.equal(unauthenticated.code, "UNAUTHENTICATED");
  sameError(unauthenticated, await essError(ts.client.read(badToken, { stream_id: "load-err-1", limit: 1 })));
  sameError(
    await essError(load.readAll({ token: null }, { from_position: 0, limit: 1 })),
    await essError(ts.client.readAll({ token: null }, { from_position: 0, limit: 1 })),
  );

  const reader = await ts.userContext("load-reader", "default", "reader");
  const append = { stream_id: "load-err-2", event_type: "E", data: Payload.fromText("{}") };
  const denied = await essError(load.append(reader, append));
  assert.equal(denied.code, "PERMISSION_DENIED");
  sameError(denied, await essError(ts.client.append(reader, append)));
});

/** Appends 1,000 events of `{i, pad}` to `stream`, in four batches. */
async function appendPadded(stream: string, pad: string): Promise<void> {
  for (let batch = 0; batch < 4; batch++) {
    await load.append(ts.admin, {
      stream_id: stream,
      events: Array.from({ length: 250 }, (_, i) => ({
        event_type: "Big",
        data: Payload.fromText(JSON.stringify({ i: batch * 250 + i, pad })),
      })),
    });
  }
}

test("the largest read page (1,000 events filling the 3 MiB page budget) reads back whole, as through the product client", async () => {
  const stream = "load-large-1";
  // About 3,140 bytes of data and metadata each: 1,000 of them just fit limits.readPageBytesMax.
  const pad = "é".repeat(1560);
  assert.ok(1000 * (Buffer.byteLength(JSON.stringify({ i: 999, pad })) + 2) <= limits.readPageBytesMax);
  await appendPadded(stream, pad);
  const page = await load.read(ts.admin, { stream_id: stream, limit: 1000 });
  assert.equal(page.events.length, 1000);
  assert.equal(page.is_end, true);
  page.events.forEach((e, i) => assert.deepEqual(JSON.parse(e.data as string), { i, pad }));
  assert.deepEqual(page, await ts.client.read(ts.admin, { stream_id: stream, limit: 1000 }));
});

test("1,000 events of 4 KiB (4 MiB) read in two pages split at the byte budget, as through the product client", async () => {
  const stream = "load-large-2";
  const pad = "é".repeat(2000);
  await appendPadded(stream, pad);
  // The first page holds the events whose data and metadata stay within the budget.
  let fit = 0;
  for (let bytes = 0; fit < 1000; fit++) {
    bytes += Buffer.byteLength(JSON.stringify({ i: fit, pad })) + 2;
    if (bytes > limits.readPageBytesMax) break;
  }
  const first = await load.read(ts.admin, { stream_id: stream, limit: 1000 });
  assert.equal(first.events.length, fit);
  assert.deepEqual([first.next_revision, first.is_end], [fit, false]);
  assert.deepEqual(first, await ts.client.read(ts.admin, { stream_id: stream, limit: 1000 }));
  const second = await load.read(ts.admin, { stream_id: stream, from: fit, limit: 1000 });
  assert.equal(second.events.length, 1000 - fit);
  assert.equal(second.is_end, true);
  [...first.events, ...second.events].forEach((e, i) =>
    assert.deepEqual(JSON.parse(e.data as string), { i, pad }),
  );
  assert.deepEqual(second, await ts.client.read(ts.admin, { stream_id: stream, from: fit, limit: 1000 }));
});

unaryScenarios(loadClient, () => ts);

test("a connection that stops answering (half-open) is left after a deadline: the next call goes on a new one", async () => {
  const connections: string[] = [];
  const server = await bareServer((stream, _headers, index) => {
    const port = String(stream.session?.socket.remotePort);
    if (!connections.includes(port)) connections.push(port);
    // The first connection answers its first call, then nothing more (as a peer gone silent).
    if (index === 0 || port !== connections[0]) answerEmptyPage(stream);
    else stream.resume();
  });
  const client = createLoadClient({ address: server.address, deadlineMs: 300 });
  try {
    assert.equal((await client.read({ token: "t" }, { stream_id: "s", limit: 1 })).is_end, true);
    const silent = await essError(client.read({ token: "t" }, { stream_id: "s", limit: 1 }));
    assert.equal(silent.code, "UNAVAILABLE");
    assert.equal((await client.read({ token: "t" }, { stream_id: "s", limit: 1 })).is_end, true);
    assert.equal(connections.length, 2);
  } finally {
    client.close();
    await server.close();
  }
});

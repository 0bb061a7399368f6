/**
 * A stream of large events read back through REST (in the service and as a separate gateway) and
 * through a stock gRPC client: a page holds at most limits.readPageBytesMax of event data and
 * metadata (always at least one event), so a read with the largest limit answers instead of
 * failing (a JSON text past JavaScript's string length, a gRPC message past a client's 4 MiB
 * default), and paging with next_revision / next_position reaches every event in order.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { limits } from "../../src/limits.js";
import type { ReadResult__Output } from "../../src/rpc/generated/ess/v1/ReadResult.js";
import { proto } from "../../src/rpc/proto.js";
import { adminPassword, gatewayModes, http, login, startTarget, type RestTarget } from "./harness.js";

const eventCount = 7;
/** About 1 MB of data each: three fit a page, a fourth would pass readPageBytesMax. */
const dataChars = 1_000_000;
const perPage = 3;

function eventData(i: number): { n: number; s: string } {
  return { n: i, s: String(i % 10).repeat(dataChars) };
}

interface RestEvent {
  revision: number;
  position: number;
  data: { n: number; s: string };
}

interface Page {
  events: RestEvent[];
  next_revision?: number | null;
  next_position?: number | null;
  is_end: boolean;
}

const targets = new Map<string, { target: RestTarget; token: string }>();

before(async () => {
  assert.ok(perPage * (dataChars + 20) <= limits.readPageBytesMax, "three events fit a page");
  assert.ok((perPage + 1) * dataChars > limits.readPageBytesMax, "a fourth does not");
  for (const mode of gatewayModes) {
    const target = await startTarget(mode);
    const token = await login(target, "admin", adminPassword);
    // Two appends of at most three events: each body stays under appendBodyBytesMax.
    for (let first = 0; first < eventCount; first += 3) {
      const events = [];
      for (let i = first; i < Math.min(first + 3, eventCount); i++) {
        events.push({ event_type: "Large", data: eventData(i) });
      }
      const appended = await http(target, "POST", "/v1/streams/large/append", { token, body: { events } });
      assert.equal(appended.status, 200, appended.text);
    }
    targets.set(mode, { target, token });
  }
});

after(async () => {
  for (const { target } of targets.values()) await target.stop();
});

for (const mode of gatewayModes) {
  test(`REST (${mode}): reading a stream of 1 MB events with limit 1000 pages by bytes and reaches every event`, async () => {
    const { target, token } = targets.get(mode)!;
    for (const direction of ["forward", "backward"] as const) {
      const seen: number[] = [];
      let from: number | null = null;
      for (let pages = 0; ; pages++) {
        assert.ok(pages <= eventCount, "paging ends");
        const query: string = `limit=1000&direction=${direction}${from === null ? "" : `&from=${from}`}`;
        const response = await http(target, "GET", `/v1/streams/large?${query}`, { token });
        assert.equal(response.status, 200, response.text.slice(0, 300));
        const page = response.body as Page;
        const remaining = eventCount - seen.length;
        assert.equal(page.events.length, Math.min(perPage, remaining), "a page holds what fits its bytes");
        for (const e of page.events) {
          assert.deepEqual(e.data, eventData(e.revision));
          seen.push(e.revision);
        }
        assert.equal(page.is_end, page.next_revision === null);
        if (page.is_end) break;
        from = page.next_revision!;
      }
      const order = Array.from({ length: eventCount }, (_, i) => i);
      assert.deepEqual(seen, direction === "forward" ? order : order.reverse());
    }
  });

  test(`REST (${mode}): readAll with limit 1000 pages by bytes and reaches every event`, async () => {
    const { target, token } = targets.get(mode)!;
    const seen: number[] = [];
    let from = 0;
    for (let pages = 0; ; pages++) {
      assert.ok(pages <= eventCount, "paging ends");
      const response = await http(target, "GET", `/v1/events?limit=1000&from_position=${from}`, { token });
      assert.equal(response.status, 200, response.text.slice(0, 300));
      const page = response.body as Page;
      assert.ok(page.events.length >= 1 && page.events.length <= perPage);
      for (const e of page.events) {
        assert.deepEqual(e.data, eventData(e.revision));
        seen.push(e.revision);
      }
      if (page.is_end) break;
      from = page.next_position!;
    }
    assert.deepEqual(
      seen,
      Array.from({ length: eventCount }, (_, i) => i),
    );
  });
}

test("a stock gRPC client, with its default 4 MiB receive limit, reads the stream of 1 MB events page by page", async () => {
  const { target, token } = targets.get("in-process")!;
  const address = `127.0.0.1:${target.service.rpcAddress.port}`;
  const client = new proto.ess.v1.Streams(address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  try {
    const seen: number[] = [];
    let from: number | undefined;
    for (let pages = 0; ; pages++) {
      assert.ok(pages <= eventCount, "paging ends");
      const page = await new Promise<ReadResult__Output>((resolve, reject) =>
        client.Read({ stream_id: "large", limit: 1000, from }, metadata, (error, result) =>
          error || !result ? reject(error ?? new Error("no result")) : resolve(result),
        ),
      );
      assert.equal(page.events.length, Math.min(perPage, eventCount - seen.length));
      for (const e of page.events) {
        assert.deepEqual(JSON.parse(e.data.toString("utf8")), eventData(e.revision));
        seen.push(e.revision);
      }
      if (page.is_end) break;
      from = page.next_revision;
    }
    assert.deepEqual(
      seen,
      Array.from({ length: eventCount }, (_, i) => i),
    );
  } finally {
    client.close();
  }
});

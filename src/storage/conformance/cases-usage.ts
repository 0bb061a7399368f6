/**
 * Tenant usage: kept current as events are appended and read, listed with paging, and the
 * largest streams by bytes.
 */
import assert from "node:assert/strict";
import type { StorageEngine } from "../engine.js";
import type { CaseContext } from "./suite.js";
import { appendEvents, assertIsoMillisUtc, listStreamsFully, newEvents, readStreamFully } from "./harness.js";

async function streamBytes(engine: StorageEngine, tenantId: string): Promise<number> {
  const streams = await listStreamsFully(engine, tenantId, null, 1000);
  return streams.reduce((sum, s) => sum + s.bytes, 0);
}

// long: only as a list, one test() per case, each short and on its own; splitting the list
// would scatter one topic's cases.
export function usageCases({ test }: CaseContext): void {
  test("tenant usage counts streams, events, bytes and appends as events are appended", async (store, clock) => {
    const { engine } = store;
    assert.equal(await engine.getTenantUsage("acme"), null, "a tenant without streams has no usage");
    await appendEvents(engine, "acme", "a", newEvents(1));
    await appendEvents(engine, "acme", "b", newEvents(2));
    clock.advanceSeconds(30);
    await appendEvents(engine, "acme", "a", newEvents(3));
    await appendEvents(engine, "globex", "a", newEvents(4));
    const usage = await engine.getTenantUsage("acme");
    assert.ok(usage);
    assert.equal(usage.tenant_id, "acme");
    assert.equal(usage.streams, 2);
    assert.equal(usage.events, 6);
    assert.equal(usage.appends_total, 3);
    assert.equal(
      usage.bytes,
      await streamBytes(engine, "acme"),
      "tenant bytes are the sum of its streams' bytes",
    );
    assert.ok(usage.bytes > 0);
    assert.equal(usage.last_append_at, clock.iso());
    assertIsoMillisUtc(usage.last_append_at, "last_append_at");
    const globex = await engine.getTenantUsage("globex");
    assert.equal(globex?.streams, 1);
    assert.equal(globex?.events, 4);
    assert.equal(globex?.appends_total, 1);
  });

  test("refused and idempotent appends do not count as appends", async (store) => {
    const { engine } = store;
    const batch = newEvents(2);
    await appendEvents(engine, "acme", "a", batch, "no_stream");
    await appendEvents(engine, "acme", "a", newEvents(1), "no_stream").catch(() => undefined);
    await appendEvents(engine, "acme", "a", batch, "no_stream");
    const usage = await engine.getTenantUsage("acme");
    assert.equal(usage?.appends_total, 1);
    assert.equal(usage?.events, 2);
  });

  test("reads of a tenant's streams and of its global order count in reads_total", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "a", newEvents(3));
    const before = (await engine.getTenantUsage("acme"))!.reads_total;
    await engine.readStream({
      tenant_id: "acme",
      stream_id: "a",
      direction: "forward",
      from_revision: null,
      limit: 10,
    });
    await engine.readStream({
      tenant_id: "acme",
      stream_id: "a",
      direction: "backward",
      from_revision: null,
      limit: 1,
    });
    await engine.readAll({ tenant_id: "acme", from_position: 0, limit: 10 });
    assert.equal((await engine.getTenantUsage("acme"))!.reads_total, before + 3);
  });

  test("tenant usage survives a reopen", async (store, clock) => {
    await appendEvents(store.engine, "acme", "a", newEvents(2));
    clock.advanceSeconds(5);
    await appendEvents(store.engine, "acme", "b", newEvents(3));
    const before = await store.engine.getTenantUsage("acme");
    const engine = await store.reopen();
    const after = await engine.getTenantUsage("acme");
    assert.ok(after);
    assert.deepEqual(
      { ...after, reads_total: 0 },
      { ...before, reads_total: 0 },
      "streams, events, bytes, appends_total and last_append_at are kept",
    );
  });

  test("tenant usage counts stored events and bytes until a scavenge, and live streams", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "a", newEvents(10));
    await appendEvents(engine, "acme", "b", newEvents(4));
    await engine.setRetention("acme", "a", { max_age_seconds: null, max_count: 3, truncate_before: null });
    const bytesBefore = (await engine.getTenantUsage("acme"))!.bytes;
    assert.equal(
      (await engine.getTenantUsage("acme"))?.events,
      14,
      "hidden events are stored until a scavenge",
    );
    await engine.deleteStream("acme", "b");
    const usage = await engine.getTenantUsage("acme");
    assert.equal(usage?.events, 14);
    assert.equal(usage?.streams, 1, "a deleted stream is not counted among the tenant's streams");
    assert.equal(usage?.bytes, bytesBefore, "bytes are held until a scavenge");
    assert.equal(usage?.bytes, await streamBytes(engine, "acme"));
    await appendEvents(engine, "acme", "b", newEvents(1));
    const revived = await engine.getTenantUsage("acme");
    assert.equal(revived?.streams, 2, "appending to a deleted stream counts it again");
    assert.equal(revived?.events, 15);
  });

  test("listTenants pages through every tenant exactly once", async (store) => {
    const { engine } = store;
    const tenants = ["t-a", "t-b", "t-c", "t-d", "t-e", "t-f", "t-g"];
    for (const [i, tenant] of tenants.entries()) await appendEvents(engine, tenant, "s", newEvents(i + 1));
    for (const pageSize of [1, 3, 7, 100]) {
      const seen = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 100; pages++) {
        const page = await engine.listTenants({ limit: pageSize, cursor });
        assert.ok(page.tenants.length <= pageSize);
        seen.push(...page.tenants);
        cursor = page.next_cursor;
        if (cursor === null) break;
      }
      assert.deepEqual(seen.map((t) => t.tenant_id).sort(), tenants, `page size ${pageSize}`);
      for (const usage of seen) {
        assert.deepEqual(usage, await engine.getTenantUsage(usage.tenant_id));
      }
    }
  });

  test("largestStreams lists a tenant's streams by bytes, largest first, at most count", async (store) => {
    const { engine } = store;
    const sizes = { tiny: 10, big: 10_000, mid: 5_000, small: 1_000, huge: 20_000 };
    for (const [stream, size] of Object.entries(sizes)) {
      await appendEvents(
        engine,
        "acme",
        stream,
        newEvents(1, () => ({ data: JSON.stringify({ p: "x".repeat(size) }) })),
      );
    }
    await appendEvents(
      engine,
      "globex",
      "enormous",
      newEvents(1, () => ({ data: JSON.stringify({ p: "x".repeat(25_000) }) })),
    );
    const top = await engine.largestStreams("acme", 3);
    assert.deepEqual(
      top.map((s) => s.stream_id),
      ["huge", "big", "mid"],
    );
    assert.ok(top.every((s) => s.tenant_id === "acme"));
    assert.deepEqual(top[0], (await listStreamsFully(engine, "acme", "huge", 10))[0]);
    assert.equal((await engine.largestStreams("acme", 10)).length, 5);
    assert.deepEqual(await engine.largestStreams("nobody", 10), []);
  });

  test("reading a stream reads no other tenant's usage", async (store) => {
    const { engine } = store;
    await appendEvents(engine, "acme", "a", newEvents(1));
    await appendEvents(engine, "globex", "a", newEvents(1));
    const before = (await engine.getTenantUsage("globex"))!.reads_total;
    await readStreamFully(engine, "acme", "a");
    assert.equal((await engine.getTenantUsage("globex"))!.reads_total, before);
  });
}

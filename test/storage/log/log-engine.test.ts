import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { openLogEngine, type LogEngine } from "../../../src/storage/log/index.js";
import { isEssError } from "../../../src/errors.js";
import { Payload } from "../../../src/contract/payload.js";
import { event, events, makeTempDir, removeDir } from "./helpers.js";

async function withEngine(fn: (engine: LogEngine, dir: string) => Promise<void>): Promise<void> {
  const dir = makeTempDir();
  const engine = await openLogEngine({ dataDir: dir, segmentBytesMax: 64 * 1024 });
  try {
    await fn(engine, dir);
  } finally {
    await engine.close();
    removeDir(dir);
  }
}

function codeOf(error: unknown): string {
  return isEssError(error) ? error.code : String(error);
}

test("appends get revisions from 0 per stream and one global position order", () =>
  withEngine(async (engine) => {
    const a = await engine.append({
      tenant_id: "t",
      stream_id: "a",
      events: events(3),
      expected_revision: "no_stream",
    });
    const b = await engine.append({
      tenant_id: "t",
      stream_id: "b",
      events: events(2),
      expected_revision: "any",
    });
    const a2 = await engine.append({
      tenant_id: "t",
      stream_id: "a",
      events: events(1),
      expected_revision: 2,
    });
    assert.deepEqual([a.first_revision, a.last_revision, a.count], [0, 2, 3]);
    assert.deepEqual([b.first_revision, b.last_revision], [0, 1]);
    assert.deepEqual([a2.first_revision, a2.last_revision], [3, 3]);
    assert.ok(a.position < b.position && b.position < a2.position);
    const all = await engine.readAll({ tenant_id: "t", from_position: 0, limit: 100 });
    const positions = all.events.map((e) => e.position);
    assert.deepEqual(
      positions,
      [...positions].sort((x, y) => x - y),
    );
    assert.equal(all.events.length, 6);
    assert.equal(all.is_end, true);
  }));

test("expected revision rules refuse conflicting appends and write nothing", () =>
  withEngine(async (engine) => {
    await assert.rejects(
      engine.append({
        tenant_id: "t",
        stream_id: "s",
        events: events(1),
        expected_revision: "stream_exists",
      }),
      (e) => codeOf(e) === "WRONG_EXPECTED_REVISION",
    );
    await engine.append({
      tenant_id: "t",
      stream_id: "s",
      events: events(2),
      expected_revision: "no_stream",
    });
    for (const expected of ["no_stream", 0, 5] as const) {
      await assert.rejects(
        engine.append({ tenant_id: "t", stream_id: "s", events: events(1), expected_revision: expected }),
        (e) => codeOf(e) === "WRONG_EXPECTED_REVISION",
      );
    }
    const info = await engine.getStreamInfo("t", "s");
    assert.equal(info?.last_revision, 1);
  }));

test("concurrent appends with the same expected revision: exactly one wins", () =>
  withEngine(async (engine) => {
    await engine.append({ tenant_id: "t", stream_id: "s", events: events(1), expected_revision: "any" });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        engine.append({ tenant_id: "t", stream_id: "s", events: events(1), expected_revision: 0 }),
      ),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  }));

test("an append whose events already sit in the stream returns the original result and writes nothing", () =>
  withEngine(async (engine) => {
    const batch = events(3);
    const first = await engine.append({
      tenant_id: "t",
      stream_id: "s",
      events: batch,
      expected_revision: "no_stream",
    });
    const again = await engine.append({
      tenant_id: "t",
      stream_id: "s",
      events: batch,
      expected_revision: "no_stream",
    });
    assert.deepEqual(again, first);
    // The same repeat inside one group commit is also recognised.
    const one = [event(9)];
    const [x, y] = await Promise.all([
      engine.append({ tenant_id: "t", stream_id: "s", events: one, expected_revision: "any" }),
      engine.append({ tenant_id: "t", stream_id: "s", events: one, expected_revision: "any" }),
    ]);
    assert.deepEqual(x, y);
    const read = await engine.readStream({
      tenant_id: "t",
      stream_id: "s",
      direction: "forward",
      from_revision: null,
      limit: 100,
    });
    assert.equal(read.events.length, 4);
    // The same event id in another stream is a different event.
    const other = await engine.append({
      tenant_id: "t",
      stream_id: "other",
      events: batch,
      expected_revision: "any",
    });
    assert.equal(other.first_revision, 0);
  }));

test("reads go forward and backward with limits and report where the next page starts", () =>
  withEngine(async (engine) => {
    await engine.append({ tenant_id: "t", stream_id: "s", events: events(10), expected_revision: "any" });
    const fwd = await engine.readStream({
      tenant_id: "t",
      stream_id: "s",
      direction: "forward",
      from_revision: 2,
      limit: 3,
    });
    assert.deepEqual(
      fwd.events.map((e) => e.revision),
      [2, 3, 4],
    );
    assert.equal(fwd.next_revision, 5);
    assert.equal(fwd.is_end, false);
    const end = await engine.readStream({
      tenant_id: "t",
      stream_id: "s",
      direction: "forward",
      from_revision: 8,
      limit: 5,
    });
    assert.deepEqual(
      end.events.map((e) => e.revision),
      [8, 9],
    );
    assert.equal(end.next_revision, null);
    assert.equal(end.is_end, true);
    const back = await engine.readStream({
      tenant_id: "t",
      stream_id: "s",
      direction: "backward",
      from_revision: null,
      limit: 4,
    });
    assert.deepEqual(
      back.events.map((e) => e.revision),
      [9, 8, 7, 6],
    );
    assert.equal(back.next_revision, 5);
    const first = back.events[3]!;
    assert.match(first.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal((JSON.parse(first.data as string) as { n: number }).n, 6);
    await assert.rejects(
      engine.readStream({
        tenant_id: "t",
        stream_id: "nope",
        direction: "forward",
        from_revision: null,
        limit: 4,
      }),
      (e) => codeOf(e) === "STREAM_NOT_FOUND",
    );
  }));

test("data and metadata come back byte for byte", () =>
  withEngine(async (engine) => {
    const data = '{ "b" : 1,\n "a": [1, 2.50, "ünï"] }';
    const metadata = '{"k":  "v"}';
    await engine.append({
      tenant_id: "t",
      stream_id: "s",
      events: [event(0, { data, metadata })],
      expected_revision: "any",
    });
    const read = await engine.readStream({
      tenant_id: "t",
      stream_id: "s",
      direction: "forward",
      from_revision: null,
      limit: 1,
    });
    assert.equal(read.events[0]?.data, data);
    assert.equal(read.events[0]?.metadata, metadata);
  }));

test("bad input is refused with an EssError before anything is written", () =>
  withEngine(async (engine) => {
    const bad = [
      { tenant_id: "t", stream_id: "$system", events: events(1) },
      { tenant_id: "", stream_id: "s", events: events(1) },
      { tenant_id: "t", stream_id: "s\u0001", events: events(1) },
      { tenant_id: "t", stream_id: "x".repeat(201), events: events(1) },
      { tenant_id: "t", stream_id: "s", events: [event(0, { event_id: "not-a-uuid" })] },
      { tenant_id: "t", stream_id: "s", events: [event(0, { data: "[1,2" })] },
      { tenant_id: "t", stream_id: "s", events: [event(0, { data: "{broken" })] },
      { tenant_id: "t", stream_id: "s", events: [event(0, { event_type: "" })] },
      { tenant_id: "t", stream_id: "s", events: [] },
    ];
    for (const input of bad) {
      await assert.rejects(
        engine.append({ ...input, expected_revision: "any" }),
        (e) => codeOf(e) === "INVALID_ARGUMENT",
      );
    }
    const big = event(0, { data: JSON.stringify({ x: "y".repeat(1024 * 1024) }) });
    await assert.rejects(
      engine.append({ tenant_id: "t", stream_id: "s", events: [big], expected_revision: "any" }),
      (e) => codeOf(e) === "PAYLOAD_TOO_LARGE",
    );
    assert.equal((await engine.status()).events_total, 0);
  }));

test("checked payloads are stored as they are; payloads not checked yet are checked in full before disk", () =>
  withEngine(async (engine) => {
    const readData = async (): Promise<(string | Buffer | undefined)[]> =>
      (
        await engine.readStream({
          tenant_id: "t",
          stream_id: "s",
          direction: "forward",
          from_revision: null,
          limit: 10,
        })
      ).events.map((e) => e.data);
    // What the operations pass on for a REST append: the body's own slices, parsed once upstream.
    const checked = Payload.fromParsedObjectText('{ "kept" : [1, 2.50] }');
    assert.equal(checked.isChecked, true);
    await engine.append({
      tenant_id: "t",
      stream_id: "s",
      events: [event(0, { data: checked })],
      expected_revision: "any",
    });
    assert.deepEqual(await readData(), ['{ "kept" : [1, 2.50] }']);
    // A text that is not JSON never becomes a checked payload (a bug above never reaches disk):
    // the engine parses it, and refuses it.
    const notJson = ["[1,2", '"{}', ""].flatMap((data) => [
      Payload.fromParsedObjectText(data),
      Payload.fromText(data),
    ]);
    for (const payload of [...notJson, Payload.fromText("{not json}"), Payload.fromText('{"s":"\\ud800"}')]) {
      assert.equal(payload.isChecked, false, payload.text);
      await assert.rejects(
        engine.append({
          tenant_id: "t",
          stream_id: "s",
          events: [event(1, { data: payload })],
          expected_revision: "any",
        }),
        (e) => codeOf(e) === "INVALID_ARGUMENT",
        payload.text,
      );
    }
    // JSON text that does not look like a parser's slice of an object (any JSON value is data) is
    // checked in full, then kept byte for byte.
    for (const data of [" {}", "{}\n", "[1,2]"]) {
      const payload = Payload.fromParsedObjectText(data);
      assert.equal(payload.isChecked, false, data);
      await engine.append({
        tenant_id: "t",
        stream_id: "s",
        events: [event(2, { data: payload })],
        expected_revision: "any",
      });
    }
    assert.deepEqual(await readData(), ['{ "kept" : [1, 2.50] }', " {}", "{}\n", "[1,2]"]);
  }));

test("everything appended is there with the same answers after close and reopen", async () => {
  const dir = makeTempDir();
  try {
    let engine = await openLogEngine({ dataDir: dir, segmentBytesMax: 16 * 1024 });
    const appends = [];
    for (let i = 0; i < 300; i++) {
      appends.push(
        engine.append({
          tenant_id: i % 3 === 0 ? "x" : "y",
          stream_id: `s-${i % 11}`,
          events: events(1 + (i % 3)),
          expected_revision: "any",
        }),
      );
    }
    await Promise.all(appends);
    const snapshot = async (e: LogEngine): Promise<unknown> => ({
      x: await e.readAll({ tenant_id: "x", from_position: 0, limit: 1000 }),
      y: await e.readAll({ tenant_id: "y", from_position: 0, limit: 1000 }),
      info: await e.getStreamInfo("y", "s-4"),
      list: await e.listStreams({ tenant_id: null, prefix: null, limit: 1000, cursor: null }),
      last: (await e.status()).last_position,
    });
    const before = await snapshot(engine);
    assert.ok(((await engine.status()).segments?.length ?? 0) > 3, "several segments were sealed");
    await engine.close();
    engine = await openLogEngine({ dataDir: dir, segmentBytesMax: 16 * 1024 });
    assert.deepEqual(await snapshot(engine), before);
    const next = await engine.append({
      tenant_id: "x",
      stream_id: "s-0",
      events: events(1),
      expected_revision: "any",
    });
    assert.equal(next.position, (before as { last: number }).last + 1);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("streams are listed by tenant and prefix, page by page", () =>
  withEngine(async (engine) => {
    for (const id of ["b-1", "a-2", "a-1", "c-1", "a-3"]) {
      await engine.append({ tenant_id: "t", stream_id: id, events: events(1), expected_revision: "any" });
    }
    await engine.append({ tenant_id: "u", stream_id: "a-9", events: events(1), expected_revision: "any" });
    const page1 = await engine.listStreams({ tenant_id: "t", prefix: "a-", limit: 2, cursor: null });
    assert.deepEqual(
      page1.streams.map((s) => s.stream_id),
      ["a-1", "a-2"],
    );
    const page2 = await engine.listStreams({
      tenant_id: "t",
      prefix: "a-",
      limit: 2,
      cursor: page1.next_cursor,
    });
    assert.deepEqual(
      page2.streams.map((s) => s.stream_id),
      ["a-3"],
    );
    assert.equal(page2.next_cursor, null);
    const everyone = await engine.listStreams({ tenant_id: null, prefix: "a-", limit: 10, cursor: null });
    assert.deepEqual(
      everyone.streams.map((s) => `${s.tenant_id}/${s.stream_id}`),
      ["t/a-1", "t/a-2", "t/a-3", "u/a-9"],
    );
  }));

test("tenant usage counts streams, events, bytes, appends and reads as they happen", () =>
  withEngine(async (engine) => {
    assert.equal(await engine.getTenantUsage("t"), null);
    await engine.append({ tenant_id: "t", stream_id: "a", events: events(2), expected_revision: "any" });
    await engine.append({ tenant_id: "t", stream_id: "b", events: events(1), expected_revision: "any" });
    await engine.readStream({
      tenant_id: "t",
      stream_id: "a",
      direction: "forward",
      from_revision: null,
      limit: 10,
    });
    const usage = await engine.getTenantUsage("t");
    assert.equal(usage?.streams, 2);
    assert.equal(usage?.events, 3);
    assert.equal(usage?.appends_total, 2);
    assert.equal(usage?.reads_total, 1);
    assert.ok((usage?.bytes ?? 0) > 0);
    assert.notEqual(usage?.last_append_at, null);
    const tenants = await engine.listTenants({ limit: 10, cursor: null });
    assert.deepEqual(
      tenants.tenants.map((t) => t.tenant_id),
      ["t"],
    );
    const largest = await engine.largestStreams("t", 1);
    assert.equal(largest[0]?.stream_id, "a");
  }));

/** Starts `count` one-event appends, each from its own callback as requests do from their socket reads. */
function appendsFromSeparateCallbacks(engine: LogEngine, count: number, prefix: string): Promise<number[]> {
  return Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<number>((resolve, reject) =>
          setImmediate(() => {
            engine
              .append({
                tenant_id: "t",
                stream_id: `${prefix}-${i}`,
                events: events(1),
                expected_revision: "any",
              })
              .then((r) => resolve(r.position), reject);
          }),
        ),
    ),
  );
}

test("appends that arrive in one event-loop turn, from separate callbacks as requests do, share one group write", () =>
  withEngine(async (engine) => {
    await engine.append({ tenant_id: "t", stream_id: "warm", events: events(1), expected_revision: "any" });
    const before = (await engine.status()).writer!;
    const positions = await appendsFromSeparateCallbacks(engine, 12, "s");
    const after = (await engine.status()).writer!;
    assert.equal(new Set(positions).size, 12);
    assert.equal(after.batches - before.batches, 1, "all twelve appends in one group write");
    assert.equal(after.fsyncs - before.fsyncs, 1, "and one fdatasync");
  }));

test("a burst of sixty-four appends reaching an idle writer is one group write, in arrival order", () =>
  withEngine(async (engine) => {
    await engine.append({ tenant_id: "t", stream_id: "warm", events: events(1), expected_revision: "any" });
    const before = (await engine.status()).writer!;
    const positions = await appendsFromSeparateCallbacks(engine, 64, "s");
    const after = (await engine.status()).writer!;
    assert.equal(after.batches - before.batches, 1, "one group write");
    assert.equal(after.fsyncs - before.fsyncs, 1, "and one fdatasync");
    // Arrival order is position order.
    assert.deepEqual(
      positions,
      positions.map((_, i) => positions[0]! + i),
    );
  }));

test("repeats of ids appended earlier in the same group write nothing, from a few appends to the stream and from many", () =>
  withEngine(async (engine) => {
    await engine.append({ tenant_id: "t", stream_id: "warm", events: events(1), expected_revision: "any" });
    const before = (await engine.status()).writer!;
    const ids = Array.from({ length: 40 }, () => randomUUID());
    const appendId = (id: string) =>
      engine.append({
        tenant_id: "t",
        stream_id: "one",
        events: [{ event_id: id, event_type: "E", data: "{}", metadata: "{}" }],
        expected_revision: "any",
      });
    // One turn, one group: 40 appends to one stream, then repeats of the 4th (while the group's
    // ids of the stream were still few) and of the 31st (once they were many).
    const results = await Promise.all([...ids.map(appendId), appendId(ids[3]!), appendId(ids[30]!)]);
    const after = (await engine.status()).writer!;
    assert.equal(after.batches - before.batches, 1, "one group write");
    assert.deepEqual(results[40], results[3], "the repeat of the 4th answers its original result");
    assert.deepEqual(results[41], results[30], "the repeat of the 31st answers its original result");
    const info = await engine.getStreamInfo("t", "one");
    assert.equal(info?.event_count, 40, "nothing written twice");
  }));

test("onAppend tells listeners about durable appends", () =>
  withEngine(async (engine) => {
    const seen: string[] = [];
    const off = engine.onAppend((n) => seen.push(`${n.stream_id}:${n.first_revision}-${n.last_revision}`));
    await engine.append({ tenant_id: "t", stream_id: "s", events: events(2), expected_revision: "any" });
    off();
    await engine.append({ tenant_id: "t", stream_id: "s", events: events(1), expected_revision: "any" });
    assert.deepEqual(seen, ["s:0-1"]);
  }));

test("the auth store keeps users and the signing key across reopen", async () => {
  const dir = makeTempDir();
  try {
    let engine = await openLogEngine({ dataDir: dir });
    const user = {
      username: "alice",
      tenant_id: "t",
      role: "writer" as const,
      password_hash: "scrypt$x",
      created_at: new Date().toISOString(),
    };
    await engine.auth.createUser(user);
    await assert.rejects(engine.auth.createUser(user), (e) => codeOf(e) === "USER_EXISTS");
    await assert.rejects(engine.auth.deleteUser("bob"), (e) => codeOf(e) === "USER_NOT_FOUND");
    const key = await engine.auth.getOrCreateSigningKey(() => Buffer.from(randomUUID()));
    await engine.close();
    engine = await openLogEngine({ dataDir: dir });
    assert.deepEqual(await engine.auth.getUser("alice"), user);
    assert.equal(await engine.auth.countUsers(), 1);
    assert.deepEqual(await engine.auth.getOrCreateSigningKey(() => Buffer.from("other")), key);
    assert.deepEqual(await engine.auth.deleteUser("alice"), user);
    assert.equal((await engine.auth.listUsers({ limit: 10, cursor: null })).users.length, 0);
    await engine.close();
  } finally {
    removeDir(dir);
  }
});

test("each event reads back right after its append, while the cached tail block grows", () =>
  withEngine(async (engine) => {
    for (let i = 0; i < 400; i++) {
      const e = event(i);
      const r = await engine.append({
        tenant_id: "t",
        stream_id: "tail",
        events: [e],
        expected_revision: "any",
      });
      const read = await engine.readStream({
        tenant_id: "t",
        stream_id: "tail",
        direction: "forward",
        from_revision: r.first_revision,
        limit: 10,
      });
      assert.deepEqual(
        read.events.map((x) => [x.event_id, x.data]),
        [[e.event_id, e.data]],
      );
    }
    const all = await engine.readAll({ tenant_id: "t", from_position: 0, limit: 1000 });
    assert.deepEqual(
      all.events.map((x) => x.revision),
      Array.from({ length: 400 }, (_, i) => i),
    );
  }));

test("close finishes in-flight appends, can be called twice, and later calls answer UNAVAILABLE", async () => {
  const dir = makeTempDir();
  try {
    const engine = await openLogEngine({ dataDir: dir });
    const pending = Array.from({ length: 20 }, () =>
      engine.append({ tenant_id: "t", stream_id: "s", events: events(1), expected_revision: "any" }),
    );
    await Promise.all([engine.close(), engine.close()]);
    assert.equal((await Promise.allSettled(pending)).filter((r) => r.status === "fulfilled").length, 20);
    for (const call of [
      () => engine.append({ tenant_id: "t", stream_id: "s", events: events(1), expected_revision: "any" }),
      () =>
        engine.readStream({
          tenant_id: "t",
          stream_id: "s",
          direction: "forward",
          from_revision: null,
          limit: 1,
        }),
      () => engine.readAll({ tenant_id: "t", from_position: 0, limit: 1 }),
    ]) {
      await assert.rejects(call(), (e) => codeOf(e) === "UNAVAILABLE");
    }
    const reopened = await openLogEngine({ dataDir: dir });
    assert.equal((await reopened.getStreamInfo("t", "s"))?.event_count, 20);
    await reopened.close();
  } finally {
    removeDir(dir);
  }
});

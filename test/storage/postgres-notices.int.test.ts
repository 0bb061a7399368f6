// Append notices (LISTEN/NOTIFY): every node hears every node's appends, in position order, and a
// node whose listening connection drops catches up on what it missed once it reconnects.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import type { AppendNotice, EventToAppend } from "../../src/storage/engine.js";
import { openPostgresEngine, type PostgresEngine } from "../../src/storage/postgres/postgres-engine.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";
import { eventually } from "../helpers/eventually.js";

function events(count: number): EventToAppend[] {
  return Array.from({ length: count }, (_, n) => ({
    event_id: randomUUID(),
    event_type: "Tested",
    data: JSON.stringify({ n }),
    metadata: "{}",
  }));
}

describe("postgres append notices", () => {
  let db: TestDatabase;
  let nodeA: PostgresEngine;
  let nodeB: PostgresEngine;

  before(async () => {
    db = await createTestDatabase();
    nodeA = await openPostgresEngine({ url: db.url, poolMax: 4 });
    nodeB = await openPostgresEngine({ url: db.url, poolMax: 4 });
  });

  after(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await db?.drop();
  });

  test("a node hears appends made on another node and on itself, in position order", async () => {
    const heardOnB: AppendNotice[] = [];
    const heardOnA: AppendNotice[] = [];
    const stopB = nodeB.onAppend((n) => heardOnB.push(n));
    const stopA = nodeA.onAppend((n) => heardOnA.push(n));
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? nodeA : nodeB).append({
            tenant_id: "t",
            stream_id: `n-${i % 4}`,
            events: events(1 + (i % 3)),
            expected_revision: "any",
          }),
        ),
      );
      const lastPosition = Math.max(...results.map((r) => r.position));
      await eventually(() => heardOnB.at(-1)?.last_position === lastPosition, "node B to hear every append");
      await eventually(() => heardOnA.at(-1)?.last_position === lastPosition, "node A to hear every append");
      for (const heard of [heardOnA, heardOnB]) {
        assert.equal(heard.length, 20);
        for (let k = 1; k < heard.length; k++) {
          assert.equal(heard[k]?.first_position, (heard[k - 1]?.last_position ?? 0) + 1);
        }
      }
      const one = results[3];
      const notice = heardOnB.find((n) => n.last_position === one?.position);
      assert.equal(notice?.tenant_id, "t");
      assert.equal(notice?.stream_id, "n-3");
      assert.equal(notice?.last_revision, one?.last_revision);
      assert.equal(notice?.first_revision, one?.first_revision);
    } finally {
      stopA();
      stopB();
    }
  });

  test("after its listening connection is cut, a node reconnects and is told what it missed", async () => {
    const heard: AppendNotice[] = [];
    const stop = nodeB.onAppend((n) => heard.push(n));
    try {
      const pid = nodeB.listenerBackendPid;
      assert.ok(pid !== null);
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      } finally {
        await admin.end();
      }
      // Appended while node B's listener is gone: its notification is lost, the catch-up tells it.
      const missed = await nodeA.append({
        tenant_id: "t",
        stream_id: "missed-1",
        events: events(3),
        expected_revision: "any",
      });
      await eventually(
        () => heard.some((n) => n.last_position >= missed.position),
        "the missed append's notice",
      );
      const notice = heard.find((n) => n.stream_id === "missed-1");
      assert.equal(notice?.last_position, missed.position);
      await eventually(
        () => nodeB.listenerBackendPid !== null && nodeB.listenerBackendPid !== pid,
        "a new connection",
      );
      const live = await nodeA.append({
        tenant_id: "t",
        stream_id: "live-1",
        events: events(1),
        expected_revision: "any",
      });
      await eventually(
        () => heard.some((n) => n.last_position === live.position),
        "a live notice after reconnecting",
      );
      const positions = heard.map((n) => n.last_position);
      assert.deepEqual(
        positions,
        [...positions].sort((a, b) => a - b),
      );
      assert.equal(new Set(positions).size, positions.length, "no notice is told twice");
    } finally {
      stop();
    }
  });
  test("a service in another schema of the same database neither hears nor sees these appends", async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query("CREATE SCHEMA other_service");
    } finally {
      await admin.end();
    }
    const other = await openPostgresEngine({
      url: `${db.url}?options=${encodeURIComponent("-c search_path=other_service")}`,
      poolMax: 2,
    });
    try {
      const heardByOther: AppendNotice[] = [];
      const heardByB: AppendNotice[] = [];
      const stopOther = other.onAppend((n) => heardByOther.push(n));
      const stopB = nodeB.onAppend((n) => heardByB.push(n));
      const mine = await nodeA.append({
        tenant_id: "t",
        stream_id: "s-1",
        events: events(1),
        expected_revision: "any",
      });
      const theirs = await other.append({
        tenant_id: "t",
        stream_id: "s-1",
        events: events(2),
        expected_revision: "any",
      });
      await eventually(
        () => heardByB.some((n) => n.last_position === mine.position),
        "node B to hear its schema's append",
      );
      await eventually(
        () => heardByOther.some((n) => n.last_position === theirs.position),
        "the other service's own notice",
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(
        heardByOther.map((n) => n.last_position),
        [theirs.position],
        "the other service hears only its own append",
      );
      assert.equal(theirs.position, 2, "positions are per service");
      assert.equal((await other.getStreamInfo("t", "s-1"))?.event_count, 2);
      stopOther();
      stopB();
    } finally {
      await other.close();
    }
  });
});

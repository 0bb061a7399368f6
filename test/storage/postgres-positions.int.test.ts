// The sequence-gap problem: with concurrent appenders on several nodes, the global positions a
// reader sees only grow. A reader that has seen position P never later finds a position below P
// appear (see docs/postgres.md, "Global positions only grow").
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { EventToAppend } from "../../src/storage/engine.js";
import { openPostgresEngine, type PostgresEngine } from "../../src/storage/postgres/postgres-engine.js";
import { createTestDatabase, type TestDatabase } from "./postgres-test-database.js";

function events(count: number): EventToAppend[] {
  return Array.from({ length: count }, (_, n) => ({
    event_id: randomUUID(),
    event_type: "Tested",
    data: JSON.stringify({ n, pad: "x".repeat(100) }),
    metadata: "{}",
  }));
}

describe("postgres global positions", () => {
  let db: TestDatabase;
  const nodes: PostgresEngine[] = [];

  before(async () => {
    db = await createTestDatabase();
    for (let i = 0; i < 3; i++) nodes.push(await openPostgresEngine({ url: db.url, poolMax: 6 }));
  });

  after(async () => {
    for (const node of nodes) await node.close();
    await db?.drop();
  });

  test("readers never see a lower position appear after a higher one while two nodes append concurrently", async () => {
    const [nodeA, nodeB, reader] = nodes;
    assert.ok(nodeA && nodeB && reader);
    const tenant = "gap";
    let appending = true;
    // Appenders: 12 concurrent loops on two nodes, batches of 1..5 events, one stream each.
    const appenders = Array.from({ length: 12 }, async (_, i) => {
      const node = i % 2 === 0 ? nodeA : nodeB;
      for (let round = 0; round < 25; round++) {
        await node.append({
          tenant_id: tenant,
          stream_id: `s-${i}`,
          events: events(1 + ((i + round) % 5)),
          expected_revision: "any",
        });
      }
    });

    // Reader 1 re-reads everything from the start: each snapshot must contain every position it
    // saw before, and nothing new below the highest one it saw.
    const seen = new Set<number>();
    let highest = 0;
    let snapshots = 0;
    const fullReader = (async () => {
      while (appending) {
        const positions: number[] = [];
        let from = 0;
        for (;;) {
          const page = await reader.readAll({ tenant_id: tenant, from_position: from, limit: 1000 });
          positions.push(...page.events.map((e) => e.position));
          if (page.next_position === null) break;
          from = page.next_position;
        }
        snapshots += 1;
        for (let k = 1; k < positions.length; k++) {
          assert.ok((positions[k] ?? 0) > (positions[k - 1] ?? 0), "positions are read in increasing order");
        }
        for (const p of positions) {
          if (p <= highest) assert.ok(seen.has(p), `position ${p} appeared after ${highest} had been seen`);
        }
        for (const p of seen) assert.ok(positions.includes(p), `position ${p} disappeared`);
        for (const p of positions) seen.add(p);
        highest = Math.max(highest, ...positions);
      }
    })();

    // Reader 2 follows like a subscriber: from the position after the last it saw. It must end
    // with every position, none skipped.
    const followed: number[] = [];
    const follower = (async () => {
      let next = 0;
      let idle = 0;
      while (appending || idle < 2) {
        const page = await reader.readAll({ tenant_id: tenant, from_position: next, limit: 50 });
        for (const e of page.events) {
          assert.ok(e.position >= next, "a follower never receives a position below where it stands");
          followed.push(e.position);
          next = e.position + 1;
        }
        if (!appending && page.events.length === 0) idle += 1;
      }
    })();

    await Promise.all(appenders);
    appending = false;
    await Promise.all([fullReader, follower]);

    const all = await reader.readAll({ tenant_id: tenant, from_position: 0, limit: 1000 });
    const expected = all.events.map((e) => e.position);
    assert.ok(snapshots > 1, "the full reader ran while appends went on");
    assert.deepEqual(followed, expected, "the follower saw every position once, in order");
    // Positions come from one counter row: no holes at all.
    assert.deepEqual(
      expected,
      Array.from({ length: expected.length }, (_, k) => k + 1),
    );
  });
});

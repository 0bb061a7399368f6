/**
 * The AuthStore kept beside the events: users (create, get, list with paging, delete,
 * count) and the token signing key, all durable across a reopen and invisible to readers
 * of events.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Role } from "../../contract/bodies.js";
import type { AuthStore, StoredUser } from "../engine.js";
import type { CaseContext } from "./suite.js";
import { listStreamsFully, readTenantFully, rejectsWith } from "./harness.js";

function user(username: string, role: Role = "writer", tenant = "acme"): StoredUser {
  return {
    username,
    tenant_id: tenant,
    role,
    password_hash: `scrypt$16384$8$1$${randomBytes(16).toString("base64")}$${randomBytes(32).toString("base64")}`,
    created_at: "2026-01-01T00:00:00.000Z",
  };
}

async function listAll(auth: AuthStore, pageSize: number): Promise<StoredUser[]> {
  const users: StoredUser[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await auth.listUsers({ limit: pageSize, cursor });
    assert.ok(page.users.length <= pageSize, "a page holds at most limit users");
    users.push(...page.users);
    cursor = page.next_cursor;
    if (cursor === null) return users;
  }
  return assert.fail("listUsers paging does not end");
}

export function authCases({ test }: CaseContext): void {
  test("a created user is found by name with every field as stored", async (store) => {
    const { auth } = store.engine;
    const alice = user("alice", "admin", "default");
    assert.equal(await auth.getUser("alice"), null);
    await auth.createUser(alice);
    assert.deepEqual(await auth.getUser("alice"), alice);
    assert.equal(await auth.getUser("Alice"), null, "usernames are case-sensitive");
    assert.equal(await auth.countUsers(), 1);
  });

  test("creating a user whose name is taken fails with USER_EXISTS and keeps the first", async (store) => {
    const { auth } = store.engine;
    const first = user("bob", "reader");
    await auth.createUser(first);
    await rejectsWith(auth.createUser(user("bob", "admin", "globex")), "USER_EXISTS");
    assert.deepEqual(await auth.getUser("bob"), first);
    assert.equal(await auth.countUsers(), 1);
  });

  test("listUsers pages through every user exactly once", async (store) => {
    const { auth } = store.engine;
    const names = ["ann", "ben", "cat", "dan", "eve", "fay", "gus"];
    for (const name of [...names].reverse()) await auth.createUser(user(name));
    for (const pageSize of [1, 3, 7, 100]) {
      const listed = await listAll(auth, pageSize);
      assert.deepEqual(listed.map((u) => u.username).sort(), names, `page size ${pageSize}`);
    }
    assert.equal(await auth.countUsers(), names.length);
  });

  test("deleting a user returns it and forgets it; deleting a missing user fails with USER_NOT_FOUND", async (store) => {
    const { auth } = store.engine;
    const carol = user("carol");
    await auth.createUser(carol);
    await auth.createUser(user("dave"));
    assert.deepEqual(await auth.deleteUser("carol"), carol);
    assert.equal(await auth.getUser("carol"), null);
    assert.equal(await auth.countUsers(), 1);
    assert.deepEqual(
      (await listAll(auth, 10)).map((u) => u.username),
      ["dave"],
    );
    const error = await rejectsWith(auth.deleteUser("carol"), "USER_NOT_FOUND");
    assert.ok(error.message.length > 0);
    // The name is free again.
    await auth.createUser(user("carol", "admin"));
    assert.equal((await auth.getUser("carol"))?.role, "admin");
  });

  test("users survive a reopen", async (store) => {
    const kept = user("erin", "reader", "globex");
    await store.engine.auth.createUser(kept);
    await store.engine.auth.createUser(user("frank"));
    await store.engine.auth.deleteUser("frank");
    const engine = await store.reopen();
    assert.deepEqual(await engine.auth.getUser("erin"), kept);
    assert.equal(await engine.auth.getUser("frank"), null);
    assert.equal(await engine.auth.countUsers(), 1);
  });

  test("the signing key is created once and is the same on every call and after a reopen", async (store) => {
    const generated = randomBytes(32);
    let calls = 0;
    const key = await store.engine.auth.getOrCreateSigningKey(() => {
      calls += 1;
      return generated;
    });
    assert.deepEqual(key, generated);
    assert.equal(calls, 1);
    const again = await store.engine.auth.getOrCreateSigningKey(() => randomBytes(32));
    assert.deepEqual(again, generated);
    const engine = await store.reopen();
    assert.deepEqual(await engine.auth.getOrCreateSigningKey(() => randomBytes(32)), generated);
  });

  test("concurrent first calls for the signing key agree on one key", async (store) => {
    const keys = await Promise.all(
      Array.from({ length: 5 }, () => store.engine.auth.getOrCreateSigningKey(() => randomBytes(32))),
    );
    for (const key of keys) assert.deepEqual(key, keys[0]);
    const engine = await store.reopen();
    assert.deepEqual(await engine.auth.getOrCreateSigningKey(() => randomBytes(32)), keys[0]);
  });

  test("users and the signing key are not events of any tenant", async (store) => {
    const { engine } = store;
    await engine.auth.createUser(user("admin", "admin", "default"));
    await engine.auth.getOrCreateSigningKey(() => randomBytes(32));
    for (const tenant of ["default", "acme", "system"]) {
      assert.deepEqual(await readTenantFully(engine, tenant), []);
    }
    assert.deepEqual(await listStreamsFully(engine, null, null, 100), []);
    assert.deepEqual((await engine.listTenants({ limit: 100, cursor: null })).tenants, []);
    const status = await engine.status();
    assert.equal(status.events_total, 0);
    assert.equal(status.streams_total, 0);
  });
}

import { test } from "node:test";
import assert from "node:assert/strict";
import type { LoginResult } from "../../console/src/lib/contract.js";
import { Session } from "../../console/src/lib/session.js";

function login(token: string): LoginResult {
  return { access_token: token, token_type: "Bearer", expires_in: 3600, tenant_id: "default", role: "admin" };
}

test("a login keeps the token and who it is for", () => {
  const session = new Session();
  assert.equal(session.currentToken(), null);
  session.loggedIn("admin", login("t1"), 1000);
  assert.equal(session.currentToken(), "t1");
  assert.deepEqual(session.identity, {
    username: "admin",
    role: "admin",
    tenantId: "default",
    expiresAtMs: 3_601_000,
  });
});

test("many refused requests open one re-login, and all get the new token", async () => {
  const session = new Session();
  session.loggedIn("admin", login("t1"), 0);
  let changes = 0;
  session.subscribe(() => (changes += 1));
  const waiting = [session.reauthenticate("t1"), session.reauthenticate("t1"), session.reauthenticate("t1")];
  assert.equal(session.reloginRequested, true);
  assert.equal(changes, 1);
  session.loggedIn("admin", login("t2"), 0);
  assert.deepEqual(await Promise.all(waiting), ["t2", "t2", "t2"]);
  assert.equal(session.reloginRequested, false);
});

test("a request refused with an old token gets the newer one at once", async () => {
  const session = new Session();
  session.loggedIn("admin", login("t2"), 0);
  assert.equal(await session.reauthenticate("t1"), "t2");
  assert.equal(session.reloginRequested, false);
});

test("giving up or logging out fails every waiting caller", async () => {
  const session = new Session();
  session.loggedIn("admin", login("t1"), 0);
  const first = session.reauthenticate("t1");
  session.giveUp();
  assert.equal(await first, null);
  session.expired();
  assert.equal(session.reloginRequested, true);
  const second = session.reauthenticate("t1");
  session.logout();
  assert.equal(await second, null);
  assert.equal(session.currentToken(), null);
  assert.equal(session.identity, null);
  assert.equal(await session.reauthenticate(null), null);
});

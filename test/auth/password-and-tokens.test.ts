// Password hashes and bearer tokens on their own: what a stored hash looks like and what
// verification refuses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, scryptSync } from "node:crypto";
import {
  hashPassword,
  hashesRunningMax,
  passwordHashStats,
  resetPasswordHashPeak,
  verifyPassword,
} from "../../src/auth/password.js";
import { EssError } from "../../src/errors.js";
import { limits } from "../../src/limits.js";
import { TokenService } from "../../src/auth/tokens.js";
import type { StoredUser } from "../../src/storage/engine.js";

test("a password hash is salted, self-describing scrypt, and verifies only the right password", async () => {
  const a = await hashPassword("correct horse");
  const b = await hashPassword("correct horse");
  assert.match(a, /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  assert.notEqual(a, b, "two hashes of one password differ (random salt)");
  assert.doesNotMatch(a, /correct/);
  assert.equal(await verifyPassword("correct horse", a), true);
  assert.equal(await verifyPassword("correct horse!", a), false);
  assert.equal(await verifyPassword("correct horse", "plain-text"), false);
  assert.equal(await verifyPassword("correct horse", "scrypt$1$1$1$$"), false);
});

test("hashes take turns: at most the bound run at once, a bounded number wait, the rest are refused", async () => {
  // A hash of low cost (verifyPassword takes the cost from the stored value), so the test is quick.
  const salt = randomBytes(16);
  const key = scryptSync("the right one", salt, 32, { N: 1024, r: 8, p: 1 });
  const stored = ["scrypt", 1024, 8, 1, salt.toString("base64"), key.toString("base64")].join("$");
  assert.ok(hashesRunningMax >= 1 && hashesRunningMax <= limits.passwordHashesRunningMax);
  resetPasswordHashPeak();
  const asked = hashesRunningMax + limits.passwordHashesWaitingMax + 8;
  const outcomes = await Promise.allSettled(
    Array.from({ length: asked }, (_, i) => verifyPassword(i === 0 ? "the right one" : "wrong", stored)),
  );
  const refused = outcomes.filter((o) => o.status === "rejected");
  assert.equal(refused.length, 8);
  for (const outcome of refused) {
    const error: unknown = outcome.reason;
    assert.ok(error instanceof EssError && error.code === "RATE_LIMITED");
    assert.equal(error.details.retry_after_seconds, 1);
  }
  assert.deepEqual(outcomes[0], { status: "fulfilled", value: true });
  const stats = passwordHashStats();
  assert.equal(stats.runningPeak, hashesRunningMax);
  assert.deepEqual([stats.running, stats.waiting], [0, 0]);
});

const user: StoredUser = {
  username: "ann",
  tenant_id: "acme",
  role: "writer",
  password_hash: "scrypt$…",
  created_at: "2026-11-22T03:00:00.000Z",
};

test("a token carries user, tenant, role and expiry, and is refused once expired", async () => {
  let now = Date.parse("2026-11-22T04:00:00.000Z");
  const tokens = new TokenService(randomBytes(32), 60, () => now);
  const token = await tokens.issue(user);
  const claims = await tokens.verify(token);
  assert.deepEqual(claims, {
    username: "ann",
    tenant_id: "acme",
    role: "writer",
    user_created_at: user.created_at,
    expires_at_ms: now + 60_000,
  });
  now += 61_000;
  await assert.rejects(tokens.verify(token), { code: "UNAUTHENTICATED", message: "the token has expired" });
});

test("a token signed with another key, altered, or with alg none is refused", async () => {
  const tokens = new TokenService(randomBytes(32), 60);
  const other = new TokenService(randomBytes(32), 60);
  await assert.rejects(tokens.verify(await other.issue(user)), { code: "UNAUTHENTICATED" });
  const [header, payload, signature] = (await tokens.issue(user)).split(".");
  const altered = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), tenant_id: "globex" }),
  ).toString("base64url");
  await assert.rejects(tokens.verify(`${header}.${altered}.${signature}`), { code: "UNAUTHENTICATED" });
  const none = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
  await assert.rejects(tokens.verify(`${none}.${payload}.`), { code: "UNAUTHENTICATED" });
});

// The authenticator on a real log engine's users: a token's caller is made once and handed out
// again while its user is the same, and a deleted (or deleted and created again) user's token
// is refused at once all the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { TokenService } from "../../src/auth/tokens.js";
import { Users } from "../../src/auth/users.js";
import { createAuthenticator } from "../../src/operations/authenticate.js";
import { openLogEngine } from "../../src/storage/log/index.js";
import { captureLogger } from "../storage/log/helpers.js";

test("a token's caller is reused while its user stays, and refused once the user is deleted or made again", async () => {
  const dir = await mkdtemp(join(os.tmpdir(), "ess-authenticator-"));
  const engine = await openLogEngine({ dataDir: dir, logger: captureLogger().logger });
  try {
    const users = new Users(engine.auth);
    const tokens = new TokenService(randomBytes(32), 60);
    const authenticator = createAuthenticator({ tokens, users });
    await users.create({ username: "ann", password: "ann-password-1", tenant_id: "acme", role: "writer" });
    const token = await tokens.issue((await users.get("ann"))!);

    const first = await authenticator.authenticate({ token });
    assert.deepEqual(
      { username: first.username, tenant_id: first.tenant_id, role: first.role },
      { username: "ann", tenant_id: "acme", role: "writer" },
    );
    const again = await authenticator.authenticate({ token });
    assert.equal(again, first, "the same token and user give the same caller, not a new one per call");
    // A caller handed out again still rides along as a verified one (REST passes it in the context).
    assert.equal(await authenticator.authenticate({ token: null, caller: again }), again);

    await users.delete("ann");
    await assert.rejects(authenticator.authenticate({ token }), {
      code: "UNAUTHENTICATED",
      message: "the token's user no longer exists",
    });
    await users.create({ username: "ann", password: "ann-password-2", tenant_id: "acme", role: "admin" });
    await assert.rejects(authenticator.authenticate({ token }), { code: "UNAUTHENTICATED" });
    const fresh = await authenticator.authenticate({ token: await tokens.issue((await users.get("ann"))!) });
    assert.notEqual(fresh, first);
    assert.equal(fresh.role, "admin");
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * The real service with its data directory on a small tmpfs that is then filled up: what a
 * user sees when the disk is full, and that the service recovers once space returns.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, formatAddress } from "../../src/config/config.js";
import { startService } from "../../src/service.js";
import { adminPassword, http, quietLogger } from "./harness.js";

/** Writes a file until the filesystem refuses more (ENOSPC). */
function fillUp(file: string): void {
  const fd = fs.openSync(file, "w");
  try {
    const chunk = Buffer.alloc(4096, 1);
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    fs.closeSync(fd);
  }
}

test("creating a user on a full disk answers 503 UNAVAILABLE, keeps auth.json as it was with no temp file, and works once space returns", async (t) => {
  const mountPoint = await mkdtemp(join(tmpdir(), "ess-tmpfs-"));
  if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", mountPoint]).status !== 0) {
    await rm(mountPoint, { recursive: true, force: true });
    t.skip("mounting a tmpfs needs root");
    return;
  }
  const dataDir = join(mountPoint, "data");
  const service = await startService(
    loadConfig({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_RPC_ADDRESS: "127.0.0.1:0",
      SERVICE_REST_ENABLED: "true",
      SERVICE_REST_ADDRESS: "127.0.0.1:0",
      SERVICE_ADMIN_PASSWORD: adminPassword,
    }),
    { logger: quietLogger, stopGraceMs: 2000 },
  );
  try {
    const rest = service.listeners.find((l) => l.name === "rest");
    assert.ok(rest);
    const target = { baseUrl: `http://${formatAddress(rest.address)}` };
    const login = await http(target, "POST", "/v1/auth/login", {
      body: { username: "admin", password: adminPassword },
    });
    const token = (login.body as { access_token: string }).access_token;
    const authFile = join(dataDir, "auth.json");
    const before = fs.readFileSync(authFile, "utf8");
    const ballast = join(mountPoint, "ballast");
    fillUp(ballast);

    const newUser = {
      username: "writer-1",
      password: "writer-password-1",
      tenant_id: "acme",
      role: "writer",
    };
    const refused = await http(target, "POST", "/v1/admin/users", { token, body: newUser });
    assert.equal(refused.status, 503, refused.text);
    const error = (refused.body as { error: { code: string; message: string; details: unknown } }).error;
    assert.equal(error.code, "UNAVAILABLE");
    assert.match(error.message, /disk is full/);
    assert.equal(fs.readFileSync(authFile, "utf8"), before, "auth.json is the old file");
    assert.deepEqual(
      fs.readdirSync(dataDir).filter((n) => n.endsWith(".tmp")),
      [],
      "no temp file is left behind",
    );
    const listed = await http(target, "GET", "/v1/admin/users", { token });
    assert.deepEqual(
      (listed.body as { users: { username: string }[] }).users.map((u) => u.username),
      ["admin"],
    );

    fs.unlinkSync(ballast);
    const created = await http(target, "POST", "/v1/admin/users", { token, body: newUser });
    assert.equal(created.status, 201, created.text);
    const relogin = await http(target, "POST", "/v1/auth/login", {
      body: { username: newUser.username, password: newUser.password },
    });
    assert.equal(relogin.status, 200, relogin.text);
  } finally {
    await service.stop();
    spawnSync("umount", [mountPoint]);
    await rm(mountPoint, { recursive: true, force: true });
  }
});

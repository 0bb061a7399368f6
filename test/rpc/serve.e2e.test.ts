// `ess serve` and `ess user` as real child processes: bad settings at start-up, the first-start
// admin password, user management over gRPC, and a SIGTERM with appends in flight after which
// every acknowledged append is on disk.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRpcClient } from "../../src/client/rpc-client.js";
import { openLogEngine } from "../../src/storage/log/index.js";
import { eventually } from "../helpers/eventually.js";
import type { ReadStreamResult } from "../../src/contract/bodies.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const password = "serve-admin-password";

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "ess-serve-"));
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return { ...env, ...extra };
}

interface Running {
  child: ChildProcess;
  address: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `ess serve` on an ephemeral port and waits for its "service started" line. */
async function serve(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [cli, "serve"], {
    env: cleanEnv({ SERVICE_RPC_ADDRESS: "127.0.0.1:0", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const address = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const line of stderr.split("\n")) {
        if (!line.startsWith("{")) continue;
        const entry = JSON.parse(line) as { msg: string; rpc_address?: string };
        if (entry.msg === "service started" && entry.rpc_address) resolve(entry.rpc_address);
      }
    });
    void exited.then((code) => reject(new Error(`ess serve exited with ${code}: ${stderr}`)));
  });
  return { child, address, stderr: () => stderr, exited };
}

test("a bad setting stops start-up with one line naming it, exit 2, and nothing started", async () => {
  const dir = await tempDir();
  const dataDir = join(dir, "data");
  const cases: [Record<string, string>, string][] = [
    [{ SERVICE_RPC_ADDRESS: "not-an-address" }, "SERVICE_RPC_ADDRESS"],
    [{ SERVICE_REST_ADDRESS: "127.0.0.1:99999" }, "SERVICE_REST_ADDRESS"],
    [{ SERVICE_STORAGE: "mongo" }, "SERVICE_STORAGE"],
    [{ SERVICE_STORAGE: "postgres" }, "SERVICE_POSTGRES_URL"],
    [{ SERVICE_TOKEN_TTL: "soon" }, "SERVICE_TOKEN_TTL"],
    [{ SERVICE_WS_ENABLED: "maybe" }, "SERVICE_WS_ENABLED"],
    [{ SERVICE_ADMIN_PASSWORD: "short" }, "SERVICE_ADMIN_PASSWORD"],
    [{ SERVICE_RPC_FAST_CARRIER: "off" }, "SERVICE_RPC_FAST_CARRIER"],
  ];
  for (const [settings, name] of cases) {
    const result = spawnSync(process.execPath, [cli, "serve"], {
      env: cleanEnv({ SERVICE_DATA_DIR: dataDir, ...settings }),
      encoding: "utf8",
      timeout: 20_000,
    });
    assert.equal(result.status, 2, `${name}: ${result.stderr}`);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0] ?? "", new RegExp(name));
    assert.equal(existsSync(dataDir), false, "no data directory was created");
  }
  const flag = spawnSync(process.execPath, [cli, "serve", "--rpc-address", "nowhere"], {
    env: cleanEnv({ SERVICE_DATA_DIR: dataDir }),
    encoding: "utf8",
  });
  assert.equal(flag.status, 2);
  assert.match(flag.stderr, /SERVICE_RPC_ADDRESS/);
  await rm(dir, { recursive: true, force: true });
});

test("an RPC address already in use fails start-up with one line naming it, exit 1", async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  const port = (blocker.address() as { port: number }).port;
  const dataDir = await tempDir();
  const result = spawnSync(process.execPath, [cli, "serve"], {
    env: cleanEnv({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_RPC_ADDRESS: `127.0.0.1:${port}`,
      SERVICE_ADMIN_PASSWORD: password,
      ESS_LOG_LEVEL: "error",
    }),
    encoding: "utf8",
    timeout: 20_000,
  });
  blocker.close();
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, /SERVICE_RPC_ADDRESS/);
  assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  await rm(dataDir, { recursive: true, force: true });
});

test("a damaged auth.json stops serve and verify with one line naming the file and the damage, exit 1", async () => {
  const dataDir = await tempDir();
  const authFile = join(dataDir, "auth.json");
  const damages: [string, RegExp][] = [
    ['{\n  "users": [\n    {"username": "admin",', /not valid JSON/],
    ['{"users": {}, "signing_key": null}\n', /'users' is not a list/],
    ['{"users": [{"username": "a"}], "signing_key": null}\n', /users\[0\]\.tenant_id/],
  ];
  try {
    for (const [content, damage] of damages) {
      await writeFile(authFile, content);
      const runs = {
        serve: spawnSync(process.execPath, [cli, "serve"], {
          env: cleanEnv({ SERVICE_DATA_DIR: dataDir, ESS_LOG_LEVEL: "error" }),
          encoding: "utf8",
          timeout: 20_000,
        }),
        verify: spawnSync(process.execPath, [cli, "verify", "--data-dir", dataDir], {
          env: cleanEnv({ ESS_LOG_LEVEL: "error" }),
          encoding: "utf8",
          timeout: 20_000,
        }),
      };
      for (const [command, result] of Object.entries(runs)) {
        const what = `${command} with ${JSON.stringify(content)}: ${result.stderr}`;
        assert.equal(result.status, 1, what);
        const lines = result.stderr.trim().split("\n");
        assert.equal(lines.length, 1, what);
        assert.ok(lines[0]!.includes(`${authFile} is damaged`), what);
        assert.match(lines[0]!, damage, what);
      }
      assert.equal(await readFile(authFile, "utf8"), content, "the damaged file is left for the operator");
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("the first start prints a generated admin password once; it logs in, and a restart prints nothing", async () => {
  const dataDir = await tempDir();
  const first = await serve({ SERVICE_DATA_DIR: dataDir });
  const match = /created user 'admin'.* password (\S+)/.exec(first.stderr());
  assert.ok(match, first.stderr());
  const client = createRpcClient({ address: first.address });
  const login = await client.login({ token: null }, { username: "admin", password: match[1] });
  assert.equal(login.role, "admin");
  assert.equal(login.tenant_id, "default");
  client.close();
  first.child.kill("SIGTERM");
  assert.equal(await first.exited, 0);

  const second = await serve({ SERVICE_DATA_DIR: dataDir });
  assert.doesNotMatch(second.stderr(), /created user/);
  second.child.kill("SIGINT");
  assert.equal(await second.exited, 0);
  await rm(dataDir, { recursive: true, force: true });
});

test("SERVICE_ADMIN_PASSWORD on a data directory whose admin has another password: one warning line; the right one: none", async () => {
  const dataDir = await tempDir();
  const first = await serve({ SERVICE_DATA_DIR: dataDir });
  first.child.kill("SIGTERM");
  assert.equal(await first.exited, 0);

  const warning = /SERVICE_ADMIN_PASSWORD is ignored/;
  const other = await serve({ SERVICE_DATA_DIR: dataDir, SERVICE_ADMIN_PASSWORD: "change-me-now" });
  try {
    const lines = other
      .stderr()
      .split("\n")
      .filter((line) => warning.test(line));
    assert.equal(lines.length, 1, other.stderr());
    assert.match(lines[0] ?? "", /user 'admin' with another password/);
    assert.ok(lines[0]?.includes(dataDir), lines[0]);
  } finally {
    other.child.kill("SIGTERM");
    assert.equal(await other.exited, 0);
  }
  await rm(dataDir, { recursive: true, force: true });

  // Set on the first start and again later: it is the admin's password, so nothing to say.
  const fresh = await tempDir();
  const once = await serve({ SERVICE_DATA_DIR: fresh, SERVICE_ADMIN_PASSWORD: password });
  once.child.kill("SIGTERM");
  assert.equal(await once.exited, 0);
  const again = await serve({ SERVICE_DATA_DIR: fresh, SERVICE_ADMIN_PASSWORD: password });
  try {
    assert.doesNotMatch(again.stderr(), warning);
  } finally {
    again.child.kill("SIGTERM");
    assert.equal(await again.exited, 0);
  }
  await rm(fresh, { recursive: true, force: true });
});

test("ess user add, list and delete work against a running service with admin credentials", async () => {
  const dataDir = await tempDir();
  const running = await serve({ SERVICE_DATA_DIR: dataDir, SERVICE_ADMIN_PASSWORD: password });
  const user = (...args: string[]) =>
    spawnSync(process.execPath, [cli, "user", ...args, "--address", running.address], {
      env: cleanEnv({ ESS_PASSWORD: password }),
      encoding: "utf8",
      timeout: 20_000,
    });
  const added = user("add", "ann", "--tenant", "acme", "--role", "writer", "--user-password", "ann-password");
  assert.equal(added.status, 0, added.stderr);
  assert.match(added.stdout, /created user ann \(tenant acme, role writer\)/);

  const generated = user("add", "bob", "--tenant", "acme", "--role", "reader");
  assert.equal(generated.status, 0, generated.stderr);
  const bobPassword = /password: (\S+)/.exec(generated.stdout)?.[1];
  assert.ok(bobPassword);
  const client = createRpcClient({ address: running.address });
  assert.equal(
    (await client.login({ token: null }, { username: "bob", password: bobPassword })).role,
    "reader",
  );

  const listed = user("list", "--json");
  assert.equal(listed.status, 0, listed.stderr);
  const page = JSON.parse(listed.stdout) as { users: { username: string }[] };
  assert.deepEqual(page.users.map((u) => u.username).sort(), ["admin", "ann", "bob"]);
  assert.match(user("list").stdout, /^USERNAME\s+TENANT\s+ROLE\s+CREATED/);

  const deleted = user("delete", "ann");
  assert.equal(deleted.status, 0, deleted.stderr);
  const again = user("delete", "ann");
  assert.equal(again.status, 1);
  assert.match(again.stderr, /USER_NOT_FOUND/);

  const duplicate = user("add", "bob", "--tenant", "acme", "--role", "reader");
  assert.equal(duplicate.status, 1);
  assert.match(duplicate.stderr, /USER_EXISTS/);

  // A token works instead of a password; a reader's token is refused.
  const readerToken = (await client.login({ token: null }, { username: "bob", password: bobPassword }))
    .access_token;
  const refused = spawnSync(
    process.execPath,
    [cli, "user", "list", "--address", running.address, "--token", readerToken],
    {
      env: cleanEnv({}),
      encoding: "utf8",
    },
  );
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /PERMISSION_DENIED/);
  const wrong = user("list", "--password", "not-the-password");
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /UNAUTHENTICATED/);
  const usage = user("add", "carl");
  assert.equal(usage.status, 2);

  client.close();
  running.child.kill("SIGTERM");
  assert.equal(await running.exited, 0);
  await rm(dataDir, { recursive: true, force: true });
});

test("SIGTERM with appends in flight: exit 0, and every acknowledged append is there after reopening", async () => {
  const dataDir = await tempDir();
  const running = await serve({ SERVICE_DATA_DIR: dataDir, SERVICE_ADMIN_PASSWORD: password });
  const client = createRpcClient({ address: running.address });
  const { access_token } = await client.login({ token: null }, { username: "admin", password });
  const ctx = { token: access_token };
  const acknowledged: { stream: string; event_id: string }[] = [];
  let stop = false;
  let refusedAfterStop = 0;
  const writers = Array.from({ length: 16 }, async (_, w) => {
    const stream = `load-${w}`;
    for (let i = 0; !stop; i++) {
      const event_id = crypto.randomUUID();
      try {
        await client.append(ctx, { stream_id: stream, event_type: "Tick", data: { w, i }, event_id });
        acknowledged.push({ stream, event_id });
      } catch {
        // Refused or cut off by the shutdown: not acknowledged, so no promise was made.
        refusedAfterStop++;
        return;
      }
    }
  });
  // The signal comes once appends are being acknowledged (a loaded machine may take seconds to
  // get there; a fixed wait made the test flaky).
  await eventually(() => acknowledged.length >= 32, "appends to be acknowledged before the signal");
  running.child.kill("SIGTERM");
  assert.equal(await running.exited, 0, running.stderr());
  stop = true;
  await Promise.all(writers);
  client.close();
  assert.ok(refusedAfterStop > 0 || acknowledged.length > 0);
  assert.match(running.stderr(), /"service stopped"/);

  const engine = await openLogEngine({ dataDir });
  try {
    const stored = new Set<string>();
    for (let w = 0; w < 16; w++) {
      let from: number | null = 0;
      while (from !== null) {
        const page: ReadStreamResult | null = await engine
          .readStream({
            tenant_id: "default",
            stream_id: `load-${w}`,
            direction: "forward",
            from_revision: from,
            limit: 1000,
          })
          .catch(() => null);
        if (page === null) break;
        for (const e of page.events) stored.add(e.event_id);
        from = page.next_revision;
      }
    }
    const missing = acknowledged.filter((a) => !stored.has(a.event_id));
    assert.deepEqual(
      missing,
      [],
      `${missing.length} of ${acknowledged.length} acknowledged appends are missing`,
    );
  } finally {
    await engine.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

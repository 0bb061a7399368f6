// The `ess` command as a newcomer meets it: the ./ess wrapper the README uses, `npm start`'s
// command, and the small things that used to go wrong (a closed pipe, a misspelt role, a data
// directory that is a file, a service that is not running).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "dist/src/cli/main.js");
const wrapper = join(root, "ess");

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

test("./ess runs the built command: --version prints the package version without loading gRPC, Fastify or pg", async () => {
  const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
  const plain = spawnSync(wrapper, ["--version"], { cwd: root, env: env(), encoding: "utf8" });
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(plain.stdout, `${pkg.version}\n`);

  // Lists every CommonJS module loaded (the heavy dependencies are CommonJS) at exit.
  const probe =
    'import{createRequire}from"node:module";const r=createRequire("/probe.js");' +
    'process.on("exit",()=>process.stderr.write(JSON.stringify(Object.keys(r.cache))))';
  const probed = spawnSync(
    process.execPath,
    ["--import", `data:text/javascript,${probe}`, cli, "--version"],
    {
      env: env(),
      encoding: "utf8",
    },
  );
  assert.equal(probed.status, 0, probed.stderr);
  const loaded = JSON.parse(probed.stderr) as string[];
  const heavy = loaded.filter((path) => /node_modules[\\/](@grpc|fastify|pg|ws|ajv)[\\/]/.test(path));
  assert.deepEqual(heavy, []);

  const help = spawnSync(wrapper, ["--help"], { cwd: root, env: env(), encoding: "utf8" });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /Usage: \.\/ess <command>/);
});

test("ess openapi | head ends quietly, exit 0", () => {
  // A real shell pipe: the document (over 100 KB) is more than the pipe holds, so the write
  // meets the closed pipe (EPIPE), as `ess openapi | head` does.
  const piped = spawnSync(
    "bash",
    ["-c", 'set -o pipefail; "$0" "$1" openapi | head -c 10 >/dev/null', process.execPath, cli],
    { env: env(), encoding: "utf8" },
  );
  assert.equal(piped.stderr, "");
  assert.equal(piped.status, 0);
});

test("ess user: an unknown role is bad usage (exit 2); with no service it names the address it tried", () => {
  const role = spawnSync(
    process.execPath,
    [cli, "user", "add", "carol", "--tenant", "acme", "--role", "boss", "--address", "127.0.0.1:1"],
    { env: env({ ESS_PASSWORD: "whatever-password" }), encoding: "utf8" },
  );
  assert.equal(role.status, 2, role.stderr);
  assert.match(role.stderr, /--role must be admin, writer, reader, not 'boss'/);

  for (const credentials of [
    ["--password", "whatever-password"],
    ["--token", "some-token"],
  ]) {
    const down = spawnSync(
      process.execPath,
      [cli, "user", "list", "--address", "127.0.0.1:1", ...credentials],
      {
        env: env(),
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    assert.equal(down.status, 1, down.stderr);
    assert.match(down.stderr, /UNAVAILABLE: .* at 127\.0\.0\.1:1 /);
  }
});

test("a data directory that is a file: 'is not a directory', exit 1 (serve) and the same for verify", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ess-cli-"));
  const file = join(dir, "data");
  await writeFile(file, "not a directory");
  const serve = spawnSync(process.execPath, [cli, "serve"], {
    env: env({ SERVICE_DATA_DIR: file, SERVICE_RPC_ADDRESS: "127.0.0.1:0", ESS_LOG_LEVEL: "silent" }),
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(serve.status, 1, serve.stderr);
  assert.match(serve.stderr, /SERVICE_DATA_DIR: .*data is not a directory/);
  assert.doesNotMatch(serve.stderr, /EEXIST/);
  const verify = spawnSync(process.execPath, [cli, "verify", "--data-dir", file], {
    env: env(),
    encoding: "utf8",
  });
  assert.equal(verify.status, 1);
  assert.match(verify.stderr, /is not a directory/);
  await rm(dir, { recursive: true, force: true });
});

/** Runs `command` with sh as npm does, SIGTERMs the process it started, and waits for the service to stop. */
async function stopsOnSigterm(command: string, dataDir: string): Promise<void> {
  const child = spawn("sh", ["-c", command], {
    cwd: root,
    env: env({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_RPC_ADDRESS: "127.0.0.1:0",
      SERVICE_ADMIN_PASSWORD: "cli-admin-password",
    }),
    stdio: ["ignore", "ignore", "pipe"],
    detached: true, // its own process group, so that a failed run leaves nothing behind
  });
  let stderr = "";
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("exit", (code, signal) => resolve([code, signal])),
  );
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('"msg":"service started"')) resolve();
      });
      void exited.then(() => reject(new Error(`exited before starting: ${stderr}`)));
    });
    child.kill("SIGTERM");
    const [code, signal] = await exited;
    assert.equal(signal, null, `the shell died of ${signal}, the service did not get the signal`);
    assert.equal(code, 0, stderr);
    await closed;
    assert.match(stderr, /"msg":"service stopped"/);
  } finally {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // the group is gone: nothing was left running
    }
  }
}

test("SIGTERM to `npm start`'s command or to ./ess serve reaches the service, which stops cleanly", async () => {
  const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  // npm runs the script with sh -c and passes a SIGTERM to that shell; the build step is skipped.
  const start = pkg.scripts.start.replace(/^npm run build && /, "");
  const dir = await mkdtemp(join(tmpdir(), "ess-cli-"));
  await stopsOnSigterm(start, join(dir, "a"));
  await stopsOnSigterm("exec ./ess serve", join(dir, "b"));
  await rm(dir, { recursive: true, force: true });
});

// Settings `ess serve` refuses before anything starts, through the real command: one line naming
// the setting, exit 2. ESS_LOG_LEVEL used to take any value silently; a metrics address that is
// not host:port is refused as every other address is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "dist/src/cli/main.js");

function run(command: string[], extra: Record<string, string>, dataDir: string) {
  return spawnSync(process.execPath, [cli, ...command], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_RPC_ADDRESS: "127.0.0.1:0",
      ...extra,
    },
    encoding: "utf8",
    timeout: 20_000,
  });
}

test("ess serve refuses an unknown ESS_LOG_LEVEL and a bad SERVICE_METRICS_ADDRESS: one line, exit 2, nothing started", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ess-settings-"));
  const dataDir = join(dir, "data");
  try {
    const loud = run(["serve"], { ESS_LOG_LEVEL: "loud" }, dataDir);
    assert.equal(loud.status, 2, loud.stderr);
    assert.equal(
      loud.stderr,
      "ess serve: ESS_LOG_LEVEL: 'loud' is not a log level (use debug, info, warn, error, silent)\n",
    );
    const gateway = run(["gateway", "--upstream", "127.0.0.1:1"], { ESS_LOG_LEVEL: "verbose" }, dataDir);
    assert.equal(gateway.status, 2, gateway.stderr);
    assert.match(gateway.stderr, /^ess gateway: ESS_LOG_LEVEL: 'verbose' is not a log level/);

    const address = run(
      ["serve"],
      { SERVICE_METRICS_ENABLED: "true", SERVICE_METRICS_ADDRESS: "9464" },
      dataDir,
    );
    assert.equal(address.status, 2, address.stderr);
    assert.equal(
      address.stderr,
      "ess serve: SERVICE_METRICS_ADDRESS: '9464' is not a host:port address (for example 127.0.0.1:8081)\n",
    );
    const enabled = run(["serve"], { SERVICE_METRICS_ENABLED: "maybe" }, dataDir);
    assert.equal(enabled.status, 2, enabled.stderr);
    assert.match(enabled.stderr, /^ess serve: SERVICE_METRICS_ENABLED: 'maybe' is not true or false\n$/);
    // Nothing started: no data directory was made.
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * `ess gateway --upstream` as a user runs it: a child process in front of a running service's
 * RPC server, answering as the service's own gateway does, and stopping cleanly on SIGTERM.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { formatAddress } from "../../src/config/config.js";
import { adminPassword, http, login, startTarget } from "./harness.js";

const mainJs = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

test("ess gateway serves the service's routes over gRPC and exits 0 on SIGTERM", async () => {
  const service = await startTarget("in-process");
  const child = spawn(
    process.execPath,
    [mainJs, "gateway", "--upstream", formatAddress(service.service.rpcAddress), "--address", "127.0.0.1:0"],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ESS_LOG_LEVEL: "info" } },
  );
  try {
    let stderr = "";
    const address = await new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        const match = /"msg":"REST gateway listening","component":"gateway","address":"([^"]+)"/.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
      child.once("exit", (code) => reject(new Error(`ess gateway exited with ${code}: ${stderr}`)));
    });
    const gateway = { baseUrl: `http://${address}` };
    const token = await login(service, "admin", adminPassword);
    await http(service, "POST", "/v1/streams/via-gateway/append", {
      token,
      body: { event_type: "t", data: { a: 1 } },
    });
    const direct = await http(service, "GET", "/v1/streams/via-gateway", { token });
    const viaGateway = await http(gateway, "GET", "/v1/streams/via-gateway", { token });
    assert.equal(viaGateway.status, 200);
    assert.equal(viaGateway.text, direct.text);
    const missing = await http(gateway, "GET", "/v1/streams/via-gateway");
    assert.equal(missing.status, 401);
    assert.equal(missing.text, (await http(service, "GET", "/v1/streams/via-gateway")).text);
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await service.stop();
  }
});

test("ess gateway without --upstream is a usage error (exit 2)", async () => {
  const child = spawn(process.execPath, [mainJs, "gateway"], { stdio: "ignore" });
  const [code] = (await once(child, "exit")) as [number | null];
  assert.equal(code, 2);
});

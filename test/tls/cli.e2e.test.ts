// TLS through the real command line: `ess serve` refusing a bad pair at start-up (exit 2, one line
// naming the setting, nothing started), re-reading its pair on SIGHUP (new connections get the new
// certificate, open gRPC and WebSocket subscriptions keep running; a bad pair keeps the old one),
// and `ess user` / `ess gateway --upstream` with --tls and --tls-ca, saying so when the scheme
// does not match.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRpcClient } from "../../src/client/rpc-client.js";
import type { SubscribeResponse__Output } from "../../src/rpc/generated/ess/v1/SubscribeResponse.js";
import { createTestCa } from "../helpers/tls-certs.js";
import { startTestService } from "../rpc/service-harness.js";
import { httpsCall, peerFingerprint, WsSubscriber } from "./tls-clients.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const password = "tls-cli-admin-password";

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

test("a bad TLS pair stops start-up with one line naming the setting, exit 2, nothing started", () => {
  const ca = createTestCa();
  try {
    const one = ca.issue("one");
    const two = ca.issue("two");
    const notPem = ca.file("not-pem.txt", "just some text\n");
    const dataDir = join(ca.dir, "data");
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ SERVICE_TLS_CERT_FILE: one.certFile }, "SERVICE_TLS_KEY_FILE", /is required/],
      [{ SERVICE_TLS_KEY_FILE: one.keyFile }, "SERVICE_TLS_CERT_FILE", /is required/],
      [
        { SERVICE_TLS_CERT_FILE: join(ca.dir, "missing.pem"), SERVICE_TLS_KEY_FILE: one.keyFile },
        "SERVICE_TLS_CERT_FILE",
        /cannot read .*ENOENT/,
      ],
      [
        { SERVICE_TLS_CERT_FILE: one.certFile, SERVICE_TLS_KEY_FILE: notPem },
        "SERVICE_TLS_KEY_FILE",
        /not a PEM/,
      ],
      [
        { SERVICE_TLS_CERT_FILE: notPem, SERVICE_TLS_KEY_FILE: one.keyFile },
        "SERVICE_TLS_CERT_FILE",
        /not a PEM/,
      ],
      // A key is PEM too, but not a certificate.
      [
        { SERVICE_TLS_CERT_FILE: one.keyFile, SERVICE_TLS_KEY_FILE: one.keyFile },
        "SERVICE_TLS_CERT_FILE",
        /no PEM certificate/,
      ],
      [
        { SERVICE_TLS_CERT_FILE: one.certFile, SERVICE_TLS_KEY_FILE: two.keyFile },
        "SERVICE_TLS_KEY_FILE",
        /does not match the certificate/,
      ],
    ];
    for (const [settings, setting, reason] of cases) {
      const result = spawnSync(process.execPath, [cli, "serve"], {
        env: cleanEnv({ SERVICE_DATA_DIR: dataDir, SERVICE_RPC_ADDRESS: "127.0.0.1:0", ...settings }),
        encoding: "utf8",
        timeout: 20_000,
      });
      assert.equal(result.status, 2, `${setting}: ${result.stderr}`);
      const lines = result.stderr.trim().split("\n");
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0] ?? "", new RegExp(`^ess serve: ${setting}: `));
      assert.match(lines[0] ?? "", reason);
      assert.equal(existsSync(dataDir), false, "no data directory was created");
    }
  } finally {
    ca.remove();
  }
});

interface Served {
  child: ChildProcess;
  stderr: () => string;
  ports: { rpc: number; rest: number; ws: number };
  /** Resolves once a log line with this message has appeared after `from` characters of stderr. */
  logged(msg: string, from: number): Promise<void>;
}

async function serveWithTls(dataDir: string, certFile: string, keyFile: string): Promise<Served> {
  const child = spawn(process.execPath, [cli, "serve"], {
    env: cleanEnv({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_ADMIN_PASSWORD: password,
      SERVICE_RPC_ADDRESS: "127.0.0.1:0",
      SERVICE_REST_ENABLED: "true",
      SERVICE_REST_ADDRESS: "127.0.0.1:0",
      SERVICE_WS_ENABLED: "true",
      SERVICE_WS_ADDRESS: "127.0.0.1:0",
      SERVICE_TLS_CERT_FILE: certFile,
      SERVICE_TLS_KEY_FILE: keyFile,
    }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const logged = async (msg: string, from: number): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!stderr.slice(from).includes(`"msg":"${msg}"`)) {
      if (child.exitCode !== null || Date.now() > deadline) assert.fail(`no '${msg}' in ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  await logged("service started", 0);
  const line = stderr.split("\n").find((l) => l.includes('"msg":"service started"'))!;
  const started = JSON.parse(line) as Record<string, string>;
  const port = (name: string): number => Number(started[`${name}_address`]!.split(":")[1]);
  return {
    child,
    stderr: () => stderr,
    ports: { rpc: port("rpc"), rest: port("rest"), ws: port("ws") },
    logged,
  };
}

test("SIGHUP re-reads the pair: new connections get the new certificate, open ones go on; a bad pair keeps the old", async () => {
  const ca = createTestCa();
  const dataDir = await mkdtemp(join(tmpdir(), "ess-tls-cli-"));
  const first = ca.issue("first");
  const second = ca.issue("second");
  // The files the service reads, renewed in place as an operator would.
  const certFile = ca.file("live.pem");
  const keyFile = ca.file("live.key");
  copyFileSync(first.chainFile, certFile);
  copyFileSync(first.keyFile, keyFile);
  const served = await serveWithTls(dataDir, certFile, keyFile);
  const client = createRpcClient({ address: `127.0.0.1:${served.ports.rpc}`, tls: { ca: ca.ca } });
  try {
    // Each listener with its own ALPN: h2 on the RPC port, HTTP/1.1 on REST and WebSocket.
    const all: [number, "h2" | "http/1.1"][] = [
      [served.ports.rpc, "h2"],
      [served.ports.rest, "http/1.1"],
      [served.ports.ws, "http/1.1"],
    ];
    for (const [port, alpn] of all)
      assert.equal(await peerFingerprint(port, ca.ca, alpn), first.fingerprint256);
    const admin = {
      token: (await client.login({ token: null }, { username: "admin", password })).access_token,
    };
    // Open before the reload: a gRPC subscription and a WSS subscription.
    const messages: SubscribeResponse__Output[] = [];
    const call = client.grpc.streams.Subscribe(
      { stream_id: "renewed", from: "0" },
      client.metadataFor(admin),
    );
    call.on("data", (m: SubscribeResponse__Output) => messages.push(m));
    call.on("error", () => undefined);
    const ws = await WsSubscriber.open(`wss://127.0.0.1:${served.ports.ws}/v1/subscribe`, admin.token, ca.ca);
    ws.subscribe("w", "renewed");
    await ws.until(() => ws.messages.some((m) => m.type === "caught_up"), "caught_up");

    copyFileSync(second.chainFile, certFile);
    copyFileSync(second.keyFile, keyFile);
    let mark = served.stderr().length;
    served.child.kill("SIGHUP");
    await served.logged("tls certificate reloaded", mark);
    for (const [port, alpn] of all)
      assert.equal(await peerFingerprint(port, ca.ca, alpn), second.fingerprint256);

    // A certificate with another pair's key: refused, logged, the second pair stays.
    copyFileSync(first.chainFile, certFile);
    mark = served.stderr().length;
    served.child.kill("SIGHUP");
    await served.logged("tls reload failed; the listeners keep the certificate they had", mark);
    assert.match(served.stderr().slice(mark), /does not match the certificate/);
    for (const [port, alpn] of all)
      assert.equal(await peerFingerprint(port, ca.ca, alpn), second.fingerprint256);

    // The subscriptions opened before both reloads still deliver.
    await client.append(admin, { stream_id: "renewed", events: [{ event_type: "e", data: { n: 1 } }] });
    await ws.until(() => ws.revisions("w").length === 1, "the event on the WSS connection");
    await ws.until(() => messages.some((m) => m.message === "event"), "the event on the gRPC stream");
    assert.equal(ws.closed, false);
    call.cancel();
    ws.close();
    served.child.kill("SIGTERM");
    const [code] = (await once(served.child, "exit")) as [number | null];
    assert.equal(code, 0, served.stderr());
  } finally {
    client.close();
    if (served.child.exitCode === null) served.child.kill("SIGKILL");
    await rm(dataDir, { recursive: true, force: true });
    ca.remove();
  }
});

/** `ess user list` as a child process (not spawnSync: a server in this process must go on answering). */
async function essUser(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cli, "user", "list", "--password", password, ...args], {
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [status] = (await once(child, "exit")) as [number | null];
  return { status, stdout, stderr };
}

/** `ess gateway` as a child process; `until` resolves with the first group of a stderr match. */
function gatewayProcess(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [cli, "gateway", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: cleanEnv({ ESS_LOG_LEVEL: "info", ...env }),
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const until = async (pattern: RegExp): Promise<string> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const match = pattern.exec(stderr);
      if (match) return match[1] ?? match[0];
      if (child.exitCode !== null || Date.now() > deadline)
        assert.fail(`no ${String(pattern)} in: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { child, stderr: () => stderr, until };
}

test("ess user and ess gateway reach a TLS server with --tls --tls-ca, and say when the scheme does not match", async () => {
  const ca = createTestCa();
  const cert = ca.issue("server");
  const dataDir = await mkdtemp(join(tmpdir(), "ess-tls-cli-"));
  const served = await serveWithTls(dataDir, cert.chainFile, cert.keyFile);
  const plain = await startTestService();
  const address = `127.0.0.1:${served.ports.rpc}`;
  try {
    const ok = await essUser(["--address", address, "--tls", "--tls-ca", ca.caFile]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^admin\s+default\s+admin/m);
    assert.equal(ok.stderr, "");
    // The environment instead of flags; ESS_TLS_CA implies TLS.
    const byEnv = await essUser(["--address", address], { ESS_TLS_CA: ca.caFile });
    assert.equal(byEnv.status, 0, byEnv.stderr);

    const noTls = await essUser(["--address", address]);
    assert.equal(noTls.status, 1);
    assert.match(noTls.stderr, /the server speaks TLS: add --tls/);
    const untrusted = await essUser(["--address", address, "--tls"]);
    assert.equal(untrusted.status, 1);
    assert.match(untrusted.stderr, /its certificate is not trusted .*--tls-ca/);
    const tlsToPlain = await essUser(["--address", plain.address, "--tls-ca", ca.caFile]);
    assert.equal(tlsToPlain.status, 1);
    assert.match(tlsToPlain.stderr, /the server does not speak TLS/);
    const badCa = await essUser(["--address", address, "--tls-ca", join(ca.dir, "missing.pem")]);
    assert.equal(badCa.status, 2);
    assert.match(badCa.stderr, /--tls-ca: cannot read/);

    // The lone gateway without --tls in front of the TLS upstream: its warning says why.
    const wrong = gatewayProcess(["--upstream", address, "--address", "127.0.0.1:0"], {});
    try {
      await wrong.until(/the upstream RPC server does not answer yet.*the server speaks TLS: add --tls/);
    } finally {
      wrong.child.kill("SIGKILL");
    }
    // With --tls --tls-ca: HTTPS in front (the service's settings), TLS to its upstream.
    const gateway = gatewayProcess(
      ["--upstream", address, "--address", "127.0.0.1:0", "--tls", "--tls-ca", ca.caFile],
      { SERVICE_TLS_CERT_FILE: cert.chainFile, SERVICE_TLS_KEY_FILE: cert.keyFile },
    );
    try {
      const listening = await gateway.until(
        /"msg":"REST gateway listening","component":"gateway","address":"([^"]+)"/,
      );
      const login = await httpsCall(Number(listening.split(":")[1]), ca.ca, "POST", "/v1/auth/login", {
        body: { username: "admin", password },
      });
      assert.equal(login.status, 200, login.body);
      gateway.child.kill("SIGTERM");
      const [code] = (await once(gateway.child, "exit")) as [number | null];
      assert.equal(code, 0, gateway.stderr());
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL");
    }
  } finally {
    await plain.close();
    served.child.kill("SIGTERM");
    await once(served.child, "exit");
    await rm(dataDir, { recursive: true, force: true });
    ca.remove();
  }
});

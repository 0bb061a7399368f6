import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../logger.js";
import { buildRestApp } from "./app.js";
import { recordingOperations } from "../../test/rest/recording-operations.js";

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

/** A console build folder with the files the gateway serves. */
function builtConsole(): string {
  const root = mkdtempSync(join(tmpdir(), "ess-console-"));
  writeFileSync(
    join(root, "index.html"),
    '<!doctype html><html><head><meta name="ess-base-path" content="" /><script type="module" src="app.js"></script></head></html>',
  );
  writeFileSync(join(root, "app.js"), "export {};");
  writeFileSync(join(root, "app.css"), "body{}");
  writeFileSync(join(root, ".secret"), "nope");
  return root;
}

function appWith(root: string, basePath: string | null = null) {
  return buildRestApp(recordingOperations().operations, { logger: quiet, console: { basePath, root } });
}

test("/console redirects to /console/ with a relative location, which works under a proxy's prefix", async () => {
  const root = builtConsole();
  const app = appWith(root);
  const response = await app.inject({ method: "GET", url: "/console" });
  assert.equal(response.statusCode, 308);
  assert.equal(response.headers.location, "console/");
  await app.close();
  rmSync(root, { recursive: true });
});

test("the console's page and files carry a strict Content-Security-Policy and set no cookie", async () => {
  const root = builtConsole();
  const app = appWith(root);
  for (const url of ["/console/", "/console/index.html", "/console/app.js", "/console/app.css"]) {
    const response = await app.inject({ method: "GET", url, headers: { host: "ess.example:8081" } });
    assert.equal(response.statusCode, 200, url);
    const csp = String(response.headers["content-security-policy"]);
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self' ws://ess.example:8081 wss://ess.example:8081",
      "frame-ancestors 'none'",
      "object-src 'none'",
      "base-uri 'none'",
    ]) {
      assert.ok(csp.split("; ").includes(directive), `${url}: ${directive} in ${csp}`);
    }
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/, url);
    assert.equal(response.headers["x-content-type-options"], "nosniff", url);
    assert.equal(response.headers["set-cookie"], undefined, url);
  }
  const page = await app.inject({ method: "GET", url: "/console/" });
  assert.match(String(page.headers["content-type"]), /^text\/html/);
  assert.match(page.body, /<meta name="ess-base-path" content="">/);
  await app.close();
  rmSync(root, { recursive: true });
});

test("a host header that is not a plain host:port is not written into the policy", async () => {
  const root = builtConsole();
  const app = appWith(root);
  const response = await app.inject({
    method: "GET",
    url: "/console/",
    headers: { host: "evil.example; script-src *" },
  });
  assert.match(String(response.headers["content-security-policy"]), /connect-src 'self'; /);
  await app.close();
  rmSync(root, { recursive: true });
});

test("the configured base path is written into the page, escaped", async () => {
  const root = builtConsole();
  const app = appWith(root, "/ops/ess/");
  const response = await app.inject({ method: "GET", url: "/console/" });
  assert.match(response.body, /<meta name="ess-base-path" content="\/ops\/ess\/">/);
  await app.close();
  const hostile = appWith(root, '/x"><script>');
  const escaped = await hostile.inject({ method: "GET", url: "/console/" });
  assert.match(escaped.body, /content="\/x&quot;&gt;&lt;script&gt;"/);
  await hostile.close();
  rmSync(root, { recursive: true });
});

test("a file the console does not have, or a dotfile, answers in the contract's error shape", async () => {
  const root = builtConsole();
  const app = appWith(root);
  for (const url of ["/console/nothing.js", "/console/.secret", "/console/../package.json"]) {
    const response = await app.inject({ method: "GET", url });
    assert.equal(response.statusCode, 404, url);
    assert.equal(response.json<{ error: { code: string } }>().error.code, "NOT_FOUND", url);
  }
  await app.close();
  rmSync(root, { recursive: true });
});

test("a console that was not built answers 404 saying so, and the API still answers", async () => {
  const root = mkdtempSync(join(tmpdir(), "ess-console-empty-"));
  const app = appWith(root);
  const response = await app.inject({ method: "GET", url: "/console/" });
  assert.equal(response.statusCode, 404);
  assert.match(response.json<{ error: { message: string } }>().error.message, /not built/);
  const health = await app.inject({ method: "GET", url: "/v1/health" });
  assert.equal(health.statusCode, 200);
  await app.close();
  rmSync(root, { recursive: true });
});

test("with the console turned off its paths are unknown routes", async () => {
  const app = buildRestApp(recordingOperations().operations, { logger: quiet, console: null });
  const response = await app.inject({ method: "GET", url: "/console/" });
  assert.equal(response.statusCode, 404);
  assert.equal(response.json<{ error: { code: string } }>().error.code, "NOT_FOUND");
  await app.close();
});

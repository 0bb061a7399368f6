/**
 * What the console's end-to-end tests stand on: the real service as `ess serve` starts it (on a
 * temporary data directory, every listener on 127.0.0.1 port 0), Debian's
 * Chromium driven by playwright-core (never Playwright's own browser download), axe-core
 * injected into the page for WCAG checks, and a folder for screenshots (test-artifacts/console,
 * ignored by git).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { formatAddress, loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import { startService, type Service } from "../../src/service.js";
import type { LogEngineOptions } from "../../src/storage/log/log-engine.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
export const artifactsDir = join(root, "test-artifacts", "console");
export const adminPassword = "admin-password-1";

/** Debian's package; ESS_CHROMIUM names another binary. */
export const chromiumPath = process.env.ESS_CHROMIUM ?? "/usr/bin/chromium";

export function requireChromium(): void {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `the console's browser tests need Chromium at ${chromiumPath}: install Debian's package ` +
        "(apt-get install -y chromium; .ci/run does it) or set ESS_CHROMIUM to a Chromium binary",
    );
  }
}

export interface Browser {
  context: BrowserContext;
  /** Messages the pages logged that tell of a Content-Security-Policy refusal or a page error. */
  problems: string[];
  newPage(options?: { colorScheme?: "light" | "dark" }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  requireChromium();
  const profile = await mkdtemp(join(tmpdir(), "ess-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  // Fail in seconds, not Playwright's default 30: every wait here is for a local page.
  context.setDefaultTimeout(10_000);
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on("console", (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  };
  context.pages().forEach(watch);
  context.on("page", watch);
  return {
    context,
    problems,
    async newPage(options = {}) {
      const page = await context.newPage();
      await page.emulateMedia({ colorScheme: options.colorScheme ?? "light" });
      return page;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export interface Served {
  /** http://127.0.0.1:PORT/ of the REST listener. */
  baseUrl: string;
  service: Service;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * The service as `ess serve` starts it (its settings through loadConfig, then startService),
 * with the REST gateway and the WebSocket interface enabled, on a fresh data directory.
 * `engineOptions` reach the engine (small segments, so that scavenge has sealed ones to rewrite).
 */
export async function startServe(
  settings: Record<string, string> = {},
  engineOptions: Omit<LogEngineOptions, "dataDir"> = {},
): Promise<Served> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-console-e2e-"));
  const config = loadConfig({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_ADMIN_PASSWORD: adminPassword,
    SERVICE_REST_ENABLED: "true",
    SERVICE_REST_ADDRESS: "127.0.0.1:0",
    SERVICE_WS_ENABLED: "true",
    SERVICE_WS_ADDRESS: "127.0.0.1:0",
    SERVICE_RPC_ADDRESS: "127.0.0.1:0",
    ...settings,
  });
  const service = await startService(config, {
    logger: createLogger({}, 100),
    stopGraceMs: 2000,
    engineOptions,
  });
  const rest = service.listeners.find((listener) => listener.name === "rest");
  if (!rest) throw new Error("the service did not start its REST gateway");
  return {
    baseUrl: `http://${formatAddress(rest.address)}/`,
    service,
    dataDir,
    async stop() {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RestAnswer {
  status: number;
  body: unknown;
}

/** A REST call outside the browser (seeding, appends the live tail must see). */
export async function rest(
  served: { baseUrl: string },
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string } = {},
): Promise<RestAnswer> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(new URL(path.replace(/^\//, ""), served.baseUrl), { method, headers, body });
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : (JSON.parse(text) as unknown) };
}

export async function loginToken(
  served: { baseUrl: string },
  username: string,
  password: string,
): Promise<string> {
  const answer = await rest(served, "POST", "/v1/auth/login", { body: { username, password } });
  if (answer.status !== 200) throw new Error(`login of ${username} failed: ${JSON.stringify(answer.body)}`);
  return (answer.body as { access_token: string }).access_token;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * The WCAG 2.x A and AA violations axe-core finds on the page as it is. axe is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not apply to.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  // A string: it runs in the page, where `axe` and `document` are (this file has no DOM types).
  const violations = await page.evaluate(`(async () => {
    const results = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] },
    });
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  })()`);
  return violations as AxeViolation[];
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true });
}

export interface PathProxy {
  /** http://127.0.0.1:PORT, without a trailing slash. */
  url: string;
  /** The paths requested through it (query strings left out), upgrades included. */
  seen: string[];
  close(): Promise<void>;
}

/**
 * A reverse proxy as an operator would set one up: each of `prefixes` maps to the root of the
 * service's REST listener (`/ops/ess/v1/streams` → `/v1/streams`), WebSocket upgrades included;
 * any other path is 404.
 */
export async function startPathProxy(targetBaseUrl: string, prefixes: string[]): Promise<PathProxy> {
  const target = new URL(targetBaseUrl);
  const seen: string[] = [];
  const strip = (url: string | undefined): string | null => {
    const path = url ?? "";
    seen.push(path.split("?")[0] ?? "");
    const prefix = prefixes.find((p) => path === p || path.startsWith(`${p}/`));
    return prefix === undefined ? null : path.slice(prefix.length) || "/";
  };
  const proxy: Server = createServer((incoming, outgoing) => {
    const path = strip(incoming.url);
    if (path === null) {
      outgoing.writeHead(404).end();
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  proxy.on("upgrade", (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = strip(incoming.url);
    if (path === null) {
      socket.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname, () => {
      const headers = Object.entries(incoming.headers)
        .map(([name, value]) => `${name}: ${String(value)}`)
        .join("\r\n");
      upstream.write(`GET ${path} HTTP/1.1\r\n${headers}\r\n\r\n`);
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    seen,
    async close() {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

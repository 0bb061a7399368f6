/**
 * Starts the real service for the REST end-to-end tests, in one of the gateway's two modes:
 * - "in-process": `ess serve`'s own start-up with SERVICE_REST_ENABLED=true; the gateway calls
 *   the operations directly;
 * - "gateway": the service without its gateway, and a separate gateway whose operations are a
 *   gRPC client of the service's RPC server (what `ess gateway --upstream` runs).
 * Either way every listener is on 127.0.0.1 port 0 and the data directory is a fresh temporary
 * one, removed at stop. `rpc` is a real gRPC client of the same service, for comparisons.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { loadConfig, formatAddress } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import { createRpcClient, type RpcClient } from "../../src/client/rpc-client.js";
import { startRestServer, type RestServer } from "../../src/rest/server.js";
import { buildOpenApiDocument } from "../../src/rest/openapi.js";
import { startService, type Service } from "../../src/service.js";
import type { EngineOptions } from "../../src/storage/engine.js";

export type GatewayMode = "in-process" | "gateway";
export const gatewayModes: GatewayMode[] = ["in-process", "gateway"];

export const adminPassword = "admin-password-1";

export interface RestTarget {
  mode: GatewayMode;
  baseUrl: string;
  service: Service;
  /** A gRPC client of the service's RPC server. */
  rpc: RpcClient;
  dataDir: string;
  stop(): Promise<void>;
}

export const quietLogger = createLogger({}, 100);

/** `engineOptions` reach the engine as given (a small segmentBytesMax, a test hook). */
export async function startTarget(mode: GatewayMode, engineOptions: EngineOptions = {}): Promise<RestTarget> {
  const dataDir = await mkdtemp(join(tmpdir(), "ess-rest-"));
  const config = loadConfig({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_RPC_ADDRESS: "127.0.0.1:0",
    SERVICE_REST_ENABLED: mode === "in-process" ? "true" : "false",
    SERVICE_REST_ADDRESS: "127.0.0.1:0",
    SERVICE_ADMIN_PASSWORD: adminPassword,
  });
  const service = await startService(config, { logger: quietLogger, stopGraceMs: 2000, engineOptions });
  const rpc = createRpcClient({ address: formatAddress(service.rpcAddress) });
  let gateway: RestServer | null = null;
  let upstream: RpcClient | null = null;
  let restAddress;
  if (mode === "in-process") {
    const listener = service.listeners.find((l) => l.name === "rest");
    if (!listener) throw new Error("the service did not start its REST gateway");
    restAddress = listener.address;
  } else {
    upstream = createRpcClient({ address: formatAddress(service.rpcAddress) });
    gateway = await startRestServer(upstream, { host: "127.0.0.1", port: 0 }, { logger: quietLogger });
    restAddress = gateway.address;
  }
  return {
    mode,
    baseUrl: `http://${formatAddress(restAddress)}`,
    service,
    rpc,
    dataDir,
    async stop() {
      await gateway?.close();
      upstream?.close();
      rpc.close();
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed, or undefined when it is not JSON. */
  body: unknown;
}

export async function http(
  target: { baseUrl: string },
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(target.baseUrl + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

export async function login(target: RestTarget, username: string, password: string): Promise<string> {
  const response = await http(target, "POST", "/v1/auth/login", { body: { username, password } });
  if (response.status !== 200) throw new Error(`login of ${username} failed: ${response.text}`);
  return (response.body as { access_token: string }).access_token;
}

/**
 * Validators of the OpenAPI document's schemas, by component name ("ReadResult", "Error"...),
 * with formats (date-time, uuid) checked: real responses must match what the document declares.
 */
export function responseValidators(): (name: string, value: unknown) => string | null {
  const document = buildOpenApiDocument() as { components: { schemas: Record<string, object> } };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "https://ess.local/openapi.json", ...document }, undefined, undefined, false);
  const cache = new Map<string, ReturnType<typeof ajv.compile>>();
  return (name, value) => {
    let validate = cache.get(name);
    if (!validate) {
      validate = ajv.compile({ $ref: `https://ess.local/openapi.json#/components/schemas/${name}` });
      cache.set(name, validate);
    }
    return validate(value) ? null : ajv.errorsText(validate.errors);
  };
}

export type ErrorBody = { error: { code: string; message: string; details: Record<string, unknown> } };

let sharedValidate: ReturnType<typeof responseValidators> | null = null;

/** Asserts a JSON success of `status` whose body matches the document's schema `schema`. */
export function expectOk<T = Record<string, unknown>>(response: HttpResult, schema: string, status = 200): T {
  sharedValidate ??= responseValidators();
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  const problem = sharedValidate(schema, response.body);
  assert.equal(problem, null, `${schema}: ${problem} in ${response.text.slice(0, 500)}`);
  return response.body as T;
}

/** Asserts the contract's error shape with `status` and `code` (and the Bearer challenge on 401). */
export function expectError(response: HttpResult, status: number, code: string): ErrorBody["error"] {
  sharedValidate ??= responseValidators();
  assert.equal(response.status, status, response.text);
  assert.equal(sharedValidate("Error", response.body), null, response.text);
  const error = (response.body as ErrorBody).error;
  assert.equal(error.code, code, response.text);
  if (status === 401) assert.equal(response.headers.get("www-authenticate"), "Bearer");
  return error;
}

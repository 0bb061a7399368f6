import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../src/config/config.js";

test("defaults follow the contract", () => {
  const config = loadConfig({});
  assert.equal(config.restEnabled, false);
  assert.deepEqual(config.restAddress, { host: "127.0.0.1", port: 8081 });
  assert.deepEqual(config.rpcAddress, { host: "127.0.0.1", port: 50051 });
  assert.equal(config.wsEnabled, false);
  assert.deepEqual(config.wsAddress, { host: "127.0.0.1", port: 8082 });
  assert.equal(config.dataDir, "./data");
  assert.equal(config.storage, "log");
  assert.equal(config.tokenTtlSeconds, 3600);
  assert.equal(config.adminPassword, null);
  assert.equal(config.postgresPoolSize, 10);
  assert.equal(config.consoleBasePath, null);
  assert.equal(config.rpcFastCarrier, true);
  assert.equal(config.tls, null);
});

test("SERVICE_RPC_FAST_CARRIER=false leaves every gRPC call to grpc-js", () => {
  assert.equal(loadConfig({ SERVICE_RPC_FAST_CARRIER: "false" }).rpcFastCarrier, false);
  assert.equal(loadConfig({ SERVICE_RPC_FAST_CARRIER: "true" }).rpcFastCarrier, true);
});

test("SERVICE_POSTGRES_POOL_SIZE sets the postgres engine's pool size", () => {
  assert.equal(loadConfig({ SERVICE_POSTGRES_POOL_SIZE: "25" }).postgresPoolSize, 25);
  assert.throws(() => loadConfig({ SERVICE_POSTGRES_POOL_SIZE: "many" }), ConfigError);
});

const badSettings: [string, Record<string, string>][] = [
  ["SERVICE_REST_ADDRESS", { SERVICE_REST_ADDRESS: "nonsense" }],
  ["SERVICE_RPC_ADDRESS", { SERVICE_RPC_ADDRESS: "127.0.0.1:99999" }],
  ["SERVICE_WS_ENABLED", { SERVICE_WS_ENABLED: "maybe" }],
  ["SERVICE_STORAGE", { SERVICE_STORAGE: "mongo" }],
  ["SERVICE_POSTGRES_URL", { SERVICE_STORAGE: "postgres" }],
  ["SERVICE_TOKEN_TTL", { SERVICE_TOKEN_TTL: "-5" }],
  ["SERVICE_POSTGRES_POOL_SIZE", { SERVICE_POSTGRES_POOL_SIZE: "0" }],
  ["SERVICE_CONSOLE_BASE_PATH", { SERVICE_CONSOLE_BASE_PATH: "ess/" }],
  ["SERVICE_CONSOLE_BASE_PATH", { SERVICE_CONSOLE_BASE_PATH: "/ess/../admin/" }],
  ["SERVICE_CONSOLE_BASE_PATH", { SERVICE_CONSOLE_BASE_PATH: '/ess"><script>' }],
  ["SERVICE_RPC_FAST_CARRIER", { SERVICE_RPC_FAST_CARRIER: "off" }],
  ["SERVICE_TLS_KEY_FILE", { SERVICE_TLS_CERT_FILE: "cert.pem" }],
  ["SERVICE_TLS_CERT_FILE", { SERVICE_TLS_KEY_FILE: "key.pem" }],
];

for (const [setting, settings] of badSettings) {
  test(`a bad ${setting} is refused with an error naming it`, () => {
    assert.throws(
      () => loadConfig(settings),
      (error: unknown) => error instanceof ConfigError && error.setting === setting,
    );
  });
}

test("an IPv6 listen address is accepted in brackets", () => {
  assert.deepEqual(loadConfig({ SERVICE_RPC_ADDRESS: "[::1]:7000" }).rpcAddress, { host: "::1", port: 7000 });
});

test("SERVICE_CONSOLE_BASE_PATH is a path prefix that ends in /", () => {
  assert.equal(loadConfig({ SERVICE_CONSOLE_BASE_PATH: "/ess" }).consoleBasePath, "/ess/");
  assert.equal(loadConfig({ SERVICE_CONSOLE_BASE_PATH: "/ops/ess/" }).consoleBasePath, "/ops/ess/");
  assert.equal(loadConfig({ SERVICE_CONSOLE_BASE_PATH: "/" }).consoleBasePath, "/");
});

test("SERVICE_METRICS_ENABLED and SERVICE_METRICS_ADDRESS: off by default, 127.0.0.1:9464, bad values named", () => {
  const config = loadConfig({});
  assert.equal(config.metricsEnabled, false);
  assert.deepEqual(config.metricsAddress, { host: "127.0.0.1", port: 9464 });
  const on = loadConfig({ SERVICE_METRICS_ENABLED: "true", SERVICE_METRICS_ADDRESS: "0.0.0.0:9100" });
  assert.equal(on.metricsEnabled, true);
  assert.deepEqual(on.metricsAddress, { host: "0.0.0.0", port: 9100 });
  for (const [setting, settings] of [
    ["SERVICE_METRICS_ENABLED", { SERVICE_METRICS_ENABLED: "on" }],
    ["SERVICE_METRICS_ADDRESS", { SERVICE_METRICS_ADDRESS: "localhost" }],
  ] as const) {
    assert.throws(
      () => loadConfig(settings),
      (error) => error instanceof ConfigError && error.setting === setting,
    );
  }
});

import type { CommandEntry } from "../command.js";

/** Every `ess` command, in the order `ess --help` lists them. */
export const commands: CommandEntry[] = [
  {
    name: "serve",
    usage: "serve [options]",
    summary: "run the service (gRPC; REST and WebSocket when enabled)",
    load: async () => (await import("./serve.js")).serveCommand,
  },
  {
    name: "gateway",
    usage: "gateway --upstream HOST:PORT [--address HOST:PORT]",
    summary: "run the REST gateway alone, in front of a remote RPC server",
    load: async () => (await import("./gateway.js")).gatewayCommand,
  },
  {
    name: "user",
    usage: "user add|list|delete ...",
    summary: "manage users of a running service (as an admin, over gRPC)",
    load: async () => (await import("./user.js")).userCommand,
  },
  {
    name: "verify",
    usage: "verify --data-dir DIR",
    summary: "check every record and the index of a log-engine data directory (offline)",
    load: async () => (await import("./verify.js")).verifyCommand,
  },
  {
    name: "openapi",
    usage: "openapi [--out FILE]",
    summary: "print the REST gateway's OpenAPI 3 document",
    load: async () => (await import("./openapi.js")).openapiCommand,
  },
];

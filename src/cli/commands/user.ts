/**
 * `ess user add|list|delete`: manages users of a running service through its RPC server,
 * authenticated as an admin (a token, or an admin's username and password).
 */
import type { Command } from "../command.js";
import { prog } from "../command.js";
import { parseArgs, UsageError } from "../args.js";
import type { ParsedArgs } from "../args.js";
import { randomBytes } from "node:crypto";
import { EssError } from "../../errors.js";
import { createRpcClient } from "../../client/rpc-client.js";
import type { RpcClient } from "../../client/rpc-client.js";
import type { CallContext } from "../../operations/contract.js";
import { roles } from "../../operations/validate.js";
import type { Role } from "../../contract/bodies.js";
import type { ClientTls } from "../../client/rpc-client.js";
import {
  clientTlsFrom,
  explainTlsMismatch,
  tlsHelpLines,
  tlsSwitchFlags,
  tlsValueFlags,
} from "../client-tls.js";

const help = [
  "Usage:",
  `  ${prog} user add USERNAME --tenant TENANT --role admin|writer|reader [--user-password PASSWORD]`,
  `  ${prog} user list [--limit N] [--cursor CURSOR] [--json]`,
  `  ${prog} user delete USERNAME`,
  "",
  "Manages the users of a running service through its RPC server. The caller must be an admin.",
  "",
  "Connection and credentials (flag, else environment):",
  "  --address HOST:PORT     SERVICE_RPC_ADDRESS, default 127.0.0.1:50051",
  "  --token TOKEN           ESS_TOKEN: an admin's bearer token, or",
  "  --username NAME         ESS_USERNAME: an admin's username (default admin) and",
  "  --password PASSWORD     ESS_PASSWORD: its password",
  ...tlsHelpLines,
  "",
  "add: --user-password sets the new user's password (at least 8 characters); without it a",
  "random one is generated and printed once.",
  "",
  "Exit codes: 0 ok, 1 the service refused or could not be reached, 2 bad usage.",
].join("\n");

function rpcAddress(args: ParsedArgs): string {
  const value = args.flags.get("address");
  return typeof value === "string" ? value : (process.env.SERVICE_RPC_ADDRESS ?? "127.0.0.1:50051");
}

async function connect(
  args: ParsedArgs,
  tls: ClientTls | null,
): Promise<{ client: RpcClient; ctx: CallContext }> {
  const flag = (name: string): string | undefined => {
    const value = args.flags.get(name);
    return typeof value === "string" ? value : undefined;
  };
  const address = rpcAddress(args);
  const client = createRpcClient({ address, deadlineMs: 30_000, tls });
  const token = flag("token") ?? process.env.ESS_TOKEN;
  if (token) return { client, ctx: { token } };
  const password = flag("password") ?? process.env.ESS_PASSWORD;
  if (!password) {
    client.close();
    throw new UsageError(
      "give an admin's --token, or --username and --password (or ESS_TOKEN / ESS_PASSWORD)",
    );
  }
  const username = flag("username") ?? process.env.ESS_USERNAME ?? "admin";
  try {
    const login = await client.login({ token: null }, { username, password });
    return { client, ctx: { token: login.access_token } };
  } catch (error) {
    client.close();
    throw error;
  }
}

async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const common = ["address", "token", "username", "password", ...tlsValueFlags];
  let args: ParsedArgs;
  switch (action) {
    case "add":
      args = parseArgs(rest, [...common, "tenant", "role", "user-password"], tlsSwitchFlags);
      break;
    case "list":
      args = parseArgs(rest, [...common, "limit", "cursor"], ["json", ...tlsSwitchFlags]);
      break;
    case "delete":
      args = parseArgs(rest, common, tlsSwitchFlags);
      break;
    default:
      throw new UsageError(action === undefined ? "add, list or delete?" : `unknown action '${action}'`);
  }
  const target = args.positionals[0];
  if ((action === "add" || action === "delete") && (target === undefined || args.positionals.length > 1)) {
    throw new UsageError(`ess user ${action} takes one USERNAME`);
  }
  if (action === "list" && args.positionals.length > 0)
    throw new UsageError("ess user list takes no argument");
  if (action === "add" && (!args.flags.has("tenant") || !args.flags.has("role"))) {
    throw new UsageError("ess user add needs --tenant and --role");
  }
  // A misspelt role is bad usage (exit 2), said before anything is sent.
  const role = args.flags.get("role");
  if (action === "add" && !roles.includes(role as Role)) {
    throw new UsageError(`--role must be ${roles.join(", ")}, not '${String(role)}'`);
  }

  const tls = clientTlsFrom(args);
  try {
    return await perform(args, tls, action, target);
  } catch (error) {
    // Name the address tried: "unavailable" alone does not say where it looked; and say so when
    // TLS is the reason (one side speaks it, the other does not, or the certificate is untrusted).
    if (error instanceof EssError && error.code === "UNAVAILABLE") {
      const mismatch = await explainTlsMismatch(rpcAddress(args), tls);
      if (mismatch !== null) {
        process.stderr.write(`ess user: UNAVAILABLE: ${mismatch} (at ${rpcAddress(args)})\n`);
        return 1;
      }
      process.stderr.write(
        `ess user: UNAVAILABLE: ${error.message} at ${rpcAddress(args)}` +
          " (is the service running there? --address or SERVICE_RPC_ADDRESS says where to look)\n",
      );
      return 1;
    }
    throw error;
  }
}

async function perform(
  args: ParsedArgs,
  tls: ClientTls | null,
  action: string,
  target: string | undefined,
): Promise<number> {
  const { client, ctx } = await connect(args, tls);
  try {
    if (action === "add") {
      const given = args.flags.get("user-password");
      const password = typeof given === "string" ? given : randomBytes(18).toString("base64url");
      const user = await client.createUser(ctx, {
        username: target,
        password,
        tenant_id: args.flags.get("tenant"),
        role: args.flags.get("role"),
      });
      process.stdout.write(`created user ${user.username} (tenant ${user.tenant_id}, role ${user.role})\n`);
      if (typeof given !== "string") process.stdout.write(`password: ${password}\n`);
    } else if (action === "list") {
      const page = await client.listUsers(ctx, {
        limit: args.flags.get("limit"),
        cursor: args.flags.get("cursor"),
      });
      if (args.flags.has("json")) {
        process.stdout.write(JSON.stringify(page) + "\n");
      } else {
        const rows = [["USERNAME", "TENANT", "ROLE", "CREATED"]].concat(
          page.users.map((u) => [u.username, u.tenant_id, u.role, u.created_at]),
        );
        const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
        for (const row of rows)
          process.stdout.write(
            row
              .map((c, i) => c.padEnd(widths[i]!))
              .join("  ")
              .trimEnd() + "\n",
          );
        if (page.next_cursor !== null) process.stdout.write(`more: --cursor ${page.next_cursor}\n`);
      }
    } else {
      const user = await client.deleteUser(ctx, { username: target });
      process.stdout.write(`deleted user ${user.username} (tenant ${user.tenant_id}, role ${user.role})\n`);
    }
    return 0;
  } finally {
    client.close();
  }
}

export const userCommand: Command = {
  name: "user",
  help,
  async run(argv: string[]): Promise<number> {
    try {
      return await run(argv);
    } catch (error) {
      if (error instanceof EssError) {
        process.stderr.write(`ess user: ${error.code}: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
  },
};

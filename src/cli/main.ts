#!/usr/bin/env node
/**
 * `ess`: the command line. Each command lives in its own module under ./commands and is
 * registered in ./commands/index.ts, which loads it only when it runs. Exit codes: 0 ok,
 * 1 failure, 2 bad usage.
 */
import { serviceVersion } from "../version.js";
import { commands } from "./commands/index.js";
import { UsageError } from "./args.js";
import { prog } from "./command.js";

// A reader that stops early (`ess openapi | head`) closes the pipe: that is not a failure of
// ours, so end quietly, as other command-line tools do, instead of dying with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

function printHelp(): void {
  const width = Math.max(...commands.map((c) => c.usage.length));
  const lines = [
    `ess ${serviceVersion}: the Event Stream Service`,
    "",
    `Usage: ${prog} <command> [options]`,
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    `  --help, -h     show this help (${prog} <command> --help for a command's own)`,
    "  --version, -v  print the version",
    "",
    "Settings are environment variables (SERVICE_*); see README.md.",
    `${prog} is the repository's wrapper around node dist/src/cli/main.js (build first: npm run build).`,
  ];
  process.stdout.write(lines.join("\n") + "\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    printHelp();
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    process.stdout.write(`${serviceVersion}\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`ess: unknown command '${name}' (see ${prog} --help)\n`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(command.help + "\n");
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`ess ${name}: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`ess ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`ess: ${String(error)}\n`);
    process.exitCode = 1;
  },
);

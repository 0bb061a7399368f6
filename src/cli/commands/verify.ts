/**
 * `ess verify --data-dir DIR`: checks a log-engine data directory offline. It takes the
 * directory's lock (so it refuses to run beside a live server), opens the store read-only
 * (nothing on disk changes, not even a torn tail), re-reads every record and compares the
 * index with the log. Exit 0 when clean, 1 when any error was found. A progress bar goes to
 * stderr when stderr is a terminal.
 */
import type { Command } from "../command.js";
import { prog } from "../command.js";
import { parseArgs, requireFlag } from "../args.js";
import { createLogger } from "../../logger.js";
import { openLogEngine } from "../../storage/log/index.js";
import type { VerifyProgress } from "../../storage/engine.js";

function progressBar(): { update: (p: VerifyProgress) => void; done: () => void } {
  const stream = process.stderr;
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  let lastDrawn = -1;
  return {
    update(p) {
      const fraction = p.bytes_total > 0 ? p.bytes_checked / p.bytes_total : 1;
      const percent = Math.floor(fraction * 100);
      if (percent === lastDrawn) return;
      lastDrawn = percent;
      const width = 30;
      const filled = Math.round(fraction * width);
      const mib = (n: number): string => (n / 1048576).toFixed(1);
      stream.write(
        `\rverifying [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${String(percent).padStart(3)}%  ${mib(p.bytes_checked)}/${mib(p.bytes_total)} MiB`,
      );
    },
    done() {
      if (lastDrawn >= 0) stream.write("\n");
    },
  };
}

export const verifyCommand: Command = {
  name: "verify",
  help: [
    `Usage: ${prog} verify --data-dir DIR [--json]`,
    "",
    "Checks a stopped service's data directory: re-reads every record of every segment,",
    "checks its length and CRC32C, and checks that the index agrees with the log.",
    "Changes nothing on disk. Refuses to run while a server holds the directory.",
    "Prints a summary and each error (segment file, byte offset, kind, message).",
    "",
    "Options:",
    "  --data-dir DIR  the data directory (SERVICE_DATA_DIR of the service)",
    "  --json          print the VerifyResult as JSON instead",
    "",
    "Exit codes: 0 clean, 1 errors found or the check could not run, 2 bad usage.",
  ].join("\n"),
  async run(argv) {
    const args = parseArgs(argv, ["data-dir"], ["json"]);
    const dataDir = requireFlag(args, "data-dir");
    const logger = createLogger({ command: "verify" }, process.env.ESS_LOG_LEVEL === "debug" ? 10 : 30);
    const engine = await openLogEngine({ dataDir, readOnly: true, logger });
    try {
      const bar = progressBar();
      const result = await engine.verify((p) => bar.update(p));
      bar.done();
      if (args.flags.has("json")) {
        process.stdout.write(JSON.stringify(result, null, 2) + "\n");
        return result.ok ? 0 : 1;
      }
      const lines = [
        `${result.ok ? "OK" : "ERRORS"}: ${result.segments_checked} segments, ${result.records_checked} records, ` +
          `${result.bytes_checked} bytes checked in ${result.duration_ms} ms; ${result.errors.length} error(s)`,
      ];
      if (engine.tornTailBytes > 0) {
        lines.push(
          `note: ${engine.tornTailBytes} bytes after the last complete batch (an interrupted write); ` +
            "the service cuts them at its next start",
        );
      }
      for (const e of result.errors) lines.push(`  ${e.segment} @ ${e.offset}  ${e.kind}: ${e.message}`);
      process.stdout.write(lines.join("\n") + "\n");
      return result.ok ? 0 : 1;
    } finally {
      await engine.close();
    }
  },
};

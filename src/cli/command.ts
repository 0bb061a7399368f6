/** One `ess` command. `run` returns the exit code: 0 ok, 1 failure (throw UsageError for 2). */
export interface Command {
  name: string;
  /** `ess <command> --help`. */
  help: string;
  run(argv: string[]): Promise<number>;
}

/**
 * What `ess --help` lists about a command without loading it: each command's module is
 * imported only when that command runs, so `ess --version` does not load gRPC, Fastify or the
 * storage engines (it took about a second when it did).
 */
export interface CommandEntry {
  name: string;
  /** One line, e.g. "verify --data-dir DIR". */
  usage: string;
  summary: string;
  load(): Promise<Command>;
}

/**
 * How help texts name the command: the wrapper at the repository's root (README.md, "Run"),
 * which execs node on dist/src/cli/main.js so that signals reach the service.
 */
export const prog = "./ess";

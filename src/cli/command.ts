/** One `ess` command. `run` returns the exit code: 0 ok, 1 failure (throw UsageError for 2). */
export interface Command {
  name: string;
  /** One line, e.g. "verify --data-dir DIR". */
  usage: string;
  summary: string;
  help: string;
  run(argv: string[]): Promise<number>;
}

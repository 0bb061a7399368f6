import type { Command } from "../command.js";

/** Every `ess` command, in the order `ess --help` lists them. */
export const commands: Command[] = [];

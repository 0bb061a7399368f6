import type { Command } from "../command.js";
import { gatewayCommand } from "./gateway.js";
import { openapiCommand } from "./openapi.js";

/** Every `ess` command, in the order `ess --help` lists them. */
export const commands: Command[] = [gatewayCommand, openapiCommand];

import type { Command } from "../command.js";
import { gatewayCommand } from "./gateway.js";
import { openapiCommand } from "./openapi.js";
import { serveCommand } from "./serve.js";
import { userCommand } from "./user.js";
import { verifyCommand } from "./verify.js";

/** Every `ess` command, in the order `ess --help` lists them. */
export const commands: Command[] = [serveCommand, gatewayCommand, userCommand, verifyCommand, openapiCommand];

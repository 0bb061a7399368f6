/**
 * `ess openapi [--out FILE]`: prints the REST gateway's OpenAPI document (what GET
 * /v1/openapi.json serves), or writes it to FILE. `npm run openapi` regenerates the committed
 * docs/openapi.json with it; a test fails when the two differ.
 */
import { writeFile } from "node:fs/promises";
import type { Command } from "../command.js";
import { prog } from "../command.js";
import { parseArgs } from "../args.js";
import { openApiText } from "../../rest/openapi.js";

export const openapiCommand: Command = {
  name: "openapi",
  help: [
    `Usage: ${prog} openapi [--out FILE]`,
    "",
    "Prints the OpenAPI 3.1 document the REST gateway serves at GET /v1/openapi.json,",
    "or writes it to FILE.",
  ].join("\n"),
  async run(argv) {
    const args = parseArgs(argv, ["out"]);
    const text = openApiText();
    const out = args.flags.get("out");
    if (typeof out === "string") await writeFile(out, text);
    else process.stdout.write(text);
    return 0;
  },
};

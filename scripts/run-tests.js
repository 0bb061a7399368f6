// Runs every compiled test file with Node's own test runner.
// Kinds by suffix: *.test.js (unit), *.int.test.js (needs PostgreSQL), *.e2e.test.js (real servers).
// ESS_TEST_FILTER=substring limits the run to matching files.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith(".test.js")) found.push(path);
  }
  return found;
}

const filter = process.env.ESS_TEST_FILTER ?? "";
const files = [...findTests("dist/test"), ...findTests("dist/src")].filter((f) => f.includes(filter)).sort();
if (files.length === 0) {
  console.error("no test files found under dist/ (did the build run?)");
  process.exit(1);
}
const result = spawnSync(process.execPath, ["--test", "--test-concurrency=2", ...files], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);

// The TypeScript types in src/rpc/generated are what `npm run gen:proto` makes from proto/
// today: regenerated into a temporary folder and compared file by file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

test("the generated proto types are up to date with the .proto files", async () => {
  const out = await mkdtemp(join(tmpdir(), "ess-gen-"));
  try {
    const result = spawnSync(process.execPath, ["scripts/gen-proto.js", join(out, "generated")], {
      cwd: root,
      encoding: "utf8",
    });
    assert.equal(result.status, 0, result.stderr);
    const committed = join(root, "src/rpc/generated");
    const fresh = join(out, "generated");
    const files = await listFiles(fresh);
    assert.deepEqual(await listFiles(committed), files, "run npm run gen:proto and commit the result");
    for (const file of files) {
      const [a, b] = await Promise.all([
        readFile(join(committed, file), "utf8"),
        readFile(join(fresh, file), "utf8"),
      ]);
      assert.equal(a, b, `${file} differs: run npm run gen:proto and commit the result`);
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

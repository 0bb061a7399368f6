// The project's documentation stands alone in a clone: no link or path that leaves the
// repository (the contract used to be ../shared/DESIGN.md, broken in any clone), and every
// relative link and docs/ page it names exists.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

test("README.md and docs/*.md name nothing outside the repository, and what they name exists", () => {
  assert.ok(pages.includes("docs/contract.md"));
  for (const page of pages) {
    const text = readFileSync(join(root, page), "utf8");
    assert.doesNotMatch(text, /\.\.\/shared|DESIGN\.md/, `${page} points outside the repository`);
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue; // an absolute URL
      assert.ok(existsSync(join(root, dirname(page), target!)), `${page} links to missing ${target}`);
      assert.ok(!join(dirname(page), target!).startsWith(".."), `${page} links outside: ${target}`);
    }
    for (const [, named] of text.matchAll(/`(docs\/[A-Za-z0-9_.-]+\.(?:md|json))`/g)) {
      assert.ok(existsSync(join(root, named!)), `${page} names missing ${named}`);
    }
  }
});

// Lists every function, method, accessor, constructor and arrow function in src/ longer than
// 100 lines (from its first line to its closing brace), longest first, with its line count:
// `node scripts/function-lengths.js`. Issue 26 asks for none "without a reason in a comment":
// a function kept long says why in a comment directly above it that contains "long:", e.g.
//   // long: one pass over the frame; split, each part would re-read the same offsets.
// With --check (run by `npm run lint`) it fails on a long function without that comment.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const LINES_MAX = 100;
const MARKER = "long:";
const root = "src";

function sourceFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "generated") found.push(...sourceFiles(path));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
      found.push(path);
    }
  }
  return found;
}

/** A readable name: the declared one, or the variable or property an arrow is given to. */
function nameOf(node) {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) &&
    parent.name !== undefined
  ) {
    return parent.name.getText();
  }
  if (ts.isCallExpression(parent))
    return `(${ts.isArrowFunction(node) ? "arrow" : "function"} passed to ${parent.expression.getText().slice(0, 40)})`;
  return `(${ts.isArrowFunction(node) ? "arrow" : "function"})`;
}

/** "Class.method" or "outer > inner", so a nested function can be told from its host. */
function qualifiedName(node) {
  const parts = [nameOf(node)];
  for (let p = node.parent; p !== undefined; p = p.parent) {
    if (ts.isClassDeclaration(p) || ts.isClassExpression(p)) {
      parts.unshift(`${p.name?.getText() ?? "(class)"}.`);
      break;
    }
    if (isFunctionLike(p)) {
      parts.unshift(`${nameOf(p)} > `);
      break;
    }
  }
  return parts.join("");
}

function isFunctionLike(node) {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node)) &&
    node.body !== undefined
  );
}

/** Whether the comment lines right above the function's first line hold the marker. */
function marked(lines, firstLine) {
  for (let i = firstLine - 1; i >= 0; i--) {
    const text = lines[i].trim();
    if (!(text.startsWith("//") || text.startsWith("/*") || text.startsWith("*"))) return false;
    if (text.includes(MARKER)) return true;
  }
  return false;
}

const found = [];
for (const path of sourceFiles(root)) {
  const text = readFileSync(path, "utf8");
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lines = text.split("\n");
  const visit = (node) => {
    if (isFunctionLike(node)) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const count = last - first + 1;
      if (count > LINES_MAX) {
        const file = relative(".", path);
        const name = qualifiedName(node);
        found.push({ file, line: first + 1, name, count, marked: marked(lines, first) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

found.sort((a, b) => b.count - a.count);
const check = process.argv.includes("--check");
let failing = 0;
for (const f of found) {
  if (!f.marked) failing++;
  const state = f.marked ? "long: kept" : "NO REASON";
  if (!check || !f.marked)
    console.log(`${String(f.count).padStart(4)}  ${f.file}:${f.line}  ${f.name}  [${state}]`);
}
if (check && failing > 0) {
  console.error(
    `${failing} function(s) in ${root}/ over ${LINES_MAX} lines without a "${MARKER}" comment above them: split them, or say why they are long`,
  );
  process.exit(1);
}

/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`, as `BENCH_ESS_CPU_PROF=dir npm run
 * bench:compare` writes for `ess serve`): the functions with the most self time, and the most
 * inclusive time for the project's own functions, so the hot spots can be read in a terminal.
 * Usage: node dist/bench/compare/profile-summary.js FILE.cpuprofile [TOP]
 * (PROFILE_ALL=1 lists inclusive time for every function, libraries included.)
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^file:\/\//, "").replace(/^.*\/(dist|node_modules)\//, "$1/");
  return `${functionName || "(anonymous)"} ${file}${file ? `:${lineNumber + 1}` : ""}`;
}

const [file, topArg] = process.argv.slice(2);
if (file === undefined) {
  console.error("usage: profile-summary.js FILE.cpuprofile [TOP]");
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const selfMicros = new Map<number, number>();
profile.samples.forEach((id, i) =>
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
);
const totalMicros = profile.endTime - profile.startTime;

const selfByLabel = new Map<string, number>();
const inclusiveByLabel = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const node = byId.get(id);
  if (node === undefined) continue;
  selfByLabel.set(label(node), (selfByLabel.get(label(node)) ?? 0) + micros);
  // Each label counts once per sample stack, even when it recurses.
  const seen = new Set<string>();
  for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
    const ancestor = byId.get(cursor);
    if (ancestor === undefined) break;
    const l = label(ancestor);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusiveByLabel.set(l, (inclusiveByLabel.get(l) ?? 0) + micros);
  }
}

const percent = (micros: number): string => `${((micros / totalMicros) * 100).toFixed(1).padStart(5)}%`;
console.log(`profile ${file}: ${(totalMicros / 1e6).toFixed(1)} s wall\n`);
console.log("Self time (top):");
for (const [l, micros] of [...selfByLabel].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`  ${percent(micros)}  ${l}`);
}
console.log(
  `\nInclusive time, ${process.env.PROFILE_ALL === "1" ? "every function" : "the project's own code (dist/src)"}:`,
);
for (const [l, micros] of [...inclusiveByLabel]
  .filter(([l]) => process.env.PROFILE_ALL === "1" || l.includes("dist/src/"))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top)) {
  console.log(`  ${percent(micros)}  ${l}`);
}

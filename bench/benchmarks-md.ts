/**
 * What every generated section of BENCHMARKS.md shares: rewriting only the text between a
 * section's markers (the hand-written notes around it stay), the facts about the machine a run
 * measured, and which commit of `ess` it ran.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root, from dist/bench/ where this file runs compiled. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
/** The compiled `ess` command line. */
export const essMain = join(repoRoot, "dist/src/cli/main.js");

export interface GeneratedSection {
  /** The section's heading line, e.g. "## Comparison with peers". */
  heading: string;
  beginMarker: string;
  endMarker: string;
}

/**
 * Puts the generated block into the file, between the section's markers: creating the file, the
 * section (at the end) or the block (right under the section's heading) when missing.
 */
export function writeGeneratedSection(path: string, section: GeneratedSection, generated: string): void {
  const { heading, beginMarker, endMarker } = section;
  const block = `${beginMarker}\n\n${generated}\n\n${endMarker}`;
  const text = existsSync(path) ? readFileSync(path, "utf8") : "# Benchmarks\n";
  const begin = text.indexOf(beginMarker);
  const end = text.indexOf(endMarker);
  let updated: string;
  if (begin >= 0 && end > begin) {
    updated = text.slice(0, begin) + block + text.slice(end + endMarker.length);
  } else {
    const headingAt = text.indexOf(`\n${heading}\n`);
    if (headingAt >= 0) {
      // The section exists without a generated block: put the block right under its heading.
      const insertAt = headingAt + heading.length + 2;
      updated = `${text.slice(0, insertAt)}\n${block}\n${text.slice(insertAt)}`;
    } else {
      updated = `${text.replace(/\n*$/, "\n")}\n${heading}\n\n${block}\n`;
    }
  }
  writeFileSync(path, updated);
}

export interface MachineFacts {
  cpus: number;
  /** As /proc/cpuinfo names it. */
  cpuModel: string;
  ramBytes: number;
  kernel: string;
}

export function machineFacts(): MachineFacts {
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? "unknown CPU",
    ramBytes: os.totalmem(),
    kernel: os.release(),
  };
}

/** The checked-out commit, marked when tracked files other than BENCHMARKS.md differ from it. */
export function gitDescribe(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: repoRoot,
      encoding: "utf8",
    }).trim();
    // BENCHMARKS.md is what a run rewrites; changes there do not change what is measured.
    const dirty = execFileSync(
      "git",
      ["status", "--porcelain", "--untracked-files=no", "--", ".", ":!BENCHMARKS.md"],
      {
        cwd: repoRoot,
        encoding: "utf8",
      },
    ).trim();
    return dirty === "" ? head : `${head}+uncommitted changes`;
  } catch {
    return "unknown commit";
  }
}

/** `ess` as package.json names its version, with the commit measured. */
export function essVersion(): string {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
  return `${pkg.version} (${gitDescribe()})`;
}

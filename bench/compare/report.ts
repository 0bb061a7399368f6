/**
 * Turns one run's results into the "Comparison with peers" section of BENCHMARKS.md. Only the
 * text between the section's generated-block markers is replaced; the rest of the section (the
 * hand-written profile notes) and every other section stay as they are.
 */
import { writeGeneratedSection } from "../benchmarks-md.js";
import type { CellResult } from "./driver.js";

export interface RowResult {
  id: string;
  label: string;
  durable: boolean;
  durability: string;
  status: "ok" | "skipped" | "failed";
  reason?: string;
  configuration?: string;
  cells: CellResult[];
  preloadSeconds?: number;
  eventsStored?: number;
  diskBytes?: number;
  peakRssBytes?: number;
  peakRssNote?: string;
  serverCpuSeconds?: number;
  facts?: string;
}

export interface RunResult {
  startedAt: string;
  durationSeconds: number;
  machine: { cpus: number; cpuModel: string; ramBytes: number; kernel: string };
  loadAverageStart: number[];
  loadAverageEnd: number[];
  versions: Record<string, string>;
  settings: {
    rounds: number;
    seconds: number;
    warmupSeconds: number;
    readStreams: number;
    appendConcurrency: number[];
  };
  /** Each round's rows, in the same order in every round (whatever order they ran in). */
  rounds: RowResult[][];
  rerun: string;
}

/** One row over every round: what the main table shows. */
interface RowSummary {
  id: string;
  label: string;
  durable: boolean;
  durability: string;
  status: RowResult["status"];
  reason?: string;
  configuration?: string;
  /** Each cell's median over the rounds (latencies too); ops summed; generator CPU the highest. */
  cells: CellResult[];
  bytesPerEvent?: number;
  /** The highest peak over the rounds. */
  peakRssBytes?: number;
  peakRssNote?: string;
  eventsStored?: number;
  preloadSeconds?: number;
  facts: string[];
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function definedNumbers(values: (number | undefined)[]): number[] | undefined {
  const numbers = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return numbers.length === values.length && numbers.length > 0 ? numbers : undefined;
}

function medianOf(values: (number | undefined)[]): number | undefined {
  const numbers = definedNumbers(values);
  return numbers === undefined ? undefined : median(numbers);
}

function medianCell(cells: CellResult[]): CellResult {
  const first = cells[0]!;
  const sum = (pick: (c: CellResult) => number): number => cells.reduce((total, c) => total + pick(c), 0);
  return {
    kind: first.kind,
    concurrency: first.concurrency,
    ops: sum((c) => c.ops),
    opsTotal: sum((c) => c.opsTotal),
    seconds: sum((c) => c.seconds),
    opsPerSecond: median(cells.map((c) => c.opsPerSecond)),
    p50Ms: median(cells.map((c) => c.p50Ms)),
    p99Ms: median(cells.map((c) => c.p99Ms)),
    serverCpuMicrosPerOp: medianOf(cells.map((c) => c.serverCpuMicrosPerOp)),
    driverCpuPercent: Math.max(...cells.map((c) => c.driverCpuPercent)),
  };
}

/** A row's rounds summed up; a row that failed (or was skipped) in any round is failed (skipped). */
export function summarizeRow(perRound: RowResult[]): RowSummary {
  const last = perRound[perRound.length - 1]!;
  const summary: RowSummary = {
    id: last.id,
    label: last.label,
    durable: last.durable,
    durability: last.durability,
    status: "ok",
    configuration: last.configuration,
    cells: [],
    facts: [],
  };
  const notOk = perRound.findIndex((r) => r.status === "failed");
  const skipped = perRound.find((r) => r.status === "skipped");
  if (notOk >= 0) {
    const reason = perRound[notOk]!.reason ?? "";
    return {
      ...summary,
      status: "failed",
      reason: perRound.length > 1 ? `round ${notOk + 1}: ${reason}` : reason,
    };
  }
  if (skipped !== undefined) return { ...summary, status: "skipped", reason: skipped.reason };
  for (const cell of perRound[0]!.cells) {
    const same = perRound.flatMap((r) =>
      r.cells.filter((c) => c.kind === cell.kind && c.concurrency === cell.concurrency),
    );
    if (same.length === perRound.length) summary.cells.push(medianCell(same));
  }
  summary.bytesPerEvent = medianOf(perRound.map(bytesPerEvent));
  const rss = definedNumbers(perRound.map((r) => r.peakRssBytes));
  if (rss !== undefined) summary.peakRssBytes = Math.max(...rss);
  summary.peakRssNote = last.peakRssNote;
  summary.eventsStored = medianOf(perRound.map((r) => r.eventsStored));
  summary.preloadSeconds = medianOf(perRound.map((r) => r.preloadSeconds));
  perRound.forEach((r, i) => {
    if (r.facts) summary.facts.push(perRound.length > 1 ? `round ${i + 1}: ${r.facts}` : r.facts);
  });
  return summary;
}

export const sectionHeading = "## Comparison with peers";
export const beginMarker =
  "<!-- bench:compare:begin (generated by npm run bench:compare; edits here are overwritten) -->";
export const endMarker = "<!-- bench:compare:end -->";

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function ms(value: number): string {
  if (!Number.isFinite(value)) return "–";
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

function cellText(cell: CellResult | undefined): string {
  if (cell === undefined) return "–";
  return `**${integer.format(cell.opsPerSecond)}** (${ms(cell.p50Ms)} / ${ms(cell.p99Ms)})`;
}

function findCell(
  row: { cells: CellResult[] },
  kind: CellResult["kind"],
  concurrency: number,
): CellResult | undefined {
  return row.cells.find((c) => c.kind === kind && c.concurrency === concurrency);
}

function micros(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? "–" : integer.format(value);
}

function mib(bytes: number | undefined): string {
  return bytes === undefined || !Number.isFinite(bytes) ? "–" : (bytes / 1024 / 1024).toFixed(0);
}

function ratio(ours: number | undefined, theirs: number | undefined): number | undefined {
  if (
    ours === undefined ||
    theirs === undefined ||
    !Number.isFinite(ours) ||
    !Number.isFinite(theirs) ||
    theirs === 0
  ) {
    return undefined;
  }
  return ours / theirs;
}

function times(r: number): string {
  return `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`;
}

/**
 * One ratio per round: their median, with the range when there were several rounds; bold when
 * `ess` was ahead in every round.
 */
export function ratioText(perRound: (number | undefined)[]): string {
  const values = definedNumbers(perRound);
  if (values === undefined) return "–";
  const low = Math.min(...values);
  const high = Math.max(...values);
  const text = times(median(values));
  const shown = low > 1 ? `**${text}**` : text;
  return values.length === 1 ? shown : `${shown} (${times(low)}–${times(high)})`;
}

function bytesPerEvent(row: RowResult): number | undefined {
  if (row.diskBytes === undefined || row.eventsStored === undefined || row.eventsStored === 0)
    return undefined;
  return row.diskBytes / row.eventsStored;
}

export function renderGenerated(run: RunResult): string {
  const c = run.settings.appendConcurrency;
  const roundCount = run.rounds.length;
  const lines: string[] = [];
  const ids = run.rounds[0]?.map((r) => r.id) ?? [];
  const perRow = (id: string): RowResult[] => run.rounds.flatMap((round) => round.filter((r) => r.id === id));
  const rows = ids.map((id) => summarizeRow(perRow(id)));
  const ok = rows.filter((r) => r.status === "ok");
  const load = (l: number[]): string => l.map((x) => x.toFixed(2)).join(" ");
  const rounds = roundCount === 1 ? "one round" : `${roundCount} rounds`;
  lines.push(
    `Run ${run.startedAt} on ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ` +
      `${(run.machine.ramBytes / 1024 ** 3).toFixed(1)} GiB RAM, Linux ${run.machine.kernel}; ` +
      `${rounds}, the whole run took ${Math.round(run.durationSeconds)} s.`,
    "",
    `Versions: ${Object.entries(run.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}.`,
    "",
    `**Noise:** load average ${load(run.loadAverageStart)} at the start and ${load(run.loadAverageEnd)} at the end. ` +
      `The load generator and every server share these ${run.machine.cpus} CPUs, and on a shared or virtual ` +
      `machine throughput drifts by tens of percent within minutes, for every row alike. So the rows run ` +
      `${rounds} (every other round in reverse order, each with a fresh server), each cell below is the ` +
      `median over the rounds, and each ratio is computed between rows of the same round.`,
    "",
    `Workload: 200-byte JSON events over 1,000 streams, each append one event with the exact expected revision ` +
      `(each concurrent worker owns its own streams); ${run.settings.warmupSeconds} s warm-up then ` +
      `${run.settings.seconds} s measured per cell; reads fetch the first 100 events of a random one of ` +
      `${integer.format(run.settings.readStreams)} preloaded 100-event streams (every read checked to return ` +
      `100; the ess gRPC rows' load generator checks each page's stream id, count and revisions 0–99 ` +
      `without building its events). ` +
      `Cells: events/s, then (p50 / p99 latency in ms). The load generator is one Node child process per row ` +
      `(bench/compare/driver.ts), separate from every server; all traffic is on 127.0.0.1.`,
    "",
  );
  const head = [
    "System",
    "Durability",
    ...c.map((n) => `Append c=${n}`),
    "Read 100 ev, c=16 (reads/s)",
    "Disk B/event",
    "Peak RSS MiB",
    "Server CPU µs/op (append c=64 / read)",
  ];
  lines.push(`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`);
  for (const row of rows) {
    if (row.status !== "ok") {
      lines.push(
        `| ${row.label} | ${row.durability} | ${row.status}: ${row.reason ?? ""} |${c.map(() => "").join(" |")} | | | |`,
      );
      continue;
    }
    const bpe = row.bytesPerEvent;
    lines.push(
      `| ${row.label} | ${row.durability} | ${c.map((n) => cellText(findCell(row, "append", n))).join(" | ")} | ` +
        `${cellText(findCell(row, "read", 16))} | ${bpe === undefined ? "–" : integer.format(bpe)} | ` +
        `${mib(row.peakRssBytes)}${row.peakRssNote ? ` (${row.peakRssNote})` : ""} | ` +
        `${micros(findCell(row, "append", 64)?.serverCpuMicrosPerOp)} / ${micros(findCell(row, "read", 16)?.serverCpuMicrosPerOp)} |`,
    );
  }
  lines.push("");

  const ours = ok.filter((r) => r.id.startsWith("ess-"));
  const peers = ok.filter((r) => !r.id.startsWith("ess-"));
  if (ours.length > 0 && peers.length > 0) {
    /** The ratio of one measure in each round, our row against the peer's. */
    const perRound = (
      our: RowSummary,
      peer: RowSummary,
      measure: (row: RowResult) => number | undefined,
    ): (number | undefined)[] =>
      run.rounds.map((round) => {
        const a = round.find((r) => r.id === our.id);
        const b = round.find((r) => r.id === peer.id);
        return a && b ? ratio(measure(a), measure(b)) : undefined;
      });
    const ops = (kind: CellResult["kind"], n: number) => (row: RowResult) =>
      findCell(row, kind, n)?.opsPerSecond;
    lines.push(
      "Ratios ours / peer (throughput: above 1× means `ess` is faster; disk and RSS: below 1× means `ess` " +
        "uses less). " +
        (roundCount > 1
          ? `Throughput ratios are computed in each round between rows of that round: the median, then the ` +
            `lowest and highest of the ${roundCount} rounds; **bold** when \`ess\` was faster in every round. `
          : "Same run; **bold** when `ess` is faster. ") +
        "Only durable peers are like-for-like; relaxed rows are shown for scale.",
      "",
      `| ours / peer | ${c.map((n) => `append c=${n}`).join(" | ")} | read c=16 | disk/event | peak RSS |`,
      `|---|${c.map(() => "---").join("|")}|---|---|---|`,
    );
    for (const our of ours) {
      for (const peer of peers) {
        const cells = c.map((n) => ratioText(perRound(our, peer, ops("append", n))));
        const footprint = (a: number | undefined, b: number | undefined): string => {
          const r = ratio(a, b);
          return r === undefined ? "–" : times(r);
        };
        lines.push(
          `| ${our.label} / ${peer.label}${peer.durable ? "" : " (relaxed)"} | ${cells.join(" | ")} | ` +
            `${ratioText(perRound(our, peer, ops("read", 16)))} | ` +
            `${footprint(our.bytesPerEvent, peer.bytesPerEvent)} | ${footprint(our.peakRssBytes, peer.peakRssBytes)} |`,
        );
      }
    }
    lines.push("");
  }

  lines.push("How each row ran:", "");
  for (const row of rows) {
    const detail = row.status === "ok" ? (row.configuration ?? "") : `not run: ${row.reason ?? ""}`;
    const extra: string[] = [];
    if (row.eventsStored !== undefined)
      extra.push(`${integer.format(row.eventsStored)} events stored${roundCount > 1 ? " (median)" : ""}`);
    if (row.preloadSeconds !== undefined)
      extra.push(`read set preloaded in ${row.preloadSeconds.toFixed(1)} s`);
    const driverCpu = row.cells.map((cell) => cell.driverCpuPercent);
    if (driverCpu.length > 0)
      extra.push(`load generator CPU ${Math.round(Math.max(...driverCpu))}% of a core at most`);
    extra.push(...row.facts);
    lines.push(`- **${row.label}**: ${detail}${extra.length > 0 ? `. ${extra.join("; ")}.` : ""}`);
  }
  lines.push(
    "",
    "Disk B/event: allocated bytes of the row's data directory (for PostgreSQL: `pg_total_relation_size` of the " +
      "events table with its indexes, WAL not counted; for ess: without the zeroed room its log engine keeps " +
      "ahead of the active segment's end) divided by the events stored, median over the rounds. " +
      "Peak RSS: VmHWM of the server process from /proc, the highest of the rounds. Server CPU: user + system " +
      "time the server process used during the cell (warm-up included) divided by the operations completed in " +
      "it (PostgreSQL: the backends serving our connections, WAL writer and checkpointer not counted), median " +
      "over the rounds; on a quiet machine it varies less than throughput does, but a busy host slows every " +
      "CPU-second too.",
    "",
    `Rerun: \`${run.rerun}\``,
  );
  return lines.join("\n");
}

/** Puts the generated block into BENCHMARKS.md, creating the file or the section if missing. */
export function writeBenchmarksSection(path: string, generated: string): void {
  writeGeneratedSection(path, { heading: sectionHeading, beginMarker, endMarker }, generated);
}

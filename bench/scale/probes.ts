/**
 * What the scale benchmark reads beside the load rate, to tell where a slow stretch of a load
 * comes from: the server's garbage collections (from its `--trace-gc` lines in its log), its
 * main thread's CPU apart from its other threads' (V8's concurrent marking and sweeping, the
 * file system's thread pool), and the machine's page reclaim (/proc/vmstat) and page cache
 * (/proc/meminfo). Every reading is a running total; the report shows its change in each tenth.
 */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { readCpuSeconds, readCpuTimesAt } from "../compare/processes.js";

/** Running totals of the collections that `--trace-gc` reported. */
export interface GcTotals {
  scavenges: number;
  /** Main-thread pause of the scavenges, ms. */
  scavengeMs: number;
  /** Full collections (Mark-Compact, with or without "(reduce)"). */
  markCompacts: number;
  /** Their final (atomic) pause on the main thread, ms. */
  markCompactMs: number;
  /** Their incremental marking steps on the main thread before that pause, ms. */
  incrementalMs: number;
  /** Heap (MB) after the last full collection, or NaN before the first. */
  heapAfterMarkCompactMb: number;
}

export function emptyGcTotals(): GcTotals {
  return {
    scavenges: 0,
    scavengeMs: 0,
    markCompacts: 0,
    markCompactMs: 0,
    incrementalMs: 0,
    heapAfterMarkCompactMb: NaN,
  };
}

// "[pid:0x..]   1234 ms: Mark-Compact 68.3 (92.3) -> 53.8 (88.4) MB, 148.95 / 0.00 ms  (+ 30.3 ms in 23 steps ..."
const gcLine =
  /ms: (Scavenge|Mark-Compact(?: \(reduce\))?|Minor Mark-Compact) [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, ([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in \d+ steps)?/;

/** Adds the `--trace-gc` lines of `text` to `totals` (other lines are skipped). */
export function addGcLines(totals: GcTotals, text: string): void {
  for (const line of text.split("\n")) {
    const m = gcLine.exec(line);
    if (m === null) continue;
    const pause = Number(m[3]);
    if (m[1] === "Scavenge" || m[1] === "Minor Mark-Compact") {
      totals.scavenges++;
      totals.scavengeMs += pause;
    } else {
      totals.markCompacts++;
      totals.markCompactMs += pause;
      totals.incrementalMs += m[4] === undefined ? 0 : Number(m[4]);
      totals.heapAfterMarkCompactMb = Number(m[2]);
    }
  }
}

/** Follows a growing log file and keeps the GC totals of the lines written so far. */
export class GcLogTally {
  readonly totals = emptyGcTotals();
  private offset = 0;
  private partial = "";

  constructor(private readonly path: string) {}

  /** Reads what the log gained since the last call; returns a copy of the totals. */
  read(): GcTotals {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      return { ...this.totals };
    }
    try {
      const size = fstatSync(fd).size;
      const chunk = Buffer.alloc(1 << 20);
      while (this.offset < size) {
        const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - this.offset), this.offset);
        if (n <= 0) break;
        this.offset += n;
        const text = this.partial + chunk.toString("latin1", 0, n);
        const end = text.lastIndexOf("\n");
        this.partial = text.slice(end + 1);
        addGcLines(this.totals, text.slice(0, end + 1));
      }
    } finally {
      closeSync(fd);
    }
    return { ...this.totals };
  }
}

/** The main thread's CPU seconds (its thread id is the process id), or null. */
export function readMainThreadCpu(pid: number): { user: number; system: number } | null {
  return readCpuTimesAt(`/proc/${pid}/task/${pid}/stat`);
}

/** The /proc/vmstat counters of page reclaim the report shows (pages; allocstall: events). */
export const vmstatKeys = [
  "pgscan_kswapd",
  "pgscan_direct",
  "pgsteal_kswapd",
  "pgsteal_direct",
  "allocstall",
  "pgmajfault",
  "workingset_refault_file",
] as const;
export type VmstatReading = Record<(typeof vmstatKeys)[number], number>;

/** Parses /proc/vmstat's text; allocstall is the sum of its per-zone counters. */
export function parseVmstat(text: string): VmstatReading {
  const out: VmstatReading = {
    pgscan_kswapd: 0,
    pgscan_direct: 0,
    pgsteal_kswapd: 0,
    pgsteal_direct: 0,
    allocstall: 0,
    pgmajfault: 0,
    workingset_refault_file: 0,
  };
  for (const line of text.split("\n")) {
    const [key, value] = line.split(" ");
    if (key === undefined || value === undefined) continue;
    if (key.startsWith("allocstall")) out.allocstall += Number(value);
    else if (key in out) out[key as keyof VmstatReading] = Number(value);
  }
  return out;
}

/** /proc/meminfo's page cache figures, in bytes. */
export interface MeminfoReading {
  cached: number;
  dirty: number;
  writeback: number;
  free: number;
}

export function parseMeminfo(text: string): MeminfoReading {
  const kb = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text);
    return m === null ? NaN : Number(m[1]) * 1024;
  };
  return { cached: kb("Cached"), dirty: kb("Dirty"), writeback: kb("Writeback"), free: kb("MemFree") };
}

export function readVmstat(): VmstatReading | null {
  try {
    return parseVmstat(readFileSync("/proc/vmstat", "utf8"));
  } catch {
    return null;
  }
}

export function readMeminfo(): MeminfoReading | null {
  try {
    return parseMeminfo(readFileSync("/proc/meminfo", "utf8"));
  } catch {
    return null;
  }
}

/** The machine's CPU time (/proc/stat's "cpu" line, clock ticks): busy (user, nice, system, irq, softirq), idle (with iowait) and steal. */
export interface MachineCpu {
  busy: number;
  idle: number;
  steal: number;
}

export function parseProcStat(text: string): MachineCpu | null {
  const line = text.split("\n").find((l) => l.startsWith("cpu "));
  if (line === undefined) return null;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
}

export function readMachineCpu(): MachineCpu | null {
  try {
    return parseProcStat(readFileSync("/proc/stat", "utf8"));
  } catch {
    return null;
  }
}

/** Kernel threads whose work is page reclaim and compaction (kswapd, kdamond: DAMON's reclaim, kcompactd). */
const reclaimThreads = /^(kswapd|kdamond|kcompactd)/;

/** The process ids of the reclaim threads, found once (kernel threads live as long as the machine). */
export function findReclaimThreads(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (reclaimThreads.test(readFileSync(`/proc/${name}/comm`, "utf8"))) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** CPU seconds (user + system) the given processes have used, summed (one gone meanwhile: 0). */
export function readCpuSum(pids: number[]): number {
  let total = 0;
  for (const pid of pids) total += readCpuSeconds(pid) ?? 0;
  return total;
}

/** One reading of everything above, taken when a tenth is crossed. */
export interface ProbeReading {
  gc: GcTotals | null;
  /** The server's main thread's CPU seconds since the load began. */
  mainThread: { user: number; system: number } | null;
  /** Machine-wide reclaim counters (running totals). */
  vmstat: VmstatReading | null;
  /** Machine-wide page cache now (not a total). */
  meminfo: MeminfoReading | null;
  /** Machine-wide CPU ticks since the load began (every process: the server, the load, anything else). */
  machineCpu?: MachineCpu | null;
  /** CPU seconds of the kernel's reclaim threads (findReclaimThreads) since the load began. */
  reclaimCpuSeconds?: number;
  /** The machine's speed over the tenth (MachineSpeed; not a total), or null. */
  speed?: { memoryNs: number; aluNs: number } | null;
}

/**
 * How fast this machine runs a fixed piece of work now, sampled once a second beside the load:
 * a walk of a random cycle through 16 MiB (memory latency, which neighbours on the same host or
 * the same cores slow down) and an arithmetic loop (the CPU's own speed). Each sample's figure is
 * this process's CPU time for it (a sample preempted midway does not count the wait), and a
 * tenth reports the median of its samples: when the server's CPU per event rises in a tenth and
 * these rise alike, the machine got slower, not the server's work larger.
 */
export class MachineSpeed {
  private readonly cycle: Uint32Array;
  private readonly memory: number[] = [];
  private readonly alu: number[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sink = 0;
  static readonly steps = 100_000;
  static readonly rounds = 2_000_000;

  constructor() {
    // One random cycle through every slot (Sattolo's shuffle), so each step is a dependent load.
    const n = 1 << 22;
    this.cycle = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.cycle[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * i);
      const t = this.cycle[i]!;
      this.cycle[i] = this.cycle[j]!;
      this.cycle[j] = t;
    }
  }

  start(): void {
    this.timer = setInterval(() => this.sample(), 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private sample(): void {
    let at = this.sink & (this.cycle.length - 1);
    let t0 = process.cpuUsage();
    for (let i = 0; i < MachineSpeed.steps; i++) at = this.cycle[at]!;
    let t1 = process.cpuUsage(t0);
    this.memory.push(((t1.user + t1.system) * 1000) / MachineSpeed.steps);
    let x = at | 1;
    t0 = process.cpuUsage();
    for (let i = 0; i < MachineSpeed.rounds; i++) x = (Math.imul(x, 1103515245) + 12345) ^ (x >>> 7);
    t1 = process.cpuUsage(t0);
    this.alu.push(((t1.user + t1.system) * 1000) / MachineSpeed.rounds);
    this.sink = x;
  }

  /** The medians (ns per step, ns per round) of the samples since the last call, or null if none. */
  take(): { memoryNs: number; aluNs: number } | null {
    if (this.memory.length === 0) return null;
    const median = (xs: number[]): number => {
      const sorted = [...xs].sort((a, b) => a - b);
      return sorted[Math.floor(sorted.length / 2)]!;
    };
    const out = { memoryNs: median(this.memory), aluNs: median(this.alu) };
    this.memory.length = 0;
    this.alu.length = 0;
    return out;
  }
}

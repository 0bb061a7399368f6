/**
 * The scale benchmark's pure parts: marking the tenths of a load as acknowledgements arrive,
 * and turning one run's results into the "Scale" section of BENCHMARKS.md (only the text between
 * the section's markers is rewritten; hand-written notes around it stay).
 */
import { writeGeneratedSection, type GeneratedSection, type MachineFacts } from "../benchmarks-md.js";
import type { MachineCpu, ProbeReading } from "./probes.js";

/** The load as it stood when it first reached a tenth of its events. */
export interface TenthSample {
  /** 1..10. */
  tenth: number;
  /** Events acknowledged by then (at least tenth/10 of the total). */
  events: number;
  /** Seconds since the load began. */
  seconds: number;
  /** Resident set of the server then (VmRSS), or null when /proc had no answer. */
  rssBytes: number | null;
  /**
   * The server's CPU time (user + system) since the load began, or null when /proc had no
   * answer: on a machine shared with other work, CPU per event is steadier than the rate.
   */
  cpuSeconds: number | null;
  /** The system (kernel) part of cpuSeconds, or null. */
  systemCpuSeconds: number | null;
  /** GC, thread and machine readings (probes.ts), or null when none were taken. */
  probe?: ProbeReading | null;
}

/**
 * Watches the count of acknowledged events and records a sample each time it reaches the next
 * tenth of the total. Acknowledgements may arrive in any order and size; the count only grows.
 */
export class TenthsRecorder {
  readonly samples: TenthSample[] = [];

  constructor(private readonly total: number) {
    if (!Number.isInteger(total) || total <= 0) throw new Error(`total must be a positive integer: ${total}`);
  }

  /** The events that make the next tenth, or null when all ten are recorded. */
  private nextThreshold(): number | null {
    const next = this.samples.length + 1;
    return next > 10 ? null : Math.ceil((this.total * next) / 10);
  }

  /**
   * Called with the events acknowledged so far; records every tenth the count has reached since
   * the last call (rss and cpu are read once, only when a tenth is crossed). Returns the new
   * samples.
   */
  record(
    events: number,
    seconds: number,
    rss: () => number | null,
    cpu: () => { user: number; system: number } | null = () => null,
    probe: () => ProbeReading | null = () => null,
  ): TenthSample[] {
    const added: TenthSample[] = [];
    let threshold = this.nextThreshold();
    if (threshold === null || events < threshold) return added;
    const rssBytes = rss();
    const times = cpu();
    const cpuSeconds = times === null ? null : times.user + times.system;
    const systemCpuSeconds = times === null ? null : times.system;
    const probed = probe();
    while (threshold !== null && events >= threshold) {
      const sample = {
        tenth: this.samples.length + 1,
        events,
        seconds,
        rssBytes,
        cpuSeconds,
        systemCpuSeconds,
        probe: probed,
      };
      this.samples.push(sample);
      added.push(sample);
      threshold = this.nextThreshold();
    }
    return added;
  }
}

/** Events per second within each tenth (from the previous sample, or the start, to this one). */
export function ratesPerTenth(samples: TenthSample[]): number[] {
  return samples.map((sample, i) => {
    const previous = i === 0 ? { events: 0, seconds: 0 } : samples[i - 1]!;
    const seconds = sample.seconds - previous.seconds;
    return seconds > 0 ? (sample.events - previous.events) / seconds : NaN;
  });
}

/**
 * The server's CPU µs per event within each tenth (NaN where a reading is missing or the tenth
 * holds no events): the work the server did for the tenth's events, whatever else ran beside it.
 */
export function cpuMicrosPerEventPerTenth(
  samples: TenthSample[],
  part: "cpuSeconds" | "systemCpuSeconds" = "cpuSeconds",
): number[] {
  return samples.map((sample, i) => {
    const previous = i === 0 ? null : samples[i - 1]!;
    const added = sample.events - (previous?.events ?? 0);
    const now = sample[part];
    const before = previous === null ? 0 : previous[part];
    if (now === null || before === null || added <= 0) return NaN;
    return ((now - before) * 1e6) / added;
  });
}

export interface RestartResult {
  /** How the running server was ended. */
  kind: "kill -9" | "clean stop (SIGTERM)";
  /** Seconds from the signal to the process's exit. */
  stopSeconds: number;
  /** How the process exited ("exit 0", "SIGKILL", ...). */
  exit: string;
  /** Seconds from starting the new process to its first healthy answer. */
  healthySeconds: number;
  /** Resident set of the new process once healthy. */
  rssBytes: number | null;
  /** events_total the restarted server reports. */
  eventsAfter: number;
}

export interface ScaleResult {
  startedAt: string;
  durationSeconds: number;
  machine: MachineFacts;
  loadAverageStart: number[];
  loadAverageEnd: number[];
  versions: { ess: string; node: string };
  settings: { events: number; batch: number; clients: number; streams: number; eventBytes: number };
  /** Seconds from starting `ess serve` on the empty data directory to its first healthy answer. */
  firstStartSeconds: number;
  tenths: TenthSample[];
  loadSeconds: number;
  /** Peak resident set of the server over the load (VmHWM). */
  peakRssBytes: number | null;
  storage: {
    eventsTotal: number;
    streamsTotal: number;
    segments: number;
    /** The index's memory as storage-status reports it. */
    indexMemoryBytes: number;
    /** Bytes of the index's files on disk right after the load (index files, or an older version's checkpoint). */
    indexFileBytes: number;
    /** The same after the server's last clean stop. */
    indexFileBytesAfterStop: number;
    /** Bytes of the segment files (storage-status bytes_total). */
    logBytes: number;
    /** Allocated bytes of the whole data directory. */
    diskBytes: number;
  };
  restarts: RestartResult[];
  reads: { count: number; limit: number; p50Ms: number; p99Ms: number; maxMs: number };
  rerun: string;
}

export const scaleSection: GeneratedSection = {
  heading: "## Scale: the log engine loaded to millions of events (bench/scale/run-scale.ts)",
  beginMarker: "<!-- bench:scale:begin (generated by npm run bench:scale; edits here are overwritten) -->",
  endMarker: "<!-- bench:scale:end -->",
};

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function count(n: number): string {
  return Number.isFinite(n) ? integer.format(n) : "–";
}

function mib(bytes: number | null): string {
  return bytes === null || !Number.isFinite(bytes) ? "–" : integer.format(bytes / 1024 / 1024);
}

function perEvent(bytes: number, events: number): string {
  return events > 0 ? (bytes / events).toFixed(1) : "–";
}

function secs(s: number): string {
  return s < 10 ? s.toFixed(2) : s.toFixed(1);
}

function ms(value: number): string {
  if (!Number.isFinite(value)) return "–";
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

export function renderScale(run: ScaleResult): string {
  const { settings, storage } = run;
  const events = storage.eventsTotal;
  const load = (l: number[]): string => l.map((x) => x.toFixed(2)).join(" ");
  const rates = ratesPerTenth(run.tenths);
  const lines: string[] = [
    `Run ${run.startedAt} on ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ` +
      `${(run.machine.ramBytes / 1024 ** 3).toFixed(1)} GiB RAM, Linux ${run.machine.kernel}; ` +
      `ess ${run.versions.ess}, node ${run.versions.node}; the whole run took ${Math.round(run.durationSeconds)} s. ` +
      `Load average ${load(run.loadAverageStart)} at the start and ${load(run.loadAverageEnd)} at the end.`,
    "",
    `**N = ${count(settings.events)} events** of ${settings.eventBytes} bytes of JSON data, loaded into a fresh ` +
      `\`ess serve\` (log engine, REST gateway on 127.0.0.1) through POST /v1/streams/{id}/append in ` +
      `${count(settings.batch)}-event batches by ${settings.clients} concurrent clients, each batch to one of ` +
      `${count(settings.streams)} streams in turn; every batch acknowledged (fsync'd) before the next is sent on ` +
      `that client. Loaded in ${secs(run.loadSeconds)} s: **${count(settings.events / run.loadSeconds)} events/s** ` +
      `on average. Empty server to healthy: ${secs(run.firstStartSeconds)} s.`,
    "",
    "| tenth | events stored | load rate in the tenth (events/s) | server CPU µs per event in the tenth (of it system) | seconds since start | server RSS (MiB) |",
    "|---|---|---|---|---|---|",
  ];
  const cpuPerEvent = cpuMicrosPerEventPerTenth(run.tenths);
  const systemPerEvent = cpuMicrosPerEventPerTenth(run.tenths, "systemCpuSeconds");
  run.tenths.forEach((sample, i) => {
    lines.push(
      `| ${sample.tenth} | ${count(sample.events)} | ${count(rates[i] ?? NaN)} | ${ms(cpuPerEvent[i] ?? NaN)} (${ms(systemPerEvent[i] ?? NaN)}) | ` +
        `${secs(sample.seconds)} | ${mib(sample.rssBytes)} |`,
    );
  });
  lines.push(...renderProbes(run.tenths));
  lines.push(
    "",
    `Peak server RSS during the load (VmHWM): **${mib(run.peakRssBytes)} MiB**` +
      (run.peakRssBytes !== null && events > 0
        ? `, ${perEvent(run.peakRssBytes, events)} bytes per event stored.`
        : "."),
    "",
    `After the load (Admin storage-status and the data directory): ${count(events)} events in ` +
      `${count(storage.streamsTotal)} streams; segment files: ${count(storage.segments)}.`,
    "",
    "| what | MiB | bytes per event |",
    "|---|---|---|",
    `| index in memory (storage-status \`index.memory_bytes\`) | ${mib(storage.indexMemoryBytes)} | ` +
      `**${perEvent(storage.indexMemoryBytes, events)}** |`,
    `| index files right after the load | ${mib(storage.indexFileBytes)} | ` +
      `${perEvent(storage.indexFileBytes, events)} |`,
    `| index files after a clean stop | ${mib(storage.indexFileBytesAfterStop)} | ` +
      `${perEvent(storage.indexFileBytesAfterStop, events)} |`,
    `| segment files (storage-status \`bytes_total\`) | ${mib(storage.logBytes)} | ${perEvent(storage.logBytes, events)} |`,
    `| data directory on disk (allocated) | ${mib(storage.diskBytes)} | **${perEvent(storage.diskBytes, events)}** |`,
    "",
    "Restarts, in this order (restart: from starting the process to the first `GET /v1/health` answering " +
      '`"status":"ok"`; the kill -9 comes right after the load, so the restart reads again whatever the ' +
      "index on disk did not cover):",
    "",
    "| stop | stop took (s) | exit | restart to healthy (s) | RSS once healthy (MiB) | events after |",
    "|---|---|---|---|---|---|",
  );
  for (const r of run.restarts) {
    lines.push(
      `| ${r.kind} | ${secs(r.stopSeconds)} | ${r.exit} | **${secs(r.healthySeconds)}** | ${mib(r.rssBytes)} | ` +
        `${count(r.eventsAfter)} |`,
    );
  }
  lines.push(
    "",
    `Random reads at the end, on the restarted server: ${count(run.reads.count)} reads one after another, each ` +
      `GET /v1/streams/{id}?from=R&limit=${run.reads.limit} of a random stream and revision (checked to return ` +
      `that revision): **p50 ${ms(run.reads.p50Ms)} ms, p99 ${ms(run.reads.p99Ms)} ms**, max ` +
      `${ms(run.reads.maxMs)} ms (client-side, over loopback).`,
    "",
    `Rerun: \`${run.rerun}\``,
  );
  return lines.join("\n");
}

/**
 * A table of what the server and the machine did in each tenth (probes.ts), or nothing when no
 * tenth has readings: CPU per event on the server's main thread and on its other threads, the
 * garbage collections, the kernel's page reclaim, and the page cache at the tenth's end.
 */
export function renderProbes(samples: TenthSample[]): string[] {
  if (!samples.some((s) => s.probe != null)) return [];
  const out = [
    "",
    "What the server and the machine did in each tenth: the server's CPU µs per event on its main " +
      "thread (of it system) and on its other threads (V8's concurrent GC, the file system's thread " +
      "pool); its collections from `--trace-gc` (scavenges: count and pause; full mark-compacts: " +
      "count, final pause + incremental marking steps on the main thread; heap after the last one); " +
      "the machine's page reclaim from /proc/vmstat (pages scanned and stolen by kswapd / directly, " +
      "allocation stalls, major faults, refaults of page cache) and the CPU seconds of its reclaim " +
      "threads (kswapd, kdamond, kcompactd); the machine's CPU (/proc/stat: busy share of both vCPUs, " +
      "and steal); /proc/meminfo at the tenth's end (Cached, Dirty, Writeback); and the machine's speed " +
      "beside the load (the median CPU ns of a step of a random walk through 16 MiB, and of an " +
      "arithmetic round, sampled once a second in the load generator: if these rise with the " +
      "server's CPU per event, the machine slowed down).",
    "",
    "| tenth | main thread µs/event (system) | other threads µs/event | scavenges: n, pause ms | mark-compacts: n, pause + incremental ms | heap after MC (MB) | pgscan kswapd / direct | pgsteal kswapd / direct | allocstall | major faults / refaults | reclaim threads CPU s | machine busy % (steal %) | Cached / Dirty / Writeback (MiB) | machine speed: memory step / arithmetic round (ns) |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  samples.forEach((sample, i) => {
    const p = sample.probe;
    const prev = i === 0 ? null : samples[i - 1]!.probe;
    const prevSample = i === 0 ? null : samples[i - 1]!;
    const added = sample.events - (prevSample?.events ?? 0);
    const per = (now: number | undefined, before: number | undefined): string =>
      now === undefined || added <= 0 ? "–" : ms(((now - (before ?? 0)) * 1e6) / added);
    const d = (now: number | undefined, before: number | undefined): number =>
      now === undefined ? NaN : now - (before ?? 0);
    const main = p?.mainThread ?? undefined;
    const mainPrev = prev?.mainThread ?? undefined;
    const mainTotal = main === undefined ? undefined : main.user + main.system;
    const mainTotalPrev = mainPrev === undefined ? undefined : mainPrev.user + mainPrev.system;
    const total = sample.cpuSeconds ?? undefined;
    const totalPrev = prevSample?.cpuSeconds ?? undefined;
    const others =
      total === undefined || mainTotal === undefined
        ? "–"
        : per(
            total - mainTotal,
            totalPrev === undefined || mainTotalPrev === undefined ? undefined : totalPrev - mainTotalPrev,
          );
    const gc = p?.gc ?? undefined;
    const gcPrev = prev?.gc ?? undefined;
    const vm = p?.vmstat ?? undefined;
    const vmPrev = prev?.vmstat ?? undefined;
    const mem = p?.meminfo ?? undefined;
    out.push(
      `| ${sample.tenth} | ${per(mainTotal, mainTotalPrev)} (${per(main?.system, mainPrev?.system)}) | ${others} | ` +
        `${count(d(gc?.scavenges, gcPrev?.scavenges))}, ${count(d(gc?.scavengeMs, gcPrev?.scavengeMs))} | ` +
        `${count(d(gc?.markCompacts, gcPrev?.markCompacts))}, ${count(d(gc?.markCompactMs, gcPrev?.markCompactMs))} + ` +
        `${count(d(gc?.incrementalMs, gcPrev?.incrementalMs))} | ${count(gc?.heapAfterMarkCompactMb ?? NaN)} | ` +
        `${count(d(vm?.pgscan_kswapd, vmPrev?.pgscan_kswapd))} / ${count(d(vm?.pgscan_direct, vmPrev?.pgscan_direct))} | ` +
        `${count(d(vm?.pgsteal_kswapd, vmPrev?.pgsteal_kswapd))} / ${count(d(vm?.pgsteal_direct, vmPrev?.pgsteal_direct))} | ` +
        `${count(d(vm?.allocstall, vmPrev?.allocstall))} | ` +
        `${count(d(vm?.pgmajfault, vmPrev?.pgmajfault))} / ${count(d(vm?.workingset_refault_file, vmPrev?.workingset_refault_file))} | ` +
        `${ms(d(p?.reclaimCpuSeconds, prev?.reclaimCpuSeconds))} | ${machineShare(p?.machineCpu ?? undefined, prev?.machineCpu ?? undefined)} | ` +
        `${mib(mem?.cached ?? null)} / ${mib(mem?.dirty ?? null)} / ${mib(mem?.writeback ?? null)} | ` +
        `${p?.speed == null ? "–" : `${p.speed.memoryNs.toFixed(1)} / ${p.speed.aluNs.toFixed(2)}`} |`,
    );
  });
  return out;
}

/** The machine's busy and steal share of its CPU time between two readings, as "busy% (steal%)". */
function machineShare(now: MachineCpu | undefined, before: MachineCpu | undefined): string {
  if (now === undefined) return "–";
  const busy = now.busy - (before?.busy ?? 0);
  const idle = now.idle - (before?.idle ?? 0);
  const steal = now.steal - (before?.steal ?? 0);
  const all = busy + idle + steal;
  if (all <= 0) return "–";
  return `${Math.round((100 * busy) / all)} (${Math.round((100 * steal) / all)})`;
}

export function writeScaleSection(path: string, generated: string): void {
  writeGeneratedSection(path, scaleSection, generated);
}

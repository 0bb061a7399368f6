/**
 * Starting, watching and stopping the server processes the comparison owns, on 127.0.0.1 only.
 * Invariants: every process started here is tracked until it has exited; stop() ends it with
 * SIGTERM and then SIGKILL after a grace period; measurements of a process (peak RSS, CPU time)
 * are read from /proc while it is still alive.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Peak resident set (VmHWM) in bytes, read now; null when /proc has no answer. */
  peakRssBytes(): number | null;
  /** User plus system CPU seconds used so far; null when /proc has no answer. */
  cpuSeconds(): number | null;
  /** Ends the process (SIGTERM, then SIGKILL after graceMs) and waits for its exit. */
  stop(graceMs?: number): Promise<void>;
  /** Ends the process at once with SIGKILL (a crash, as kill -9) and waits for its exit. */
  kill(): Promise<void>;
  /** Resolves when the process exits, with its exit code or signal. */
  readonly exited: Promise<string>;
}

const running = new Set<ServerProcess>();

/** Every process still running; the orchestrator stops them all on the way out, whatever happens. */
export function runningProcesses(): ServerProcess[] {
  return [...running];
}

export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: { logPath: string; env?: NodeJS.ProcessEnv; cwd?: string },
): ServerProcess {
  const log = openSync(options.logPath, "a");
  const child: ChildProcess = spawn(command, args, {
    stdio: ["ignore", log, log],
    env: options.env ?? process.env,
    cwd: options.cwd,
  });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  const pid = child.pid;
  let hasExited = false;
  const exited = new Promise<string>((resolve) => {
    child.on("exit", (code, signal) => {
      hasExited = true;
      resolve(signal ?? `exit ${code ?? "?"}`);
    });
    child.on("error", (error) => {
      hasExited = true;
      resolve(`error ${error.message}`);
    });
  });
  const handle: ServerProcess = {
    name,
    pid,
    logPath: options.logPath,
    exited,
    peakRssBytes: () => readVmHwmBytes(pid),
    cpuSeconds: () => readCpuSeconds(pid),
    async stop(graceMs = 10_000) {
      if (!hasExited) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await exited;
        clearTimeout(timer);
      }
      running.delete(handle);
    },
    async kill() {
      if (!hasExited) child.kill("SIGKILL");
      await exited;
      running.delete(handle);
    },
  };
  running.add(handle);
  void exited.then(() => running.delete(handle));
  return handle;
}

/** A memory figure of /proc/<pid>/status in bytes (VmHWM: peak resident set; VmRSS: now). */
function readStatusBytes(pid: number, field: "VmHWM" | "VmRSS"): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(
      readFileSync(`/proc/${pid}/status`, "utf8"),
    );
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export function readVmHwmBytes(pid: number): number | null {
  return readStatusBytes(pid, "VmHWM");
}

export function readVmRssBytes(pid: number): number | null {
  return readStatusBytes(pid, "VmRSS");
}

/** utime and stime of /proc/<pid>/stat, in seconds (clock ticks of 1/100 s on Linux). */
export function readCpuTimes(pid: number): { user: number; system: number } | null {
  return readCpuTimesAt(`/proc/${pid}/stat`);
}

/** utime and stime of a stat file of /proc (a process's, or one thread's under task/), in seconds. */
export function readCpuTimesAt(statPath: string): { user: number; system: number } | null {
  try {
    const stat = readFileSync(statPath, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return null;
  }
}

/** utime + stime of /proc/<pid>/stat, in seconds. */
export function readCpuSeconds(pid: number): number | null {
  const times = readCpuTimes(pid);
  return times === null ? null : times.user + times.system;
}

/** A port that was free a moment ago on 127.0.0.1 (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Waits until something accepts connections on the port, or the process dies, or time runs out. */
export async function waitForPort(server: ServerProcess, port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const state: { dead: string | null } = { dead: null };
  void server.exited.then((how) => (state.dead = how));
  while (Date.now() < deadline) {
    if (state.dead !== null)
      throw new Error(`${server.name} exited (${state.dead}) before listening; see ${server.logPath}`);
    if (await canConnect(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `${server.name} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms; see ${server.logPath}`,
  );
}

/**
 * Bytes the directory's files occupy on disk (allocated blocks, not apparent sizes). Files that
 * `roomAhead` names may end in room kept ahead of their data (the zeros a running ess log engine
 * writes past its active segment's end, docs/log-engine.md, and cuts when it stops): for those,
 * the allocated bytes past the last non-zero 4 KiB block are room, not stored data.
 */
export function diskBytes(dir: string, roomAhead: (name: string) => boolean = () => false): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) total += diskBytes(path, roomAhead);
    else if (stat.isFile()) {
      const allocated = stat.blocks * 512;
      total += roomAhead(name) ? Math.min(allocated, bytesBeforeTrailingZeros(path, stat.size)) : allocated;
    }
  }
  return total;
}

/** An ess log engine's segment file (seg-NNNNNNNNNN.log): the active one ends in zeroed room. */
export const essSegmentFile = (name: string): boolean => /^seg-\d+\.log$/.test(name);

/** The file's length without its trailing zero bytes, rounded up to a 4 KiB block. */
function bytesBeforeTrailingZeros(path: string, size: number): number {
  const fd = openSync(path, "r");
  try {
    const chunk = Buffer.alloc(64 * 1024);
    for (let end = size; end > 0;) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      for (let i = n - 1; i >= 0; i--) {
        if (chunk[i] !== 0) return Math.ceil((start + i + 1) / 4096) * 4096;
      }
      end = start;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

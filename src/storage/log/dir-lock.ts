/**
 * The data directory belongs to one process. Node has no flock(), so the lock is a file
 * created with O_EXCL ("wx") holding the owner's pid and host. A lock whose pid no longer
 * runs on this host is stale (the owner crashed) and is taken over. Two processes taking over
 * the same stale lock at the same instant could both succeed; the window is a few
 * microseconds at start-up and is documented in docs/log-engine.md.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EssError } from "../../errors.js";

export const LOCK_FILE = "LOCK";

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class DirectoryLock {
  private released = false;
  private constructor(readonly filePath: string) {}

  static acquire(dir: string): DirectoryLock {
    const filePath = path.join(dir, LOCK_FILE);
    const body = JSON.stringify({ pid: process.pid, host: os.hostname() }) + "\n";
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = fs.openSync(filePath, "wx");
        try {
          fs.writeSync(fd, body);
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
        return new DirectoryLock(filePath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      let owner: { pid?: unknown; host?: unknown } = {};
      try {
        owner = JSON.parse(fs.readFileSync(filePath, "utf8")) as { pid?: unknown; host?: unknown };
      } catch {
        // Empty or torn lock file: its writer crashed while creating it.
      }
      const pid = typeof owner.pid === "number" ? owner.pid : null;
      const sameHost = owner.host === undefined || owner.host === os.hostname();
      if (pid !== null && (!sameHost || isRunning(pid))) {
        throw new EssError(
          "UNAVAILABLE",
          `data directory ${dir} is in use by process ${pid}${sameHost ? "" : ` on ${String(owner.host)}`} (lock file ${filePath})`,
          { data_dir: dir, pid },
        );
      }
      try {
        fs.unlinkSync(filePath);
      } catch {
        // Someone else removed the stale lock first; try again.
      }
    }
    throw new EssError("UNAVAILABLE", `could not lock data directory ${dir}`, { data_dir: dir });
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      fs.unlinkSync(this.filePath);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

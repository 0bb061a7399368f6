/**
 * How a failed file-system call reads in logs and error messages, and which failures mean
 * "no room on the disk" (answered UNAVAILABLE, like a refused append, rather than INTERNAL).
 */

/**
 * `CODE: what happened`. Node's own messages already start with their code ("ENOSPC: no space
 * left on device, write"), so the code is added only when the message lacks it.
 */
export function describeIoError(error: unknown): string {
  if (!error || typeof error !== "object") return String(error);
  const e = error as NodeJS.ErrnoException;
  const message = typeof e.message === "string" ? e.message : "";
  if (typeof e.code !== "string" || message.startsWith(`${e.code}:`)) return message;
  return `${e.code}: ${message}`;
}

/** The disk (or the user's quota on it) is full. */
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

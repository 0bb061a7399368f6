import fs from "node:fs";

/**
 * Writes buf[from, from + length) at `position` on libuv's thread pool, looping over short
 * writes; `keepGoing` is asked before each further step (the room filler stops mid-chunk). A
 * write that makes no progress fails as ENOSPC instead of looping for ever.
 */
export async function writeAt(
  fd: number,
  buf: Buffer,
  from: number,
  length: number,
  position: number,
  keepGoing: () => boolean = () => true,
): Promise<void> {
  let done = 0;
  while (done < length && (done === 0 || keepGoing())) {
    const n = await new Promise<number>((resolve, reject) =>
      fs.write(fd, buf, from + done, length - done, position + done, (error, written) =>
        error ? reject(error) : resolve(written),
      ),
    );
    if (n === 0) throw Object.assign(new Error("short write: no bytes written"), { code: "ENOSPC" });
    done += n;
  }
}

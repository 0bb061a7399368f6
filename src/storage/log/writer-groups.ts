/**
 * How the log writer cuts its queue into groups (one write and one fdatasync each): everything
 * queued, up to `bytesMax`; an op larger than that still goes, alone. (No cut of a burst into
 * halves: docs/performance-findings.md, "The burst cut, measured again".)
 */
export function groupTake(
  queue: readonly { readonly bytes: number }[],
  bytesMax: number,
): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  while (count < queue.length) {
    const b = queue[count]!.bytes;
    if (count > 0 && bytes + b > bytesMax) break;
    bytes += b;
    count++;
  }
  return { count, bytes };
}

/**
 * How the log writer cuts its queue into groups (one write and one fdatasync each): everything
 * queued, up to `bytesMax` (an op larger than that still goes, alone).
 *
 * A burst reaching an idle writer used to be committed in two halves, so that clients in a
 * closed loop would turn the first half's answers around while the second half synced. Measured
 * again once sessions ran on the fast path, it cost REST a quarter of its appends at c=16 and
 * c=64 and the server more CPU per append for its extra syncs, and gained only the unary row at
 * c=64; it was taken out (docs/performance-findings.md, "The burst cut, measured again").
 */
export function groupTake(queue: readonly { readonly bytes: number }[], bytesMax: number): number {
  let take = 0;
  let bytes = 0;
  while (take < queue.length) {
    const b = queue[take]!.bytes;
    if (take > 0 && bytes + b > bytesMax) break;
    bytes += b;
    take++;
  }
  return take;
}

/**
 * How the log writer cuts its queue into groups (one write and one fdatasync each).
 *
 * A group is everything queued, up to `bytesMax`. One exception: when the writer was idle
 * before this group and the group would hold `splitMin` or more ops, it takes only the first
 * half. Clients in a closed loop (a session's pipelined batch, or many connections that each
 * wait for their answer) send a burst, then wait for all of its answers. Committed whole, the
 * burst waits for one sync while the clients idle, then the clients turn every answer around
 * while the disk idles, and the next burst arrives whole again. Cut in two, the first half's
 * answers go out after one sync and the clients turn them around while the second half syncs,
 * so the next group is formed from what they send meanwhile: the bursts break into phases that
 * take turns. Under a load that keeps the writer busy its groups stay whole.
 * Measured in docs/performance-findings.md, "Cutting a burst in two".
 */
export function groupTake(
  queue: readonly { readonly bytes: number }[],
  bytesMax: number,
  writerWasIdle: boolean,
  splitMin: number,
): number {
  let take = 0;
  let bytes = 0;
  while (take < queue.length) {
    const b = queue[take]!.bytes;
    if (take > 0 && bytes + b > bytesMax) break;
    bytes += b;
    take++;
  }
  return writerWasIdle && take >= splitMin ? Math.ceil(take / 2) : take;
}

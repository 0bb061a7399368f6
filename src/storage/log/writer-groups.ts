/**
 * How the log writer cuts its queue into groups, and where a group's fdatasync runs.
 *
 * A group is everything queued, up to `bytesMax` (one write and one fdatasync for all of it).
 * One exception: when the writer was idle before this group and the group would hold
 * `splitMin` or more ops, it takes only the first half. A client that pipelines its appends
 * (a session, or many workers on one connection) sends a batch, then waits for all of its
 * answers; committed whole, the batch waits for one sync while the client idles, then the
 * client handles every answer while the disk idles. Cut in two, the second half's sync runs
 * while the client turns the first half's answers into its next requests, and from then on the
 * two halves take turns. Under a steady load from many clients the writer is never idle, so
 * its groups stay whole.
 *
 * A group's fdatasync runs on the event loop only when it is lone: one op, with nothing else
 * queued (one client at a time: c=1 latency, where a thread-pool round trip costs as much as
 * the sync). A group of several ops means concurrent clients, and then the sync runs on the
 * thread pool, so that the event loop reads, parses and answers their other requests while
 * the disk works (docs/log-engine.md, "Where the fdatasync runs").
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

/** Whether a group of `take` ops, leaving `left` queued, is lone (see above). */
export function isLoneGroup(take: number, left: number): boolean {
  return take === 1 && left === 0;
}

/**
 * The subscription hub of one service process: it listens to the engine's append notices and
 * wakes the subscriptions they concern, and it reads pages from storage for them.
 *
 * Invariants:
 * - one onAppend listener per hub, whatever the number of subscriptions; a notice costs one
 *   map lookup per index (stream, tenant) plus one wake-up per interested subscription;
 * - identical reads in flight at the same moment are shared: when an append wakes a thousand
 *   subscribers of one stream, all at the same cursor, storage is read once. A shared result is
 *   what each would have read alone at that instant, so exactness is unchanged;
 * - a stream that does not exist (or is soft-deleted) reads as empty: the subscription waits
 *   for its first event. Another tenant's stream is, by tenant scoping, just such a stream;
 * - after close(), no notice is handled and every subscription has failed with UNAVAILABLE.
 */
import type { StorageEngine } from "../../storage/engine.js";
import { EssError, streamTombstoned, unavailable } from "../../errors.js";
import { limits } from "../../limits.js";
import { isFiltering, type EventFilter } from "../../contract/event-filter.js";
import {
  Subscription,
  type SubscriptionPage,
  type SubscriptionSink,
  type SubscriptionTarget,
} from "./subscription.js";

export interface SubscriptionHubOptions {
  /** Events read per page. Default limits.subscriptionPageEvents. */
  pageEvents?: number;
}

/** Where a subscription starts: a revision (stream) or position ($all), or "end" for live only. */
export type SubscriptionStart = number | "end";

export class SubscriptionHub {
  private readonly byStream = new Map<string, Set<Subscription>>();
  private readonly byTenant = new Map<string, Set<Subscription>>();
  private readonly readsInFlight = new Map<string, Promise<SubscriptionPage>>();
  private readonly stopListening: () => void;
  private readonly pageEvents: number;
  private closed = false;

  constructor(
    private readonly engine: StorageEngine,
    options: SubscriptionHubOptions = {},
  ) {
    this.pageEvents = options.pageEvents ?? limits.subscriptionPageEvents;
    this.stopListening = engine.onAppend((notice) => {
      // Without a subscription a notice wakes nobody: no key is built and looked up per append.
      if (this.byStream.size === 0 && this.byTenant.size === 0) return;
      this.byStream.get(streamKey(notice.tenant_id, notice.stream_id))?.forEach((s) => s.wake());
      this.byTenant.get(notice.tenant_id)?.forEach((s) => s.wake());
    });
  }

  /** Subscriptions open right now (for status and tests). */
  get size(): number {
    let count = 0;
    for (const set of this.byStream.values()) count += set.size;
    for (const set of this.byTenant.values()) count += set.size;
    return count;
  }

  /**
   * Opens a subscription on an already authorized, validated target and starts delivery.
   * "end" is resolved to the cursor just past what is stored now; anything appended after that
   * instant is found by the subscription's first read, so nothing in between is missed.
   */
  async open(
    target: SubscriptionTarget,
    start: SubscriptionStart,
    sink: SubscriptionSink,
  ): Promise<Subscription> {
    if (this.closed) throw unavailable("the service is shutting down");
    if (target.kind === "stream") {
      // A tombstoned stream will never have an event again: refused, not waited on.
      const info = await this.engine.getStreamInfo(target.tenant_id, target.stream_id);
      if (info?.tombstoned === true) throw streamTombstoned(target.stream_id);
    }
    const from = start === "end" ? await this.endOf(target) : start;
    if (this.closed) throw unavailable("the service is shutting down");
    const subscription = new Subscription(
      target,
      from,
      (t, c, l) => this.read(t, c, l),
      sink,
      this.pageEvents,
    );
    const index = target.kind === "stream" ? this.byStream : this.byTenant;
    const key = target.kind === "stream" ? streamKey(target.tenant_id, target.stream_id) : target.tenant_id;
    let set = index.get(key);
    if (set === undefined) index.set(key, (set = new Set()));
    set.add(subscription);
    subscription.start(() => {
      const current = index.get(key);
      current?.delete(subscription);
      if (current?.size === 0) index.delete(key);
    });
    return subscription;
  }

  /** Stops listening and ends every subscription with UNAVAILABLE (the service is stopping). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopListening();
    const error = unavailable("the service is shutting down");
    for (const index of [this.byStream, this.byTenant]) {
      for (const set of [...index.values()]) for (const s of [...set]) s.fail(error);
    }
  }

  /** The cursor just past what is stored now: where a live-only subscription starts. */
  private async endOf(target: SubscriptionTarget): Promise<number> {
    if (target.kind === "stream") {
      const info = await this.engine.getStreamInfo(target.tenant_id, target.stream_id);
      return info === null || info.last_revision === null ? 0 : info.last_revision + 1;
    }
    const status = await this.engine.status();
    return status.events_total === 0 && status.last_position === 0 ? 0 : status.last_position + 1;
  }

  private read(target: SubscriptionTarget, cursor: number, limit: number): Promise<SubscriptionPage> {
    const key =
      target.kind === "stream"
        ? `s\0${target.tenant_id}\0${target.stream_id}\0${cursor}\0${limit}`
        : `a\0${target.tenant_id}\0${cursor}\0${limit}\0${filterKey(target.filter)}`;
    const shared = this.readsInFlight.get(key);
    if (shared !== undefined) return shared;
    const read = this.readFromStorage(target, cursor, limit).finally(() => this.readsInFlight.delete(key));
    this.readsInFlight.set(key, read);
    return read;
  }

  private async readFromStorage(
    target: SubscriptionTarget,
    cursor: number,
    limit: number,
  ): Promise<SubscriptionPage> {
    if (target.kind === "all") {
      const filtered = isFiltering(target.filter);
      const page = await this.engine.readAll({
        tenant_id: target.tenant_id,
        from_position: cursor,
        limit,
        bytes_max: limits.readPageBytesMax,
        // A filtered catch-up page passes over at most this many events: a checkpoint each.
        ...(filtered ? { filter: target.filter, skip_max: limits.subscriptionCheckpointSkipped } : {}),
      });
      return {
        events: page.events,
        next: page.next_position,
        is_end: page.is_end,
        resume: page.resume_position ?? null,
      };
    }
    try {
      const page = await this.engine.readStream({
        tenant_id: target.tenant_id,
        stream_id: target.stream_id,
        direction: "forward",
        from_revision: cursor,
        limit,
        bytes_max: limits.readPageBytesMax,
      });
      return { events: page.events, next: page.next_revision, is_end: page.is_end };
    } catch (error) {
      // Not there yet, or soft-deleted: nothing to deliver until it is appended to again.
      if (error instanceof EssError && error.code === "STREAM_NOT_FOUND") {
        return { events: [], next: null, is_end: true };
      }
      throw error;
    }
  }
}

/** The filter's part of a shared read's key: reads with the same filter share. */
function filterKey(filter: EventFilter | null | undefined): string {
  return isFiltering(filter) ? JSON.stringify(filter) : "";
}

function streamKey(tenantId: string, streamId: string): string {
  return `${tenantId}\0${streamId}`;
}

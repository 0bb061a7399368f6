/**
 * The subscription operation, shared by the WebSocket interface and gRPC `Streams.Subscribe`:
 * every rule lives here (authentication, roles, tenant scoping, validation, token expiry,
 * per-connection bounds); the transports only translate messages and report backpressure.
 *
 * A SubscriptionSession is one client connection (a WebSocket) or one call (a gRPC stream):
 * - it is authenticated by a bearer token; subscribing before that is UNAUTHENTICATED;
 * - when the token expires, every subscription of the session ends with UNAUTHENTICATED and
 *   `onExpired` is called; a fresh token for the same user, given before, extends the session;
 * - a subscription id is unique within its session, and a session holds at most
 *   limits.subscriptionsPerConnectionMax subscriptions;
 * - `$all` is the caller's tenant only; a stream of another tenant cannot be named (ids are
 *   tenant-scoped), so it reads as a stream that does not exist. An admin may name a tenant.
 */
import { EssError, invalidArgument, toEssError } from "../errors.js";
import type { ServiceMetrics, SubscribeCarrier } from "../metrics/metrics.js";
import { ExpiryTimer } from "../expiry-timer.js";
import { limits } from "../limits.js";
import type { CallContext } from "./contract.js";
import { resolveTenant, type Caller } from "./authenticate.js";
import { allStreamId, parseInteger, parseTenantParam, validateStreamId } from "./validate.js";
import { requireWellFormed } from "../contract/rules.js";
import {
  isFiltering,
  noFilter,
  parseEventFilter,
  type EventFilter,
  type EventFilterRequest,
} from "../contract/event-filter.js";
import type { SubscriptionHub, SubscriptionStart } from "./subscription/hub.js";
import type { Subscription, SubscriptionSink, SubscriptionTarget } from "./subscription/subscription.js";

/** Who holds a session: what a verified bearer token says, with its expiry. */
export type SubscriberIdentity = Caller;

/** Verifies a bearer token; throws UNAUTHENTICATED when it is missing, bad or expired. */
export type AuthenticateCall = (ctx: CallContext) => Promise<SubscriberIdentity>;

/**
 * A subscribe request as a client sent it (the WebSocket message or the gRPC request). The
 * filter fields are $all's only (ReadAll's filters); on a stream they are INVALID_ARGUMENT.
 */
export interface SubscribeRequest extends EventFilterRequest {
  /** Unique within the session; names the subscription in every message about it. */
  id: unknown;
  /** A stream id, or "$all" for the tenant's global order. */
  stream: unknown;
  /** A revision ($all: a position) to start from, inclusive, or "end". Absent: from the start. */
  from?: unknown;
  /** Admin only: subscribe in this tenant instead of its own. */
  tenant?: unknown;
}

export interface ValidSubscribeRequest {
  id: string;
  stream: string;
  from: SubscriptionStart;
  tenant: string | null;
  /** $all only; null: every event. */
  filter: EventFilter | null;
}

/** Bytes of UTF-8 in a subscription id. */
const subscriptionIdBytesMax = 200;

export function validateSubscribeRequest(request: SubscribeRequest): ValidSubscribeRequest {
  const id = validateSubscriptionId(request.id);
  if (request.stream === undefined || request.stream === null) {
    throw invalidArgument("stream is required (a stream id or $all)", { field: "stream" });
  }
  const stream = request.stream === allStreamId ? allStreamId : validateStreamId(request.stream, "stream");
  const from = request.from === "end" ? "end" : parseInteger(request.from, "from", 0);
  const filter = parseEventFilter(request);
  if (stream !== allStreamId && isFiltering(filter)) {
    const field = (Object.keys(filter) as (keyof EventFilter)[]).find((k) =>
      isFiltering({ ...noFilter, [k]: filter[k] }),
    );
    throw invalidArgument("filters apply to $all only", { field: field ?? "stream" });
  }
  return {
    id,
    stream,
    from,
    tenant: parseTenantParam(request.tenant),
    filter: isFiltering(filter) ? filter : null,
  };
}

export function validateSubscriptionId(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || Buffer.byteLength(value) > subscriptionIdBytesMax) {
    throw invalidArgument(`id must be a string of 1 to ${subscriptionIdBytesMax} bytes`, { field: "id" });
  }
  return requireWellFormed(value, "id");
}

export interface SubscriptionServiceOptions {
  hub: SubscriptionHub;
  authenticate: AuthenticateCall;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** The service's metrics: each subscribe request is counted (Streams.Subscribe, by interface). */
  metrics?: ServiceMetrics;
}

export class SubscriptionService {
  constructor(readonly options: SubscriptionServiceOptions) {}

  /** A session of a WebSocket connection or a gRPC Subscribe call (`carrier`, for the metrics). */
  openSession(events: { onExpired: () => void; carrier: SubscribeCarrier }): SubscriptionSession {
    return new SubscriptionSession(this.options, events.onExpired, events.carrier);
  }
}

export class SubscriptionSession {
  private identity: SubscriberIdentity | null = null;
  private readonly expiry: ExpiryTimer;
  private closed = false;
  private readonly subscriptions = new Map<string, Subscription>();
  /** Ids whose subscribe is still opening (reading its start point): taken, but not yet listed. */
  private readonly opening = new Set<string>();

  constructor(
    private readonly options: SubscriptionServiceOptions,
    private readonly onExpired: () => void,
    private readonly carrier: SubscribeCarrier = "ws",
  ) {
    this.expiry = new ExpiryTimer(options.now);
  }

  get isAuthenticated(): boolean {
    return this.identity !== null;
  }

  get subscriptionCount(): number {
    return this.subscriptions.size + this.opening.size;
  }

  /**
   * Authenticates the session with a bearer token, or refreshes it: a later token must be the
   * same user's (a session never changes hands), and it moves the expiry.
   */
  async authenticate(token: string | null): Promise<SubscriberIdentity> {
    const identity = await this.options.authenticate({ token });
    if (this.closed) return identity;
    const current = this.identity;
    if (
      current !== null &&
      (current.username !== identity.username || current.tenant_id !== identity.tenant_id)
    ) {
      throw invalidArgument("a connection stays with one user; open a new connection for another");
    }
    this.identity = identity;
    this.expiry.arm(identity.expires_at_ms, () => this.expire());
    return identity;
  }

  /**
   * Opens a subscription; `sink` gets its events. Authentication comes first: an
   * unauthenticated session's request is UNAUTHENTICATED whatever it holds.
   */
  async subscribe(request: SubscribeRequest, sink: SubscriptionSink): Promise<Subscription> {
    const metrics = this.options.metrics;
    if (metrics === undefined) return this.open(request, sink);
    // Counted from the request to its start point read (or its refusal).
    const started = performance.now();
    try {
      const subscription = await this.open(request, sink);
      metrics.subscribeRequest(this.carrier, null, (performance.now() - started) / 1000);
      return subscription;
    } catch (error) {
      metrics.subscribeRequest(this.carrier, toEssError(error).code, (performance.now() - started) / 1000);
      throw error;
    }
  }

  private async open(request: SubscribeRequest, sink: SubscriptionSink): Promise<Subscription> {
    const identity = this.identity;
    if (identity === null || this.closed) {
      throw new EssError("UNAUTHENTICATED", "authenticate first (Authorization header or an auth message)");
    }
    const valid = validateSubscribeRequest(request);
    if (this.subscriptions.has(valid.id) || this.opening.has(valid.id)) {
      throw invalidArgument(`subscription id '${valid.id}' is in use on this connection`, { field: "id" });
    }
    if (this.subscriptionCount >= limits.subscriptionsPerConnectionMax) {
      throw invalidArgument(
        `a connection holds at most ${limits.subscriptionsPerConnectionMax} subscriptions; unsubscribe first`,
        { limit: limits.subscriptionsPerConnectionMax },
      );
    }
    const tenantId = resolveTenant(identity, valid.tenant);
    const target: SubscriptionTarget =
      valid.stream === allStreamId
        ? { kind: "all", tenant_id: tenantId, filter: valid.filter }
        : { kind: "stream", tenant_id: tenantId, stream_id: valid.stream };
    this.opening.add(valid.id);
    let subscription: Subscription;
    try {
      subscription = await this.options.hub.open(target, valid.from, {
        event: (record) => sink.event(record),
        caughtUp: () => sink.caughtUp(),
        checkpoint: (position) => sink.checkpoint(position),
        whenWritable: () => sink.whenWritable(),
        failed: (error) => {
          this.subscriptions.delete(valid.id);
          sink.failed(error);
        },
      });
    } finally {
      this.opening.delete(valid.id);
    }
    if (this.closed) {
      subscription.close();
    } else if (!subscription.isClosed) {
      // (A subscription may already have failed, its first read refused, before we get here.)
      this.subscriptions.set(valid.id, subscription);
    }
    return subscription;
  }

  /** Ends one subscription quietly; false when the id names none. */
  unsubscribe(id: string): boolean {
    const subscription = this.subscriptions.get(id);
    if (subscription === undefined) return false;
    this.subscriptions.delete(id);
    subscription.close();
    return true;
  }

  /** Ends every subscription quietly (the connection is gone). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.expiry.clear();
    for (const subscription of this.subscriptions.values()) subscription.close();
    this.subscriptions.clear();
  }

  private expire(): void {
    if (this.closed) return;
    this.identity = null;
    const error = new EssError("UNAUTHENTICATED", "the token expired; authenticate again and resubscribe");
    for (const subscription of [...this.subscriptions.values()]) subscription.fail(error);
    this.subscriptions.clear();
    this.onExpired();
  }
}

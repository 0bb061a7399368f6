/**
 * What the fast carrier keeps per client connection (one node:http2 session): its peer, the read
 * budget its unary reads share (held from its first read until it closes), and the context of
 * the last `authorization` header it sent: a client sends the same header call after call, so it
 * is parsed once per connection, not once per call.
 */
import type * as http2 from "node:http2";
import { contextOfHeader } from "../../operations/authenticate.js";
import { contextWith, type CallContext } from "../../operations/contract.js";
import type { ConnectionReadBudget, ConnectionReadBudgets } from "../connection-read-budget.js";

/** A socket's peer as `address:port`, an IPv6 address in brackets (what the hop passes on: ./hop.ts). */
export function formatPeer(address: string | undefined, port: number | undefined): string {
  if (address === undefined) return "unknown";
  return address.includes(":") ? `[${address}]:${port ?? 0}` : `${address}:${port ?? 0}`;
}

export class FastConnection {
  private budget: ConnectionReadBudget | null = null;
  private lastAuthorization: string | undefined = undefined;
  /** The last header's context, with the carrier: what every call's context copies. */
  private lastContext: CallContext = { token: null, carrier: "fast" };

  constructor(
    readonly peer: string,
    private readonly budgets: ConnectionReadBudgets,
  ) {}

  /** The connection closed: its budget goes once its reads' calls let go of it too. */
  closed(): void {
    if (this.budget !== null) this.budgets.release(this.peer);
    this.budget = null;
  }

  /** A fresh context for a call with this `authorization` header (absent: no token) and request id. */
  contextOf(authorization: string | undefined, requestId: string): CallContext {
    if (authorization === undefined) return { token: null, carrier: "fast", request_id: requestId };
    if (authorization !== this.lastAuthorization) {
      this.lastContext = contextWith(contextOfHeader(authorization), { carrier: "fast" });
      this.lastAuthorization = authorization;
    }
    return contextWith(this.lastContext, { request_id: requestId });
  }

  /** The budget of this connection's unary reads (../connection-read-budget.ts). */
  readBudget(): ConnectionReadBudget {
    this.budget ??= this.budgets.hold(this.peer);
    return this.budget;
  }
}

/** The FastConnection of each session, made when its first stream comes. */
export class FastConnections {
  private readonly bySession = new WeakMap<http2.Http2Session, FastConnection>();

  constructor(private readonly budgets: ConnectionReadBudgets) {}

  of(stream: http2.ServerHttp2Stream): FastConnection {
    const session = stream.session;
    // A stream has its session while its handler runs; this only satisfies the type.
    if (session === undefined) return new FastConnection("unknown", this.budgets);
    let connection = this.bySession.get(session);
    if (connection === undefined) {
      const made = new FastConnection(
        formatPeer(session.socket?.remoteAddress, session.socket?.remotePort),
        this.budgets,
      );
      session.once("close", () => made.closed());
      this.bySession.set(session, made);
      connection = made;
    }
    return connection;
  }
}

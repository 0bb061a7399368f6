/**
 * The calls that do not end by themselves (Subscribe, health Watch, the sessions), held so that
 * the server can end them when it stops: otherwise a graceful shutdown would wait for them
 * forever. A stream ends with UNAVAILABLE at once; a session first answers the requests it has
 * started (../pipelined-session.ts).
 */
import { EssError } from "../../errors.js";
import type { ServerStreamCall } from "./method.js";

export function shuttingDown(): EssError {
  return new EssError("UNAVAILABLE", "the service is shutting down");
}

export class LongLivedCalls {
  private stopping = false;
  private readonly streams = new Set<ServerStreamCall<never>>();
  private readonly sessions = new Set<{ shutdown(): void }>();

  /** True once the server stops: new long-lived calls are refused. */
  get isStopping(): boolean {
    return this.stopping;
  }

  /** Holds `call` until it ends. */
  addStream(call: ServerStreamCall<never>): void {
    this.streams.add(call);
    call.onEnd(() => this.streams.delete(call));
  }

  addSession(session: { shutdown(): void }): void {
    this.sessions.add(session);
  }

  deleteSession(session: { shutdown(): void }): void {
    this.sessions.delete(session);
  }

  /** Ends every stream with UNAVAILABLE and shuts every session down. */
  stop(): void {
    this.stopping = true;
    for (const call of [...this.streams]) call.end(shuttingDown());
    this.streams.clear();
    for (const session of [...this.sessions]) session.shutdown();
  }
}

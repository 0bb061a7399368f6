/**
 * How reads run, whichever carrier brings them: a unary Read or ReadAll within its connection's
 * budget (../connection-read-budget.ts: the bytes of its answers not yet written), then, like a
 * read session's reads, one per event-loop turn through the server's TurnQueue
 * (../turn-queue.ts), so each answer leaves before the next read of the same batch starts. A
 * call cancelled while it waited is not run.
 */
import type { CallContext } from "../../operations/contract.js";
import type { EventRecord } from "../../contract/bodies.js";
import { eventPayloadBytes } from "../../contract/stored-event-record.js";
import type { TurnQueue } from "../turn-queue.js";
import { runOperation, type UnaryMethod } from "./method.js";

/** A read's result: a page of events. */
export interface ReadPage {
  events: EventRecord[];
}

/** An answer's weight: its events' data and metadata, as the connection budget and the sessions weigh it. */
export function pageBytes(page: ReadPage): number {
  let bytes = 0;
  for (const event of page.events) bytes += eventPayloadBytes(event);
  return bytes;
}

/** A unary read method's `serve`: `run` within the connection's budget, one read per turn. */
export function servedAsRead<Request, Result extends ReadPage>(
  queue: TurnQueue,
  run: (ctx: CallContext, request: Request) => Promise<Result>,
): UnaryMethod<Request, Result>["serve"] {
  return (call, request, done) => {
    call.readBudget().admit(call.stream, (grant) =>
      queue.run(() => {
        if (call.cancelled) {
          grant.release();
          return;
        }
        runOperation(run, call.ctx, request, (outcome) => {
          grant.settle(outcome.error === null ? pageBytes(outcome.result) : 0);
          done(outcome);
        });
      }),
    );
  };
}

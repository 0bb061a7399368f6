/**
 * How unary reads run, whichever carrier brings them: a Read or ReadAll runs once its
 * connection's budget admits it (../connection-read-budget.ts: the bytes of its answers not yet
 * written), at once when there is room. A call cancelled while it waited is not run.
 */
import type { CallContext } from "../../operations/contract.js";
import type { EventRecord } from "../../contract/bodies.js";
import { eventPayloadBytes } from "../../contract/stored-event-record.js";
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

/** A unary read method's `serve`: `run` within the connection's budget. */
export function servedAsRead<Request, Result extends ReadPage>(
  run: (ctx: CallContext, request: Request) => Promise<Result>,
): UnaryMethod<Request, Result>["serve"] {
  return (call, request, done) => {
    call.readBudget().admit(call.stream, (grant) => {
      if (call.cancelled) {
        grant.release();
        return;
      }
      runOperation(run, call.ctx, request, (outcome) => {
        grant.settle(outcome.error === null ? pageBytes(outcome.result) : 0);
        done(outcome);
      });
    });
  };
}

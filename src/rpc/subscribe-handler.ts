/**
 * gRPC `Streams.Subscribe`: the same subscription as the WebSocket interface, over one server
 * stream per subscription. It only translates; the rules live in ../operations/subscribe.ts.
 *
 * Invariants:
 * - the token is verified first, then the request (the order every operation keeps);
 * - `write()` answering false closes the call's gate: the subscription stops sending until
 *   'drain', and resumes from storage. A call whose gate stays closed past the stall timeout
 *   ends with UNAVAILABLE ("subscriber stalled"), so one slow client never holds memory for long;
 * - the call ends exactly once: with a status for an error (expired token: UNAUTHENTICATED),
 *   quietly when the client cancels; the subscription is closed either way.
 */
import { EssError, toEssError } from "../errors.js";
import { limits } from "../limits.js";
import type { CallContext } from "../operations/contract.js";
import { FlowGate } from "../operations/subscription/flow-gate.js";
import type { SubscriptionSink } from "../operations/subscription/subscription.js";
import type { SubscriptionService } from "../operations/subscribe.js";
import { toPbEventRecord } from "./convert.js";
import { toServiceError } from "./error-mapping.js";
import type { SubscribeCall } from "./server.js";

export interface SubscribeHandlerOptions {
  /** Milliseconds a call may stay unable to take more before it ends. Default limits.subscriberStallMsMax. */
  stallMsMax?: number;
}

export function createSubscribeHandler(
  service: SubscriptionService,
  options: SubscribeHandlerOptions = {},
): (ctx: CallContext, call: SubscribeCall) => void {
  const stallMsMax = options.stallMsMax ?? limits.subscriberStallMsMax;
  return (ctx, call) => {
    let ended = false;
    const end = (error: EssError | null): void => {
      if (ended) return;
      ended = true;
      session.close();
      gate.dispose();
      if (call.cancelled) return;
      if (error === null) call.end();
      else call.emit("error", toServiceError(error));
    };
    const session = service.openSession({
      onExpired: () =>
        end(new EssError("UNAUTHENTICATED", "the token expired; authenticate again and resubscribe")),
    });
    const gate = new FlowGate({
      stallMsMax,
      onStall: () =>
        end(new EssError("UNAVAILABLE", `subscriber stalled: not reading for more than ${stallMsMax} ms`)),
    });
    call.on("drain", () => gate.unblock());
    call.on("cancelled", () => end(null));
    call.on("close", () => end(null));
    call.on("error", () => end(null));

    const write = (message: Parameters<SubscribeCall["write"]>[0]): boolean => {
      if (ended) return false;
      if (call.cancelled || !call.writable) {
        end(null);
        return false;
      }
      const more = call.write(message);
      if (!more) gate.block();
      return more;
    };
    const sink: SubscriptionSink = {
      event: (record) => write({ event: toPbEventRecord(record) }),
      caughtUp: () => void write({ caught_up: {} }),
      whenWritable: () => (ended ? null : gate.whenOpen()),
      failed: (error) => end(error),
    };
    const request = {
      id: "grpc",
      stream: call.request.stream_id,
      from: call.request.from,
      tenant: call.request.tenant,
    };
    void (async () => {
      try {
        // Authentication first: without a valid token the answer is UNAUTHENTICATED whatever
        // the request holds (session.subscribe validates it next).
        await session.authenticate(ctx.token);
        if (ended) return;
        await session.subscribe(request, sink);
      } catch (error) {
        end(toEssError(error));
      }
    })();
  };
}

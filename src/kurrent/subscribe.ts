/**
 * KurrentDB's catch-up subscriptions (`Streams.Read` with `subscription`) over the subscription
 * operation that the WebSocket interface and `ess.v1 Streams.Subscribe` use
 * (../operations/subscribe.ts): the rules, tenancy and token expiry are the same; the adapter
 * only translates (docs/kurrent.md, "Subscriptions"):
 * - `confirmation` first, then the history, `caught_up` once, then live events, in order, without
 *   gaps or duplicates;
 * - the start point is exclusive (KurrentDB's rule; ess's `from` is inclusive, hence +1), `start`
 *   is the beginning, `end` live only; a stream that does not exist yet is simply waited for;
 * - backpressure as on the other interfaces: past limits.subscriberBufferBytesMax unwritten the
 *   subscription pauses and resumes from storage; a client that stays stalled past
 *   limits.subscriberStallMsMax is cut off (UNAVAILABLE) and its subscription freed;
 * - the client ends a subscription by cancelling the call; the subscription closes with it.
 */
import { randomUUID } from "node:crypto";
import { EssError, invalidArgument, toEssError } from "../errors.js";
import { limits } from "../limits.js";
import type { CallContext } from "../operations/contract.js";
import { ByteWindow, FlowGate } from "../operations/subscription/flow-gate.js";
import type { SubscriptionSink } from "../operations/subscription/subscription.js";
import type { ReadResp } from "../rpc/generated/kurrent/event_store/client/streams/ReadResp.js";
import { filterOf, streamNameOf, uint64Number, type UuidForm } from "./convert.js";
import { encodeReadEvent } from "./codec.js";
import type { EventFilterRequest } from "../contract/event-filter.js";
import { kurrentStatus } from "./errors.js";
import type { KurrentDeps } from "./deps.js";
import type { ReadCall, ReadOptions } from "./read.js";

/** What one message weighs beyond its data and metadata (ids, type, framing, the objects holding it). */
const messageOverheadBytes = 512;

/** The ess subscribe request (stream and inclusive start) of a KurrentDB subscription's options. */
function subscribeTarget(
  options: ReadOptions,
): { stream: string; from: number | "end" | undefined } & EventFilterRequest {
  if (options.stream_option === "stream") {
    if (options.filter_option === "filter")
      throw invalidArgument("a filter applies to $all subscriptions only");
    const stream = options.stream;
    const name = streamNameOf(stream?.stream_identifier);
    if (stream?.revision_option === "end") return { stream: name, from: "end" };
    if (stream?.revision_option === "revision")
      return { stream: name, from: uint64Number(stream.revision) + 1 };
    return { stream: name, from: undefined };
  }
  if (options.stream_option === "all") {
    const all = options.all;
    const filter = filterOf(options);
    if (all?.all_option === "end") return { ...filter, stream: "$all", from: "end" };
    if (all?.all_option === "position") {
      return { ...filter, stream: "$all", from: uint64Number(all.position?.commit_position) + 1 };
    }
    return { ...filter, stream: "$all", from: undefined };
  }
  throw invalidArgument("a subscription names a stream or $all");
}

export async function serveSubscription(
  deps: KurrentDeps,
  call: ReadCall,
  ctx: CallContext,
  options: ReadOptions,
  form: UuidForm,
): Promise<void> {
  if (options.read_direction === "Backwards") throw invalidArgument("a subscription reads forwards");
  const target = subscribeTarget(options);
  let ended = false;
  const end = (error: EssError | null): void => {
    if (ended) return;
    ended = true;
    deps.openSubscriptions.delete(end);
    session.close();
    gate.dispose();
    if (call.cancelled || call.destroyed) return;
    if (error === null) call.end();
    else call.emit("error", kurrentStatus(error));
  };
  const session = deps.subscriptions.openSession({
    carrier: "kurrent",
    onExpired: () => end(new EssError("UNAUTHENTICATED", "the credentials expired; subscribe again")),
  });
  const gate = new FlowGate({
    stallMsMax: limits.subscriberStallMsMax,
    onStall: () =>
      end(
        new EssError("UNAVAILABLE", `subscriber stalled: not reading for ${limits.subscriberStallMsMax} ms`),
      ),
  });
  const window = new ByteWindow(gate, limits.subscriberBufferBytesMax);
  deps.openSubscriptions.add(end);
  call.on("cancelled", () => end(null));
  call.on("close", () => end(null));

  const write = (message: ReadResp | Buffer, bytes: number): boolean => {
    if (ended) return false;
    const open = window.add(bytes);
    call.write(message, () => {
      if (!ended) window.release(bytes);
    });
    return open;
  };
  const sink: SubscriptionSink = {
    event: (record) => {
      const message = encodeReadEvent(record, form);
      return write(message, message.length + messageOverheadBytes);
    },
    caughtUp: () => void write({ caught_up: { timestamp: timestampNow() } }, messageOverheadBytes),
    // ess's checkpoint is where to resume, inclusive; KurrentDB's is the last position passed
    // (clients resume after it).
    checkpoint: (position) => {
      const passed = String(Math.max(0, position - 1));
      void write(
        { checkpoint: { commit_position: passed, prepare_position: passed, timestamp: timestampNow() } },
        messageOverheadBytes,
      );
    },
    whenWritable: () => (ended ? null : gate.whenOpen()),
    failed: (error) => end(error),
  };
  try {
    await session.authenticate(ctx.token);
    if (ended) return;
    write({ confirmation: { subscription_id: randomUUID() } }, messageOverheadBytes);
    await session.subscribe({ ...target, id: "kurrent" }, sink);
  } catch (error) {
    end(toEssError(error));
  }
}

function timestampNow(): { seconds: string; nanos: number } {
  const ms = Date.now();
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

/**
 * KurrentDB's `Streams.Read` with a count: a stream or `$all`, forwards or backwards, as many
 * events as asked for (up to 2^53-1: "to the end"), paged through the operations' Read and
 * ReadAll, limits.kurrentReadPageEvents at a time, each page written before the next is read and
 * held back while the client does not take it (docs/kurrent.md, "Reads"). The same call with
 * `subscription` instead of a count is a catch-up subscription (./subscribe.ts).
 *
 * KurrentDB's answers kept here: a stream that does not exist (or is soft-deleted) is a
 * `stream_not_found` message with status OK; a name starting with `$` other than the ones served
 * reads as not found; a read from a revision or position includes it.
 */
import type * as grpc from "@grpc/grpc-js";
import { invalidArgument, toEssError } from "../errors.js";
import { limits } from "../limits.js";
import type { EventRecord, ReadDirection } from "../contract/bodies.js";
import type { CallContext } from "../operations/contract.js";
import type { ReadReq__Output } from "../rpc/generated/kurrent/event_store/client/streams/ReadReq.js";
import type { ReadResp } from "../rpc/generated/kurrent/event_store/client/streams/ReadResp.js";
import { encodeReadEvent } from "./codec.js";
import { filterOf, streamIdentifier, streamNameOf, uint64Number, type UuidForm } from "./convert.js";
import { kurrentStatus } from "./errors.js";
import type { KurrentDeps } from "./deps.js";
import { serveSubscription } from "./subscribe.js";
import { metastreamOf, readMetastream } from "./metastream.js";

export type ReadOptions = NonNullable<ReadReq__Output["options"]>;
/** A read's answers: messages for protobufjs, or one already encoded (an event, ./codec.ts). */
export type ReadCall = grpc.ServerWritableStream<ReadReq__Output, ReadResp | Buffer>;

export function readHandler(
  deps: KurrentDeps,
): grpc.handleServerStreamingCall<ReadReq__Output, ReadResp | Buffer> {
  return (call) => {
    void (async () => {
      try {
        const ctx = await deps.contextOf(call);
        // Authentication first: without valid credentials the answer is access denied, whatever the request.
        ctx.caller = await deps.operations.authenticate(ctx);
        const options = call.request.options;
        if (!options) throw invalidArgument("a read needs its options");
        const form: UuidForm = options.uuid_option?.content === "structured" ? "structured" : "string";
        if (options.count_option === "subscription") {
          await serveSubscription(deps, call, ctx, options, form);
          return;
        }
        if (options.filter_option === "filter" && options.stream_option !== "all") {
          throw invalidArgument("a filter applies to $all reads only");
        }
        const count = uint64Number(options.count);
        const direction: ReadDirection = options.read_direction === "Backwards" ? "backward" : "forward";
        if (options.stream_option === "stream")
          await readStream(deps, call, ctx, options, count, direction, form);
        else if (options.stream_option === "all")
          await readAll(deps, call, ctx, options, count, direction, form);
        else throw invalidArgument("a read names a stream or $all");
        call.end();
      } catch (error) {
        if (!call.cancelled) call.emit("error", kurrentStatus(toEssError(error)));
      }
    })();
  };
}

/** Writes one message, waiting while the client is behind; false once the call is gone. */
export async function send(call: ReadCall, message: ReadResp | Buffer): Promise<boolean> {
  if (call.cancelled || call.destroyed) return false;
  if (!call.write(message)) await drainedOrClosed(call);
  return !call.cancelled && !call.destroyed;
}

/** Resolves once the call can take more, or is gone; leaves no listener behind. */
function drainedOrClosed(call: ReadCall): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      call.off("drain", done);
      call.off("close", done);
      resolve();
    };
    call.on("drain", done);
    call.on("close", done);
  });
}

/**
 * Writes the first `count` events of a page, one message each, waiting only while the client is
 * behind (no promise per event); false once the call is gone.
 */
async function sendEvents(
  call: ReadCall,
  events: readonly EventRecord[],
  count: number,
  form: UuidForm,
): Promise<boolean> {
  const n = Math.min(count, events.length);
  for (let i = 0; i < n; i++) {
    if (call.cancelled || call.destroyed) return false;
    if (!call.write(encodeReadEvent(events[i]!, form))) await drainedOrClosed(call);
  }
  return !call.cancelled && !call.destroyed;
}

async function readStream(
  deps: KurrentDeps,
  call: ReadCall,
  ctx: CallContext,
  options: ReadOptions,
  count: number,
  direction: ReadDirection,
  form: UuidForm,
): Promise<void> {
  const stream = options.stream;
  const name = streamNameOf(stream?.stream_identifier);
  const notFound = (): Promise<boolean> =>
    send(call, { stream_not_found: { stream_identifier: streamIdentifier(name) } });
  const metastreamOfName = metastreamOf(name);
  if (metastreamOfName !== null) {
    const record = await readMetastream(deps, ctx, metastreamOfName);
    if (record === null) await notFound();
    else if (count > 0) await send(call, encodeReadEvent(record, form));
    return;
  }
  // ess stream ids never start with '$': KurrentDB's system streams ($ce-, $et-, ...) do not exist here.
  if (name.startsWith("$")) {
    await notFound();
    return;
  }
  let from: number | undefined;
  if (stream?.revision_option === "revision") from = uint64Number(stream.revision);
  else if (stream?.revision_option === "end" && direction === "forward") from = Number.MAX_SAFE_INTEGER;
  else if (stream?.revision_option === "start" || direction === "forward") from = 0;
  let remaining = count;
  let first = true;
  while (remaining > 0 || first) {
    let page;
    try {
      page = await deps.operations.read(ctx, {
        stream_id: name,
        from,
        limit: Math.max(1, Math.min(remaining, limits.kurrentReadPageEvents)),
        direction,
      });
    } catch (error) {
      if (toEssError(error).code === "STREAM_NOT_FOUND") {
        await notFound();
        return;
      }
      throw error;
    }
    first = false;
    if (!(await sendEvents(call, page.events, remaining, form))) return;
    remaining -= page.events.length;
    if (page.is_end || page.next_revision === null) return;
    from = page.next_revision;
  }
}

async function readAll(
  deps: KurrentDeps,
  call: ReadCall,
  ctx: CallContext,
  options: ReadOptions,
  count: number,
  direction: ReadDirection,
  form: UuidForm,
): Promise<void> {
  const all = options.all;
  let from: number | undefined;
  if (all?.all_option === "position") from = uint64Number(all.position?.commit_position);
  else if (all?.all_option === "end" && direction === "forward") return;
  else if (all?.all_option === "start" && direction === "backward") return;
  const filter = filterOf(options);
  let remaining = count;
  while (remaining > 0) {
    // A filtered page may hold fewer events than asked, even none: it always moves next_position on.
    const page = await deps.operations.readAll(ctx, {
      ...filter,
      from_position: from,
      limit: Math.min(remaining, limits.kurrentReadPageEvents),
      direction,
    });
    if (!(await sendEvents(call, page.events, remaining, form))) return;
    remaining -= page.events.length;
    if (page.is_end || page.next_position === null) return;
    from = page.next_position;
  }
}

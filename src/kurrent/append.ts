/**
 * KurrentDB's `Streams.Append` (client-streaming: the options, then one message per event) over
 * `Streams.Append` of the operations: one ess append, atomic as every append is. The adapter only
 * translates (docs/kurrent.md, "Append"):
 * - every event's metadata map must hold `type` and `content-type`, else INVALID_ARGUMENT with
 *   the `missing-required-metadata-property` exception the clients expect;
 * - the events are held until the client ends its stream, bounded by the append limits of
 *   limits.ts (past them: `maximum-append-size-exceeded`, at once, without reading further);
 * - a wrong expected revision is an answer, not a status: `wrong_expected_version` with status
 *   OK, as KurrentDB answers it.
 */
import type * as grpc from "@grpc/grpc-js";
import { EssError, invalidArgument, payloadTooLarge, streamTombstoned, toEssError } from "../errors.js";
import { checkExpectedMetadataRevision, checkExpectedRevision } from "../contract/stream-metadata.js";
import { requireRole } from "../operations/authenticate.js";
import { limits } from "../limits.js";
import type { AppendEventInput, ExpectedRevision } from "../contract/bodies.js";
import type { CallContext } from "../operations/contract.js";
import { appendMetastream, metadataRevisionExpected, metastreamOf } from "./metastream.js";
import type { AppendReq__Output } from "../rpc/generated/kurrent/event_store/client/streams/AppendReq.js";
import type { AppendResp } from "../rpc/generated/kurrent/event_store/client/streams/AppendResp.js";
import { MalformedRequest } from "../rpc/malformed-request.js";
import { proposedEvent, streamNameOf, uint64Number } from "./convert.js";
import { kurrentStatus, missingMetadataStatus, type KurrentStatus } from "./errors.js";
import type { KurrentDeps } from "./deps.js";

type AppendOptions = NonNullable<AppendReq__Output["options"]>;

/**
 * An expected revision in ess's terms, from the oneof of an append's, delete's or tombstone's
 * options (`choice`: which member is set; "revision" and BatchAppend's "stream_position" carry
 * the number `revision`).
 */
export function expectedRevisionOf(
  choice: string | undefined,
  revision: string | undefined,
): ExpectedRevision {
  switch (choice) {
    case "revision":
    case "stream_position":
      return uint64Number(revision);
    case "no_stream":
      return "no_stream";
    case "stream_exists":
      return "stream_exists";
    default:
      return "any";
  }
}

/**
 * What an append gives back in KurrentDB's terms: the last revision (null: the stream has none,
 * KurrentDB's `no_stream`, for an append of no events), and its position (none for a metastream
 * or an append of no events).
 */
export interface Appended {
  revision: number | null;
  position: number | null;
}

/**
 * Appends `events` to the stream KurrentDB calls `name`: an ess append, or for a metastream
 * (`$$name`) the stream's metadata (./metastream.ts). One place for Append and BatchAppend.
 */
export async function appendEvents(
  deps: KurrentDeps,
  ctx: CallContext,
  name: string,
  expected: ExpectedRevision,
  events: AppendEventInput[],
): Promise<Appended> {
  if (events.length === 0) return checkEmptyAppend(deps, ctx, name, expected);
  const metastreamOfName = metastreamOf(name);
  if (metastreamOfName !== null) {
    return {
      revision: await appendMetastream(deps, ctx, metastreamOfName, expected, events),
      position: null,
    };
  }
  const result = await deps.operations.append(ctx, { stream_id: name, events, expected_revision: expected });
  return { revision: result.last_revision, position: result.position };
}

/**
 * An append of no events, which KurrentDB accepts as a check of the expected revision: nothing is
 * written (ess appends hold 1..1000 events); the caller must be allowed to append, and the
 * answer is the stream's last revision, or no_stream, without a position. Not atomic with later
 * appends, as it is not on KurrentDB either: it says what the stream was when it was asked.
 */
async function checkEmptyAppend(
  deps: KurrentDeps,
  ctx: CallContext,
  name: string,
  expected: ExpectedRevision,
): Promise<Appended> {
  requireRole(await deps.operations.authenticate(ctx), "writer");
  const metastreamOfName = metastreamOf(name);
  if (metastreamOfName !== null) {
    const document = await deps.operations.getMetadata(ctx, { stream_id: metastreamOfName });
    const current = document.metadata_revision;
    checkExpectedMetadataRevision(name, metadataRevisionExpected(expected), current);
    return { revision: current, position: null };
  }
  let last = -1;
  let live = false;
  try {
    const info = await deps.operations.getInfo(ctx, { stream_id: name });
    if (info.tombstoned === true) throw streamTombstoned(name);
    last = info.last_revision ?? -1;
    live = last >= 0 && !info.deleted;
  } catch (error) {
    if (!(error instanceof EssError && error.code === "STREAM_NOT_FOUND")) throw error;
  }
  checkExpectedRevision(name, expected, last, live);
  return { revision: live ? last : null, position: null };
}

/** The Success of an append (AppendResp's and BatchAppendResp's have the same fields). */
export function appendSuccess(appended: Appended) {
  const position = appended.position === null ? null : String(appended.position);
  return {
    ...(appended.revision === null ? { no_stream: {} } : { current_revision: String(appended.revision) }),
    ...(position === null
      ? { no_position: {} }
      : { position: { commit_position: position, prepare_position: position } }),
  };
}

/** AppendResp.wrong_expected_version of a WRONG_EXPECTED_REVISION error (both field generations). */
export function wrongExpectedVersion(error: EssError): AppendResp {
  const { expected, actual } = error.details;
  const current =
    typeof actual === "number"
      ? { current_revision: String(actual), current_revision_20_6_0: String(actual) }
      : { current_no_stream: {}, no_stream_20_6_0: {} };
  const wanted =
    typeof expected === "number"
      ? { expected_revision: String(expected), expected_revision_20_6_0: String(expected) }
      : expected === "no_stream"
        ? { expected_no_stream: {}, no_stream_20_6_0: {} }
        : expected === "stream_exists"
          ? { expected_stream_exists: {}, stream_exists_20_6_0: {} }
          : { expected_any: {}, any_20_6_0: {} };
  return { wrong_expected_version: { ...current, ...wanted } };
}

export function appendHandler(
  deps: KurrentDeps,
): grpc.handleClientStreamingCall<AppendReq__Output | MalformedRequest, AppendResp> {
  return (call, callback) => {
    let options: AppendOptions | null = null;
    const events: AppendEventInput[] = [];
    let bytes = 0;
    let answered = false;
    const answer = (status: KurrentStatus | null, response?: AppendResp): void => {
      if (answered) return;
      answered = true;
      if (status !== null) callback(status);
      else callback(null, response);
    };
    const refuse = (error: unknown): void => answer(kurrentStatus(toEssError(error)));
    // Started at once: a Basic login runs while the events arrive.
    const context = deps.contextOf(call);
    context.catch(() => undefined);

    call.on("data", (request: AppendReq__Output | MalformedRequest) => {
      if (answered) return;
      try {
        if (request instanceof MalformedRequest) throw request.error;
        if (request.content === "options" && request.options) {
          if (options !== null) throw invalidArgument("the append's options were sent twice");
          options = request.options;
          return;
        }
        if (request.content !== "proposed_message" || !request.proposed_message) {
          throw invalidArgument("an append message holds options or an event");
        }
        if (options === null) throw invalidArgument("the append's options must come first");
        const message = request.proposed_message;
        if (!message.metadata.type || !message.metadata["content-type"]) {
          answer(missingMetadataStatus());
          return;
        }
        bytes += message.data.length + message.custom_metadata.length;
        if (events.length >= limits.appendEventsMax || bytes > limits.appendBodyBytesMax) {
          throw payloadTooLarge(
            `one append holds at most ${limits.appendEventsMax} events and ${limits.appendBodyBytesMax} bytes`,
          );
        }
        events.push(proposedEvent(message, `events[${events.length}]`));
      } catch (error) {
        refuse(error);
      }
    });
    call.on("end", () => {
      if (answered) return;
      void (async () => {
        try {
          if (options === null) throw invalidArgument("the append's options are missing");
          const ctx = await context;
          const name = streamNameOf(options.stream_identifier);
          const appended = await appendEvents(
            deps,
            ctx,
            name,
            expectedRevisionOf(options.expected_stream_revision, options.revision),
            events,
          );
          answer(null, { success: appendSuccess(appended) });
        } catch (error) {
          const essError = toEssError(error);
          if (essError.code === "WRONG_EXPECTED_REVISION") answer(null, wrongExpectedVersion(essError));
          else refuse(essError);
        }
      })();
    });
    call.on("error", () => answer({ ...kurrentStatus(new EssError("UNAVAILABLE", "the call failed")) }));
  };
}

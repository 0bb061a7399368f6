/**
 * KurrentDB's `Streams.BatchAppend`: one long-lived bidirectional stream per client, on which each
 * append is a batch of messages sharing a correlation id (options on the first, events spread over
 * several, `is_final` on the last) and is answered by one message with that correlation id. Each
 * batch is one ess append through the operations, atomic and acknowledged once durable, as on
 * every interface (docs/kurrent.md, "Append"). Batches of one stream are independent: several may
 * be in flight, each answered when done.
 *
 * Errors travel inside the answer, as KurrentDB sends them: a google.rpc.Status whose `details`
 * is an Any naming an event_store.client message (WrongExpectedVersion, StreamDeleted,
 * AccessDenied, MaximumAppendSizeExceeded, else Unknown); the clients read the type's name, and a
 * missing `details` makes them throw, so there is always one. A malformed message (no correlation
 * id, events before options) ends the whole call with INVALID_ARGUMENT.
 *
 * Bounds: a batch holds at most the append limits of limits.ts (past them it is answered
 * `MaximumAppendSizeExceeded` at once and its later messages are dropped), and a call holds at
 * most limits.kurrentBatchesOpenMax batches not yet final.
 */
import * as grpc from "@grpc/grpc-js";
import type { EssError } from "../errors.js";
import { invalidArgument, payloadTooLarge, toEssError } from "../errors.js";
import { limits } from "../limits.js";
import type { AppendEventInput, ExpectedRevision } from "../contract/bodies.js";
import type { CallContext } from "../operations/contract.js";
import type { BatchAppendReq__Output } from "../rpc/generated/kurrent/event_store/client/streams/BatchAppendReq.js";
import type { BatchAppendResp } from "../rpc/generated/kurrent/event_store/client/streams/BatchAppendResp.js";
import { MalformedRequest } from "../rpc/malformed-request.js";
import { proposedEvent, streamIdentifier, streamNameOf, uuidMessage, uuidText } from "./convert.js";
import { kurrentStatus } from "./errors.js";
import { appendEvents, expectedRevisionOf } from "./append.js";
import { encodeBatchAppendSuccess } from "./codec.js";
import { encodeDetail } from "./proto.js";
import type { KurrentDeps } from "./deps.js";

interface OpenBatch {
  streamName: string;
  expected: ExpectedRevision;
  events: AppendEventInput[];
  bytes: number;
  /** Answered already (refused past a bound): later messages of the batch are dropped. */
  refused: boolean;
}

/** The google.rpc.Status of a failed batch, with the detail message its client recognises. */
function batchError(error: EssError): NonNullable<BatchAppendResp["error"]> {
  const status = (code: grpc.status, name: string, fields: Record<string, unknown> = {}) => ({
    code,
    message: error.message,
    details: encodeDetail(name, fields),
  });
  switch (error.code) {
    case "WRONG_EXPECTED_REVISION": {
      const { expected, actual } = error.details;
      return status(grpc.status.ALREADY_EXISTS, "WrongExpectedVersion", {
        ...(typeof actual === "number"
          ? { current_stream_revision: String(actual) }
          : { current_no_stream: {} }),
        ...(typeof expected === "number"
          ? { expected_stream_position: String(expected) }
          : expected === "no_stream"
            ? { expected_no_stream: {} }
            : expected === "stream_exists"
              ? { expected_stream_exists: {} }
              : { expected_any: {} }),
      });
    }
    case "STREAM_TOMBSTONED":
      return status(grpc.status.NOT_FOUND, "StreamDeleted", {
        stream_identifier: streamIdentifier(
          typeof error.details.stream_id === "string" ? error.details.stream_id : "",
        ),
      });
    case "UNAUTHENTICATED":
    case "PERMISSION_DENIED":
      return status(grpc.status.PERMISSION_DENIED, "AccessDenied");
    case "PAYLOAD_TOO_LARGE":
      return status(grpc.status.INVALID_ARGUMENT, "MaximumAppendSizeExceeded", {
        maxAppendSize: limits.appendBodyBytesMax,
      });
    default:
      return status(kurrentStatus(error).code, "Unknown");
  }
}

export function batchAppendHandler(
  deps: KurrentDeps,
): grpc.handleBidiStreamingCall<BatchAppendReq__Output | MalformedRequest, BatchAppendResp | Buffer> {
  return (call) => {
    const open = new Map<string, OpenBatch>();
    let ended = false;
    /** The client has sent its last message: the call ends once every batch is answered. */
    let halfClosed = false;
    let answering = 0;
    const context: Promise<CallContext> = deps.contextOf(call);
    context.catch(() => undefined);
    /** The call's context once known: later batches go to the operations without waiting a turn for it. */
    let known: CallContext | null = null;
    void context.then(
      (ctx) => (known = ctx),
      () => undefined,
    );
    const endWith = (error: EssError): void => {
      if (ended) return;
      ended = true;
      call.emit("error", kurrentStatus(error));
    };
    const answer = (result: Promise<BatchAppendResp | Buffer>): void => {
      answering += 1;
      void result.then((response) => {
        answering -= 1;
        if (ended || call.cancelled) return;
        call.write(response);
        if (halfClosed && answering === 0) finish();
      });
    };
    const finish = (): void => {
      if (ended) return;
      ended = true;
      call.end();
    };
    const failure = (id: string, batch: OpenBatch, error: EssError): BatchAppendResp => ({
      correlation_id: uuidMessage(id, "string"),
      stream_identifier: streamIdentifier(batch.streamName),
      error: batchError(error),
    });
    const refuse = (id: string, batch: OpenBatch, error: EssError): void => {
      batch.refused = true;
      answer(Promise.resolve(failure(id, batch, error)));
    };
    const append = async (ctx: CallContext | Promise<CallContext>, id: string, batch: OpenBatch) => {
      try {
        const appended = await appendEvents(deps, await ctx, batch.streamName, batch.expected, batch.events);
        return encodeBatchAppendSuccess(id, batch.streamName, appended);
      } catch (error) {
        return failure(id, batch, toEssError(error));
      }
    };

    call.on("data", (request: BatchAppendReq__Output | MalformedRequest) => {
      if (ended) return;
      try {
        if (request instanceof MalformedRequest) throw request.error;
        const id = uuidText(request.correlation_id, "correlation_id");
        if (id === undefined) throw invalidArgument("every BatchAppend message needs a correlation_id");
        let batch = open.get(id);
        if (batch === undefined) {
          if (!request.options) throw invalidArgument("a batch's first message must hold its options");
          if (open.size >= limits.kurrentBatchesOpenMax) {
            throw invalidArgument(`at most ${limits.kurrentBatchesOpenMax} batches may be open on one call`);
          }
          batch = {
            streamName: streamNameOf(request.options.stream_identifier),
            expected: expectedRevisionOf(
              request.options.expected_stream_position,
              request.options.stream_position,
            ),
            events: [],
            bytes: 0,
            refused: false,
          };
          // A batch in one message (what clients send for all but the largest) is never kept open.
          if (!request.is_final) open.set(id, batch);
        }
        if (!batch.refused) addEvents(batch, request, id, refuse);
        if (!request.is_final) return;
        open.delete(id);
        if (batch.refused) return;
        answer(append(known ?? context, id, batch));
      } catch (error) {
        endWith(toEssError(error));
      }
    });
    call.on("end", () => {
      halfClosed = true;
      if (answering === 0) finish();
    });
    call.on("error", () => {
      ended = true;
    });
  };
}

function addEvents(
  batch: OpenBatch,
  request: BatchAppendReq__Output,
  correlation: string,
  refuse: (correlation: string, batch: OpenBatch, error: EssError) => void,
): void {
  for (const message of request.proposed_messages) {
    if (!message.metadata.type || !message.metadata["content-type"]) {
      refuse(
        correlation,
        batch,
        invalidArgument("every event needs the metadata properties type and content-type"),
      );
      return;
    }
    batch.bytes += message.data.length + message.custom_metadata.length;
    if (batch.events.length >= limits.appendEventsMax || batch.bytes > limits.appendBodyBytesMax) {
      refuse(
        correlation,
        batch,
        payloadTooLarge(
          `one append holds at most ${limits.appendEventsMax} events and ${limits.appendBodyBytesMax} bytes`,
        ),
      );
      return;
    }
    try {
      batch.events.push(proposedEvent(message, `events[${batch.events.length}]`));
    } catch (error) {
      refuse(correlation, batch, toEssError(error));
      return;
    }
  }
}

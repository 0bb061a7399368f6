/**
 * KurrentDB's `Streams.Delete` (a soft delete: reads answer "not found", a later append continues
 * the revisions) and `Streams.Tombstone` (permanent: the name can never be used again) over
 * Streams.Delete of the operations, with the expected revision checked as an append's. A wrong
 * expected revision is a FAILED_PRECONDITION status with the four trailers the clients read
 * (./errors.ts); the answer carries no position (ess records a delete as stream state, not as
 * an event of `$all`).
 */
import type * as grpc from "@grpc/grpc-js";
import { toEssError } from "../errors.js";
import type { DeleteReq__Output } from "../rpc/generated/kurrent/event_store/client/streams/DeleteReq.js";
import type { DeleteResp } from "../rpc/generated/kurrent/event_store/client/streams/DeleteResp.js";
import type { TombstoneReq__Output } from "../rpc/generated/kurrent/event_store/client/streams/TombstoneReq.js";
import type { TombstoneResp } from "../rpc/generated/kurrent/event_store/client/streams/TombstoneResp.js";
import { expectedRevisionOf } from "./append.js";
import { streamNameOf } from "./convert.js";
import { kurrentStatus } from "./errors.js";
import type { KurrentDeps } from "./deps.js";

function deleteHandler<Request extends DeleteReq__Output | TombstoneReq__Output>(
  deps: KurrentDeps,
  tombstone: boolean,
): grpc.handleUnaryCall<Request, DeleteResp & TombstoneResp> {
  return (call, callback) => {
    void (async () => {
      try {
        const ctx = await deps.contextOf(call);
        ctx.caller = await deps.operations.authenticate(ctx);
        const options = call.request.options;
        await deps.operations.delete(ctx, {
          stream_id: streamNameOf(options?.stream_identifier),
          expected_revision: expectedRevisionOf(options?.expected_stream_revision, options?.revision),
          tombstone,
        });
        callback(null, { no_position: {} });
      } catch (error) {
        callback(kurrentStatus(toEssError(error)));
      }
    })();
  };
}

export const softDeleteHandler = (deps: KurrentDeps) => deleteHandler<DeleteReq__Output>(deps, false);
export const tombstoneHandler = (deps: KurrentDeps) => deleteHandler<TombstoneReq__Output>(deps, true);

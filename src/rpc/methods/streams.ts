/**
 * The unary methods of ess.v1.Streams. Append, Read and ReadAll, the calls of a busy client, use
 * the hand-written codecs of ../codec/, which encode the operations' results as they are (the
 * engine's stored bytes copied straight into the message: docs/rpc.md, "Codecs"); the others use
 * the generic codec (./generic-codec.ts) and ../convert.ts.
 */
import type { CallContext, Operations } from "../../operations/contract.js";
import type { AppendResult, ReadAllResult, ReadStreamResult } from "../../contract/bodies.js";
import { decodeAppendRequest, encodeAppendResult } from "../codec/append.js";
import { decodeReadAllRequest, decodeReadRequest } from "../codec/read-requests.js";
import { encodeReadAllResult, encodeReadResult } from "../codec/read-results.js";
import * as convert from "../convert.js";
import type { AppendRequest__Output } from "../generated/ess/v1/AppendRequest.js";
import type { ListStreamsRequest__Output } from "../generated/ess/v1/ListStreamsRequest.js";
import type { ReadAllRequest__Output } from "../generated/ess/v1/ReadAllRequest.js";
import type { ReadRequest__Output } from "../generated/ess/v1/ReadRequest.js";
import type { SetRetentionRequest__Output } from "../generated/ess/v1/SetRetentionRequest.js";
import type { DeleteRequest__Output } from "../generated/ess/v1/DeleteRequest.js";
import type { SetMetadataRequest__Output } from "../generated/ess/v1/SetMetadataRequest.js";
import { fromPbDeleteRequest, fromPbSetMetadataRequest } from "../convert-stream-meta.js";
import type { StreamRequest__Output } from "../generated/ess/v1/StreamRequest.js";
import { grpcFrame, grpcFramePrefix } from "../grpc-frame.js";
import { genericCodec } from "./generic-codec.js";
import { servedByOperation, type Access, type AnyUnaryMethod, type UnaryMethod } from "./method.js";
import { servedAsRead } from "./reads.js";

/** A unary method on the generic codec, served by an operation. */
export function genericUnary<Request, Result, Message>(
  service: string,
  name: string,
  access: Access,
  toMessage: (result: Result) => Message,
  run: (ctx: CallContext, request: Request) => Promise<Result>,
): UnaryMethod<Request, Result> {
  const codec = genericCodec<Request, Result, Message>(service, name, toMessage);
  return {
    kind: "unary",
    path: codec.path,
    access,
    decode: codec.decode,
    encode: codec.encode,
    encodeFrame: (result) => grpcFrame(codec.encode(result)),
    serve: servedByOperation(run),
  };
}

const streams = "ess.v1.Streams";

export const appendPath = `/${streams}/Append`;
export const readPath = `/${streams}/Read`;
export const readAllPath = `/${streams}/ReadAll`;

export function streamsUnaryMethods(ops: Operations): AnyUnaryMethod[] {
  const append: UnaryMethod<AppendRequest__Output, AppendResult> = {
    kind: "unary",
    path: appendPath,
    access: "authenticated",
    decode: decodeAppendRequest,
    encode: (result) => encodeAppendResult(result),
    encodeFrame: (result) => encodeAppendResult(result, grpcFramePrefix),
    serve: servedByOperation((ctx, r) => ops.append(ctx, convert.fromPbAppendRequest(r))),
  };
  const read: UnaryMethod<ReadRequest__Output, ReadStreamResult> = {
    kind: "unary",
    path: readPath,
    access: "authenticated",
    decode: decodeReadRequest,
    encode: (result) => encodeReadResult(result),
    encodeFrame: (result) => encodeReadResult(result, grpcFramePrefix),
    serve: servedAsRead((ctx, r) => ops.read(ctx, convert.fromPbReadRequest(r))),
  };
  const readAll: UnaryMethod<ReadAllRequest__Output, ReadAllResult> = {
    kind: "unary",
    path: readAllPath,
    access: "authenticated",
    decode: decodeReadAllRequest,
    encode: (result) => encodeReadAllResult(result),
    encodeFrame: (result) => encodeReadAllResult(result, grpcFramePrefix),
    serve: servedAsRead((ctx, r) =>
      ops.readAll(ctx, {
        tenant: r.tenant,
        from_position: r.from_position,
        limit: r.limit,
        direction: r.direction,
        stream_prefix: r.stream_prefix,
        event_type_prefix: r.event_type_prefix,
        stream_regex: r.stream_regex,
        event_type_regex: r.event_type_regex,
      }),
    ),
  };
  return [
    append,
    read,
    readAll,
    genericUnary(
      streams,
      "GetInfo",
      "authenticated",
      convert.toPbStreamInfo,
      (ctx, r: StreamRequest__Output) => ops.getInfo(ctx, { stream_id: r.stream_id, tenant: r.tenant }),
    ),
    genericUnary(
      streams,
      "List",
      "authenticated",
      convert.toPbStreamList,
      (ctx, r: ListStreamsRequest__Output) =>
        ops.list(ctx, { tenant: r.tenant, prefix: r.prefix, limit: r.limit, cursor: r.cursor }),
    ),
    genericUnary(
      streams,
      "SetRetention",
      "authenticated",
      convert.toPbStreamInfo,
      (ctx, r: SetRetentionRequest__Output) =>
        ops.setRetention(ctx, {
          stream_id: r.stream_id,
          tenant: r.tenant,
          max_age_seconds: r.max_age_seconds,
          max_count: r.max_count,
          truncate_before: r.truncate_before,
        }),
    ),
    genericUnary(
      streams,
      "Delete",
      "authenticated",
      convert.toPbStreamInfo,
      (ctx, r: DeleteRequest__Output) => ops.delete(ctx, fromPbDeleteRequest(r)),
    ),
    genericUnary(
      streams,
      "GetMetadata",
      "authenticated",
      convert.toPbStreamMetadata,
      (ctx, r: StreamRequest__Output) => ops.getMetadata(ctx, { stream_id: r.stream_id, tenant: r.tenant }),
    ),
    genericUnary(
      streams,
      "SetMetadata",
      "authenticated",
      convert.toPbStreamMetadata,
      (ctx, r: SetMetadataRequest__Output) => ops.setMetadata(ctx, fromPbSetMetadataRequest(r)),
    ),
  ];
}

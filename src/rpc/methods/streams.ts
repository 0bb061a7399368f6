/**
 * The unary methods of ess.v1.Streams. Append, Read and ReadAll, the calls of a busy client, use
 * the hand-written codecs of ../codec/, which encode the operations' results as they are (the
 * engine's stored bytes copied straight into the message: docs/rpc.md, "Codecs"); the others use
 * the generic codec (./generic-codec.ts) and ../convert.ts.
 */
import type { CallContext, Operations } from "../../operations/contract.js";
import type * as contract from "../../contract/bodies.js";
import { decodeAppendRequest, encodeAppendResult } from "../codec/append.js";
import { decodeReadAllRequest, decodeReadRequest } from "../codec/read-requests.js";
import { encodeReadAllResult, encodeReadResult } from "../codec/read-results.js";
import * as convert from "../convert.js";
import type { AppendRequest__Output } from "../generated/ess/v1/AppendRequest.js";
import type { ReadAllRequest__Output } from "../generated/ess/v1/ReadAllRequest.js";
import type { ReadRequest__Output } from "../generated/ess/v1/ReadRequest.js";
import { grpcFrame, grpcFramePrefix } from "../grpc-frame.js";
import { genericCodec } from "./generic-codec.js";
import { servedByOperation, type Access, type AnyUnaryMethod, type UnaryMethod } from "./method.js";
import { servedAsRead } from "./reads.js";

/**
 * A unary method on the generic codec, served by an operation, which takes the request message
 * field for field (../convert.ts, fromPbRequest).
 */
export function genericUnary<Request, Result, Message>(
  service: string,
  name: string,
  access: Access,
  toMessage: (result: Result) => Message,
  run: (ctx: CallContext, request: Request) => Promise<Result>,
): UnaryMethod<object, Result> {
  const codec = genericCodec<object, Result, Message>(service, name, toMessage);
  const toRequest = convert.fromPbRequest<Request>(service, name);
  return {
    kind: "unary",
    path: codec.path,
    access,
    decode: codec.decode,
    encode: codec.encode,
    encodeFrame: (result) => grpcFrame(codec.encode(result)),
    // Converted as the operation runs, so that a bad metadata document is refused where the
    // operation's own checks are (INVALID_JSON), not as a malformed message.
    serve: servedByOperation((ctx, message) => run(ctx, toRequest(message))),
  };
}

const streams = "ess.v1.Streams";

export const appendPath = `/${streams}/Append`;
export const readPath = `/${streams}/Read`;
export const readAllPath = `/${streams}/ReadAll`;

export function streamsUnaryMethods(ops: Operations): AnyUnaryMethod[] {
  const append: UnaryMethod<AppendRequest__Output, contract.AppendResult> = {
    kind: "unary",
    path: appendPath,
    access: "authenticated",
    decode: decodeAppendRequest,
    encode: (result) => encodeAppendResult(result),
    encodeFrame: (result) => encodeAppendResult(result, grpcFramePrefix),
    serve: servedByOperation((ctx, r) => ops.append(ctx, convert.fromPbAppendRequest(r))),
  };
  const read: UnaryMethod<ReadRequest__Output, contract.ReadStreamResult> = {
    kind: "unary",
    path: readPath,
    access: "authenticated",
    decode: decodeReadRequest,
    encode: (result) => encodeReadResult(result),
    encodeFrame: (result) => encodeReadResult(result, grpcFramePrefix),
    serve: servedAsRead((ctx, r) => ops.read(ctx, convert.fromPbReadRequest(r))),
  };
  const readAll: UnaryMethod<ReadAllRequest__Output, contract.ReadAllResult> = {
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
      (ctx, r: contract.StreamRequest) => ops.getInfo(ctx, r),
    ),
    genericUnary(
      streams,
      "List",
      "authenticated",
      convert.toPbStreamList,
      (ctx, r: contract.ListStreamsRequest) => ops.list(ctx, r),
    ),
    genericUnary(
      streams,
      "SetRetention",
      "authenticated",
      convert.toPbStreamInfo,
      (ctx, r: contract.SetRetentionRequest) => ops.setRetention(ctx, r),
    ),
    genericUnary(
      streams,
      "Delete",
      "authenticated",
      convert.toPbStreamInfo,
      (ctx, r: contract.DeleteStreamRequest) => ops.delete(ctx, r),
    ),
    genericUnary(
      streams,
      "GetMetadata",
      "authenticated",
      convert.toPbStreamMetadata,
      (ctx, r: contract.StreamRequest) => ops.getMetadata(ctx, r),
    ),
    genericUnary(
      streams,
      "SetMetadata",
      "authenticated",
      convert.toPbStreamMetadata,
      (ctx, r: contract.SetMetadataRequest) => ops.setMetadata(ctx, r),
    ),
  ];
}

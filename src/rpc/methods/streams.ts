/**
 * The unary methods. Append, Read and ReadAll, the calls of a busy client, use the hand-written
 * codecs of ../codec/, which encode the operations' results as they are (the engine's stored
 * bytes copied straight into the message: docs/rpc.md, "Codecs"); every other operation of
 * `rpcNames` (../../operations/contract.ts) is a method on the generic codec (./generic-codec.ts)
 * and ../convert.ts.
 */
import {
  rpcNames,
  type CallContext,
  type OperationName,
  type Operations,
} from "../../operations/contract.js";
import type * as contract from "../../contract/bodies.js";
import { decodeAppendRequest, encodeAppendResult } from "../codec/append.js";
import { decodeReadAllRequest, decodeReadRequest } from "../codec/read-requests.js";
import { encodeReadAllResult, encodeReadResult } from "../codec/read-results.js";
import * as convert from "../convert.js";
import { rpcMethodOf } from "../proto.js";
import type { AppendRequest__Output } from "../generated/ess/v1/AppendRequest.js";
import type { ReadAllRequest__Output } from "../generated/ess/v1/ReadAllRequest.js";
import type { ReadRequest__Output } from "../generated/ess/v1/ReadRequest.js";
import { grpcFramePrefix } from "../grpc-frame.js";
import { genericCodec } from "./generic-codec.js";
import { servedByOperation, type AnyUnaryMethod, type UnaryMethod } from "./method.js";
import { servedAsRead } from "./reads.js";

/**
 * No token needed: the call that gets one (its context carries the client's address, which the
 * login throttle counts), and the health check.
 */
const publicOperations: ReadonlySet<OperationName> = new Set(["login", "check"]);

/**
 * `operation` as a method on the generic codec: the request message taken field for field
 * (../convert.ts, fromPbRequest), the result converted to the method's response message.
 */
export function genericUnary(ops: Operations, operation: OperationName): AnyUnaryMethod {
  const [service, name] = rpcMethodOf(operation);
  const codec = genericCodec(service, name, convert.toPbResponse(service, name));
  const toRequest = convert.fromPbRequest<object>(service, name);
  const operations = ops as unknown as Record<
    OperationName,
    (ctx: CallContext, request: object) => Promise<unknown>
  >;
  return {
    kind: "unary",
    path: codec.path,
    access: publicOperations.has(operation) ? "public" : "authenticated",
    decode: codec.decode,
    encode: codec.encode,
    // Converted as the operation runs, so that a bad metadata document is refused where the
    // operation's own checks are (INVALID_JSON), not as a malformed message.
    serve: servedByOperation((ctx, message: object) => operations[operation](ctx, toRequest(message))),
  };
}

/** The operations whose methods have hand-written codecs (below). */
const handWritten: ReadonlySet<OperationName> = new Set(["append", "read", "readAll"]);

export const appendPath = "/ess.v1.Streams/Append";
export const readPath = "/ess.v1.Streams/Read";
export const readAllPath = "/ess.v1.Streams/ReadAll";

/** Field for field (not on the hot path of the sessions, as Append and Read are). */
const readAllRequest = convert.fromPbRequest<contract.ReadAllRequest>("ess.v1.Streams", "ReadAll");

export function unaryMethods(ops: Operations): AnyUnaryMethod[] {
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
    serve: servedAsRead((ctx, r) => ops.readAll(ctx, readAllRequest(r))),
  };
  const generic = (Object.keys(rpcNames) as OperationName[]).filter(
    (operation) => !handWritten.has(operation),
  );
  return [append, read, readAll, ...generic.map((operation) => genericUnary(ops, operation))];
}

/**
 * One unary call through grpc-js, as a promise: the answer, or the EssError the server raised
 * (rebuilt from the status and the `error-code` and `error-details-bin` trailers). Every call
 * gets the client's deadline; past it the call fails with UNAVAILABLE.
 */
import * as grpc from "@grpc/grpc-js";
import type { CallContext } from "../operations/contract.js";
import type { EssError } from "../errors.js";
import { fromServiceError, fromStatus } from "../rpc/error-mapping.js";
import type { StreamsClient } from "../rpc/generated/ess/v1/Streams.js";
import { proto } from "../rpc/proto.js";
import { metadataFor } from "./grpc-channels.js";

/** A generated client's unary method (`auth.WhoAmI`, `admin.Verify`, …). */
export type UnaryMethod<Req, Res> = (
  argument: Req,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: grpc.requestCallback<Res>,
) => grpc.ClientUnaryCall;

/** Method paths of the Streams calls on the hand-written codecs ("/ess.v1.Streams/Append"). */
const codecPaths = {
  Append: proto.ess.v1.Streams.service.Append.path,
  Read: proto.ess.v1.Streams.service.Read.path,
  ReadAll: proto.ess.v1.Streams.service.ReadAll.path,
};

export type CodecMethod = keyof typeof codecPaths;

export interface UnaryCalls {
  /** A call through a generated client and proto-loader's codec. */
  call<Req, Res>(
    client: grpc.Client,
    method: UnaryMethod<Req, Res>,
    request: Req,
    ctx: CallContext | null,
  ): Promise<Res>;
  /**
   * A Streams call on the hand-written codecs of src/rpc/codec/ (Append, Read, ReadAll: the
   * upstream gateway's frequent calls): no generic encode and decode, no convert step.
   */
  callWithCodec<Req, Res>(
    method: CodecMethod,
    encode: (request: Req) => Buffer,
    decode: (message: Buffer) => Res,
    request: Req,
    ctx: CallContext | null,
  ): Promise<Res>;
  /** Later calls fail with UNAVAILABLE (grpc-js would throw a plain Error on a closed channel). */
  close(): void;
}

/** What a call on a closed client fails with, as a call on a shut-down grpc-js channel. */
export const channelShutDown = (): EssError =>
  fromStatus(grpc.status.UNAVAILABLE, "Channel has been shut down", undefined, undefined);

export function createUnaryCalls(streams: StreamsClient, deadlineMs: number | undefined): UnaryCalls {
  const callOptions = (): grpc.CallOptions =>
    deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs };
  let closed = false;
  return {
    call(client, method, request, ctx) {
      if (closed) return Promise.reject(channelShutDown());
      return new Promise((resolve, reject) => {
        method.call(client, request, metadataFor(ctx), callOptions(), settle(resolve, reject));
      });
    },
    callWithCodec(method, encode, decode, request, ctx) {
      if (closed) return Promise.reject(channelShutDown());
      return new Promise((resolve, reject) => {
        const path = codecPaths[method];
        streams.makeUnaryRequest(
          path,
          encode,
          decode,
          request,
          metadataFor(ctx),
          callOptions(),
          settle(resolve, reject),
        );
      });
    },
    close() {
      closed = true;
    },
  };
}

/** A call's callback that settles its promise; a failed call rejects with the server's EssError. */
function settle<Res>(
  resolve: (response: Res) => void,
  reject: (error: Error) => void,
): grpc.requestCallback<Res> {
  return (error, response) => {
    if (error) reject(fromServiceError(error));
    else if (response === undefined) reject(fromServiceError({ code: grpc.status.INTERNAL }));
    else resolve(response);
  };
}

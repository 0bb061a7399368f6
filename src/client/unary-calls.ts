/**
 * One unary call through grpc-js, as a promise: the answer, or the EssError the server raised
 * (rebuilt from the status and the `error-code` and `error-details-bin` trailers). Every call
 * gets the client's deadline; past it the call fails with UNAVAILABLE.
 */
import * as grpc from "@grpc/grpc-js";
import type { CallContext } from "../operations/contract.js";
import type { EssError } from "../errors.js";
import { fromServiceError, fromStatus } from "../rpc/error-mapping.js";
import { metadataFor } from "./grpc-channels.js";

export interface UnaryCalls {
  /** A call of the method at `path` ("/ess.v1.Streams/Append"), with its request's and answer's codec. */
  call<Req, Res>(
    path: string,
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

/** The calls, on `client`'s channel (every service's client shares it: ./grpc-channels.ts). */
export function createUnaryCalls(client: grpc.Client, deadlineMs: number | undefined): UnaryCalls {
  let closed = false;
  return {
    call(path, encode, decode, request, ctx) {
      if (closed) return Promise.reject(channelShutDown());
      const options: grpc.CallOptions = deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs };
      return new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          path,
          encode,
          decode,
          request,
          metadataFor(ctx),
          options,
          (error, response) => {
            if (error) reject(fromServiceError(error));
            else if (response === undefined) reject(fromServiceError({ code: grpc.status.INTERNAL }));
            else resolve(response);
          },
        );
      });
    },
    close() {
      closed = true;
    },
  };
}

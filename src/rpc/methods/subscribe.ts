/**
 * Streams.Subscribe: a server stream per subscription, served by the handler the service plugs in
 * (../subscribe-handler.ts, on ../../operations/subscribe.ts). Without one the method answers
 * UNIMPLEMENTED.
 */
import { status as grpcStatus } from "@grpc/grpc-js";
import type { SubscribeRequest__Output } from "../generated/ess/v1/SubscribeRequest.js";
import type { SubscribeResponse } from "../generated/ess/v1/SubscribeResponse.js";
import { genericCodec } from "./generic-codec.js";
import { shuttingDown, type LongLivedCalls } from "./long-lived-calls.js";
import type { ServerStreamCall, ServerStreamMethod } from "./method.js";

export type SubscribeCall = ServerStreamCall<SubscribeResponse>;

/** Serves one Subscribe call; it must end its subscription when the call ends (onEnd). */
export type SubscribeServer = (call: SubscribeCall, request: SubscribeRequest__Output) => void;

export function subscribeMethod(
  calls: LongLivedCalls,
  subscribe: SubscribeServer | undefined,
): ServerStreamMethod<SubscribeRequest__Output, SubscribeResponse> {
  const codec = genericCodec("ess.v1.Streams", "Subscribe", (message: SubscribeResponse) => message);
  return {
    kind: "server-stream",
    path: codec.path,
    access: "authenticated",
    decode: codec.decode as (message: Buffer) => SubscribeRequest__Output,
    encode: codec.encode,
    serve(call, request) {
      if (subscribe === undefined) {
        call.end({ code: grpcStatus.UNIMPLEMENTED, details: "Streams.Subscribe is not available" });
        return;
      }
      if (calls.isStopping) {
        call.end(shuttingDown());
        return;
      }
      calls.addStream(call);
      subscribe(call, request);
    },
  };
}

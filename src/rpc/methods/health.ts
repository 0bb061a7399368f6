/**
 * ess.v1.Health.Check and the standard grpc.health.v1.Health (Check, List, Watch), all public.
 * grpc.health.v1: the service "" is the whole server and each ess.v1 service answers the same:
 * SERVING while the storage is writable, NOT_SERVING when it is not or while the server stops;
 * any other name is NOT_FOUND (`SERVICE_UNKNOWN` on Watch).
 */
import { status as grpcStatus } from "@grpc/grpc-js";
import type { Operations } from "../../operations/contract.js";
import * as convert from "../convert.js";
import type { HealthCheckRequest__Output } from "../generated/grpc-health/grpc/health/v1/HealthCheckRequest.js";
import type { HealthCheckResponse } from "../generated/grpc-health/grpc/health/v1/HealthCheckResponse.js";
import type { HealthListResponse } from "../generated/grpc-health/grpc/health/v1/HealthListResponse.js";
import { grpcFrame } from "../grpc-frame.js";
import { genericCodec } from "./generic-codec.js";
import type { LongLivedCalls } from "./long-lived-calls.js";
import type { AnyServerStreamMethod, AnyUnaryMethod, ServerStreamMethod, UnaryMethod } from "./method.js";
import { genericUnary } from "./streams.js";

type ServingStatus = HealthCheckResponse["status"];

const knownServices = ["", "ess.v1.Streams", "ess.v1.Admin", "ess.v1.Auth", "ess.v1.Health"];

export function healthMethods(
  ops: Operations,
  calls: LongLivedCalls,
): (AnyUnaryMethod | AnyServerStreamMethod)[] {
  const servingStatus = async (): Promise<ServingStatus> => {
    if (calls.isStopping) return "NOT_SERVING";
    try {
      // Writable storage serves, even "degraded" by a damaged record: the node still answers
      // every other read, and a probe taking it out of rotation would not mend the record.
      // Not counted in the metrics (CallContext.admission): grpc.health.v1 is not one of the
      // service's operations, and a Watch polls this every second.
      return (await ops.check({ token: null, admission: true })).storage.writable ? "SERVING" : "NOT_SERVING";
    } catch {
      return "NOT_SERVING";
    }
  };

  const health = "grpc.health.v1.Health";
  const checkCodec = genericCodec(health, "Check", (response: HealthCheckResponse) => response);
  const check: UnaryMethod<HealthCheckRequest__Output, HealthCheckResponse> = {
    kind: "unary",
    path: checkCodec.path,
    access: "public",
    decode: checkCodec.decode as (message: Buffer) => HealthCheckRequest__Output,
    encode: checkCodec.encode,
    encodeFrame: (response) => grpcFrame(checkCodec.encode(response)),
    serve(_call, request, done) {
      if (!knownServices.includes(request.service)) {
        done({ error: { code: grpcStatus.NOT_FOUND, details: `unknown service '${request.service}'` } });
        return;
      }
      void servingStatus().then((status) => done({ error: null, result: { status } }));
    },
  };
  const listCodec = genericCodec(health, "List", (response: HealthListResponse) => response);
  const list: UnaryMethod<unknown, HealthListResponse> = {
    kind: "unary",
    path: listCodec.path,
    access: "public",
    decode: listCodec.decode,
    encode: listCodec.encode,
    encodeFrame: (response) => grpcFrame(listCodec.encode(response)),
    serve(_call, _request, done) {
      void servingStatus().then((status) =>
        done({
          error: null,
          result: { statuses: Object.fromEntries(knownServices.map((name) => [name, { status }])) },
        }),
      );
    },
  };
  const watchCodec = genericCodec(health, "Watch", (response: HealthCheckResponse) => response);
  const watch: ServerStreamMethod<HealthCheckRequest__Output, HealthCheckResponse> = {
    kind: "server-stream",
    path: watchCodec.path,
    access: "public",
    decode: watchCodec.decode as (message: Buffer) => HealthCheckRequest__Output,
    encode: watchCodec.encode,
    serve(call, request) {
      const known = knownServices.includes(request.service);
      let last: ServingStatus | null = null;
      const send = async () => {
        const status: ServingStatus = known ? await servingStatus() : "SERVICE_UNKNOWN";
        if (status !== last && !call.ended) {
          last = status;
          call.write({ status }, noop);
        }
      };
      // Polled: health changes rarely and a watcher only needs to learn it within a second.
      const timer = setInterval(() => void send(), 1000);
      calls.addStream(call);
      call.onEnd(() => clearInterval(timer));
      void send();
    },
  };
  return [
    genericUnary("ess.v1.Health", "Check", "public", convert.toPbHealthResult, (ctx) => ops.check(ctx)),
    check,
    list,
    watch,
  ];
}

function noop(): void {}

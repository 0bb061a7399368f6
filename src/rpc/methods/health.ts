/**
 * The standard grpc.health.v1.Health (Check, List, Watch), all public (ess.v1.Health.Check is
 * an operation: ./streams.ts). The service "" is the whole server and each ess.v1 service answers
 * the same: SERVING while the storage is writable, NOT_SERVING when it is not or while the
 * server stops; any other name is NOT_FOUND (`SERVICE_UNKNOWN` on Watch).
 */
import { status as grpcStatus } from "@grpc/grpc-js";
import type { Operations } from "../../operations/contract.js";
import type { HealthCheckRequest__Output } from "../generated/grpc-health/grpc/health/v1/HealthCheckRequest.js";
import type { HealthCheckResponse } from "../generated/grpc-health/grpc/health/v1/HealthCheckResponse.js";
import type { HealthListResponse } from "../generated/grpc-health/grpc/health/v1/HealthListResponse.js";
import { genericCodec } from "./generic-codec.js";
import type { LongLivedCalls } from "./long-lived-calls.js";
import type { AnyServerStreamMethod, AnyUnaryMethod, ServerStreamMethod, UnaryMethod } from "./method.js";

type ServingStatus = HealthCheckResponse["status"];

const knownServices = ["", "ess.v1.Streams", "ess.v1.Admin", "ess.v1.Auth", "ess.v1.Health"];

/** A grpc.health.v1 method's path and codec (its messages as proto-loader gives them). */
function healthCodec<Request, Response>(name: string) {
  const codec = genericCodec("grpc.health.v1.Health", name, (response: Response) => response);
  return {
    path: codec.path,
    access: "public" as const,
    decode: codec.decode as (m: Buffer) => Request,
    encode: codec.encode,
  };
}

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

  const check: UnaryMethod<HealthCheckRequest__Output, HealthCheckResponse> = {
    kind: "unary",
    ...healthCodec<HealthCheckRequest__Output, HealthCheckResponse>("Check"),
    serve(_call, request, done) {
      if (!knownServices.includes(request.service)) {
        done({ error: { code: grpcStatus.NOT_FOUND, details: `unknown service '${request.service}'` } });
        return;
      }
      void servingStatus().then((status) => done({ error: null, result: { status } }));
    },
  };
  const list: UnaryMethod<unknown, HealthListResponse> = {
    kind: "unary",
    ...healthCodec<unknown, HealthListResponse>("List"),
    serve(_call, _request, done) {
      void servingStatus().then((status) =>
        done({
          error: null,
          result: { statuses: Object.fromEntries(knownServices.map((name) => [name, { status }])) },
        }),
      );
    },
  };
  const watch: ServerStreamMethod<HealthCheckRequest__Output, HealthCheckResponse> = {
    kind: "server-stream",
    ...healthCodec<HealthCheckRequest__Output, HealthCheckResponse>("Watch"),
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
  return [check, list, watch];
}

function noop(): void {}

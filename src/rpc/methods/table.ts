/**
 * The method table: every gRPC method the server answers, ess.v1 (Streams, Admin, Auth, Health)
 * and grpc.health.v1, each once (./method.ts). Server reflection is grpc-js's own service and not
 * in it (../grpc-js-carrier.ts adds it).
 */
import type { Operations } from "../../operations/contract.js";
import { healthMethods } from "./health.js";
import type { LongLivedCalls } from "./long-lived-calls.js";
import type { RpcMethod } from "./method.js";
import { sessionMethods, type SessionDeps } from "./sessions.js";
import { unaryMethods } from "./streams.js";
import { subscribeMethod, type SubscribeServer } from "./subscribe.js";

export interface MethodTableDeps {
  ops: Operations;
  /** The calls the server ends when it stops. */
  calls: LongLivedCalls;
  subscribe?: SubscribeServer;
  authenticateSession?: SessionDeps["authenticate"];
  sessionInFlightMax?: number;
}

export function methodTable(deps: MethodTableDeps): ReadonlyMap<string, RpcMethod> {
  const { ops, calls } = deps;
  const methods: RpcMethod[] = [
    ...unaryMethods(ops),
    ...sessionMethods({
      ops,
      calls,
      authenticate: deps.authenticateSession,
      inFlightMax: deps.sessionInFlightMax,
    }),
    subscribeMethod(calls, deps.subscribe),
    ...healthMethods(ops, calls),
  ];
  return new Map(methods.map((method) => [method.path, method]));
}

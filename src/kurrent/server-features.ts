/**
 * `ServerFeatures.GetSupportedMethods`: what a KurrentDB client asks first, to learn which methods
 * it may call (it uses BatchAppend only when listed; docs/kurrent.md). Public, as KurrentDB's is
 * (one client sends no credentials with it), and it never fails. It lists exactly the methods the
 * listener serves, in the lower case KurrentDB uses, and ess's version, which the clients parse
 * as major.minor.patch.
 */
import type * as grpc from "@grpc/grpc-js";
import { serviceVersion } from "../version.js";
import type { Empty__Output } from "../rpc/generated/kurrent/event_store/client/Empty.js";
import type { SupportedMethods } from "../rpc/generated/kurrent/event_store/client/server_features/SupportedMethods.js";

/** A served method: its service's full name and its name, as in the .proto files. */
export interface ServedMethod {
  service: string;
  method: string;
  features?: string[];
}

export function supportedMethods(served: readonly ServedMethod[]): SupportedMethods {
  return {
    methods: served.map((m) => ({
      method_name: m.method.toLowerCase(),
      service_name: m.service.toLowerCase(),
      features: m.features ?? [],
    })),
    event_store_server_version: serviceVersion,
  };
}

export function serverFeaturesHandler(
  served: readonly ServedMethod[],
): grpc.handleUnaryCall<Empty__Output, SupportedMethods> {
  const answer = supportedMethods(served);
  return (_call, callback) => callback(null, answer);
}

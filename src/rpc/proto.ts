/**
 * Loads the .proto files (proto/, the single source of truth for messages) once, with the
 * options the generated types in ./generated were made with (scripts/gen-proto.js): field
 * names as written (snake_case), 64-bit integers as JS numbers (they stay below 2^53), enums
 * as strings, defaults for unset plain fields, and no value at all for unset `optional`
 * fields, so that null and 0 stay distinct.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";
import { fileURLToPath } from "node:url";
import { rpcNames, type OperationName } from "../operations/contract.js";
import type { ProtoGrpcType as AdminProto } from "./generated/admin.js";
import type { ProtoGrpcType as AuthProto } from "./generated/auth.js";
import type { ProtoGrpcType as HealthProto } from "./generated/health.js";
import type { ProtoGrpcType as StreamsProto } from "./generated/streams.js";
import type { ProtoGrpcType as GrpcHealthProto } from "./generated/grpc-health/health.js";

/** proto/ at the repository root (this file runs as dist/src/rpc/proto.js). */
export const protoDir = fileURLToPath(new URL("../../../proto/", import.meta.url));

export const protoFiles = [
  "ess/v1/types.proto",
  "ess/v1/health.proto",
  "ess/v1/auth.proto",
  "ess/v1/streams.proto",
  "ess/v1/admin.proto",
  "grpc/health/v1/health.proto",
];

export const loaderOptions: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [protoDir],
};

export const packageDefinition = protoLoader.loadSync(protoFiles, loaderOptions);

/**
 * The same files as protobufjs's reflection, for what proto-loader's descriptors do not say
 * plainly (a field's proto3 `optional`, its oneof): ./convert.ts reads its fields from it.
 */
export const protoRoot = new protobuf.Root();
protoRoot.resolvePath = (_origin, target) => protoDir + target;
protoRoot.loadSync(protoFiles, { keepCase: true }).resolveAll();

/** The ess.v1 service and method of an operation (`rpcNames`): ["ess.v1.Streams", "GetInfo"]. */
export function rpcMethodOf(operation: OperationName): [service: string, method: string] {
  const [service, method] = rpcNames[operation].split(".") as [string, string];
  return [`ess.v1.${service}`, method];
}

export type EssProto = AdminProto & AuthProto & HealthProto & StreamsProto & GrpcHealthProto;

export const proto = grpc.loadPackageDefinition(packageDefinition) as unknown as EssProto;

/**
 * Largest message the server accepts: an append of appendBodyBytesMax bytes of JSON plus
 * framing. Larger messages are refused by gRPC itself with RESOURCE_EXHAUSTED; the operations
 * hold the exact limit below it.
 */
export const receiveMessageBytesMax = 8 * 1024 * 1024;

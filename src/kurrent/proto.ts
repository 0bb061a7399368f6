/**
 * KurrentDB's v1 protocol as ess serves it: our own .proto files in proto/kurrent/ (written from
 * the protocol's wire facts, docs/kurrent.md), loaded once. 64-bit integers stay strings here
 * (`longs: String`): a structured UUID is two signed 64-bit halves, and a read's count may be
 * 2^64-1; the adapter turns the ones it uses into numbers where they fit.
 *
 * The error details that BatchAppend sends inside google.rpc.Status (an Any holding, e.g., a
 * WrongExpectedVersion) are not messages of any method, so grpc-js has no serializer for them:
 * `encodeDetail` encodes them with protobufjs from the same files.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";
import { join } from "node:path";
import { protoDir } from "../rpc/proto.js";
import type { ProtoGrpcType as StreamsProto } from "../rpc/generated/kurrent/streams.js";
import type { ProtoGrpcType as ServerFeaturesProto } from "../rpc/generated/kurrent/serverfeatures.js";

const files = [
  "kurrent/shared.proto",
  "kurrent/status.proto",
  "kurrent/streams.proto",
  "kurrent/serverfeatures.proto",
];

const packageDefinition = protoLoader.loadSync(files, {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [protoDir],
});

export const kurrentProto = grpc.loadPackageDefinition(packageDefinition) as unknown as StreamsProto &
  ServerFeaturesProto;

const detailRoot = new protobuf.Root();
detailRoot.resolvePath = (_origin, target) =>
  target.startsWith("google/protobuf/") ? target : join(protoDir, target);
detailRoot.loadSync(["kurrent/shared.proto"], { keepCase: true });

/** The type URL prefix KurrentDB clients expect; they match the text after the last '/'. */
const typeUrlPrefix = "type.googleapis.com/event_store.client.";

/** An Any holding `event_store.client.<name>` with `fields` (shared.proto's field names). */
export function encodeDetail(
  name: string,
  fields: Record<string, unknown>,
): { type_url: string; value: Buffer } {
  const type = detailRoot.lookupType(`event_store.client.${name}`);
  const value = Buffer.from(type.encode(type.fromObject(fields)).finish());
  return { type_url: typeUrlPrefix + name, value };
}

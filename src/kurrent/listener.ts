/**
 * The KurrentDB listener (SERVICE_KURRENT_ENABLED, docs/kurrent.md): KurrentDB's v1 gRPC protocol
 * on its own port, so that applications written for KurrentDB with its official clients connect
 * to ess unchanged. A grpc-js server of its own: its auth (Basic, Bearer, anonymous) and its error
 * trailers differ from ess.v1's, and nothing of the ess.v1 server is shared but the operations,
 * which hold every rule; the handlers here only translate.
 */
import * as grpc from "@grpc/grpc-js";
import { formatAddress, type ListenAddress } from "../config/config.js";
import { EssError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { ServiceOperations } from "../operations/operations.js";
import type { SubscriptionService } from "../operations/subscribe.js";
import { peerAddress } from "../rpc/methods/admission.js";
import { receiveMessageBytesMax } from "../rpc/proto.js";
import { grpcServerCredentials } from "../rpc/tls-credentials.js";
import type { ServerTls } from "../tls/server-tls.js";
import { orMalformed } from "../rpc/malformed-request.js";
import { appendHandler } from "./append.js";
import { passEncoded } from "./codec.js";
import { decodeAppendReq, decodeBatchAppendReq } from "./request-decoders.js";
import { batchAppendHandler } from "./batch-append.js";
import { softDeleteHandler, tombstoneHandler } from "./delete.js";
import { KurrentCredentials } from "./credentials.js";
import type { KurrentDeps } from "./deps.js";
import { kurrentProto } from "./proto.js";
import { readHandler } from "./read.js";
import { serverFeaturesHandler, type ServedMethod } from "./server-features.js";
import { windowedWrites } from "./write-window.js";

export interface KurrentListenerOptions {
  address: ListenAddress;
  operations: ServiceOperations;
  subscriptions: SubscriptionService;
  /** SERVICE_KURRENT_ANONYMOUS_USER: whom calls without credentials act as (null: refused). */
  anonymousUser: string | null;
  logger: Logger;
  /** The TLS material (SERVICE_TLS_CERT_FILE, SERVICE_TLS_KEY_FILE): TLS only, following reloads. */
  tls?: ServerTls | null;
}

export interface KurrentListener {
  address: ListenAddress;
  /** Ends the subscriptions, stops accepting, waits (bounded by graceMs) for the calls in flight. */
  close(graceMs?: number): Promise<void>;
}

const streamsService = "event_store.client.streams.Streams";

/**
 * The Streams service as grpc-js serves it: proto-loader's definition, with the hand-written
 * codecs of ./codec.ts for the hot messages (the append requests, the events a read answers,
 * a batch's success). A request that is not valid protobuf reaches its handler as a
 * MalformedRequest, answered INVALID_ARGUMENT (grpc-js would answer a deserializer's throw with
 * INTERNAL).
 */
function kurrentStreamsService(): grpc.ServiceDefinition {
  const loaded = kurrentProto.event_store.client.streams.Streams.service;
  return {
    ...loaded,
    Read: { ...loaded.Read, responseSerialize: passEncoded(loaded.Read.responseSerialize) },
    Append: { ...loaded.Append, requestDeserialize: orMalformed(decodeAppendReq) },
    BatchAppend: {
      ...loaded.BatchAppend,
      requestDeserialize: orMalformed(decodeBatchAppendReq),
      responseSerialize: passEncoded(loaded.BatchAppend.responseSerialize),
    },
  };
}

export async function startKurrentListener(options: KurrentListenerOptions): Promise<KurrentListener> {
  const credentials = new KurrentCredentials({
    operations: options.operations,
    anonymousUser: options.anonymousUser,
  });
  const deps: KurrentDeps = {
    operations: options.operations,
    subscriptions: options.subscriptions,
    logger: options.logger,
    contextOf: (call) => {
      const header = call.metadata.get("authorization")[0];
      return credentials.contextOf(
        typeof header === "string" ? header : undefined,
        peerAddress(call.getPeer()),
      );
    },
    openSubscriptions: new Set(),
  };
  const server = new grpc.Server({
    "grpc.enable_channelz": 0,
    "grpc.max_receive_message_length": receiveMessageBytesMax,
    "grpc.max_send_message_length": -1,
    // A streaming call's answers go to HTTP/2 together, not one per event-loop turn (./write-window.ts).
    interceptors: [windowedWrites],
  });
  const streams = kurrentStreamsService();
  const served: ServedMethod[] = [
    { service: streamsService, method: "Read", features: ["position", "events"] },
    { service: streamsService, method: "Append" },
    { service: streamsService, method: "BatchAppend", features: ["deadline_duration"] },
    { service: streamsService, method: "Delete" },
    { service: streamsService, method: "Tombstone" },
  ];
  server.addService(streams, {
    Read: readHandler(deps),
    Append: appendHandler(deps),
    BatchAppend: batchAppendHandler(deps),
    Delete: softDeleteHandler(deps),
    Tombstone: tombstoneHandler(deps),
  });
  server.addService(kurrentProto.event_store.client.server_features.ServerFeatures.service, {
    GetSupportedMethods: serverFeaturesHandler(served),
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      formatAddress(options.address),
      grpcServerCredentials(options.tls ?? null),
      (error, bound) => (error ? reject(error) : resolve(bound)),
    );
  });
  return {
    address: { host: options.address.host, port },
    async close(graceMs = 30_000): Promise<void> {
      for (const end of [...deps.openSubscriptions])
        end(new EssError("UNAVAILABLE", "the service is shutting down"));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

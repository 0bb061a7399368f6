/**
 * The client's grpc-js channels: one channel for every unary call and Subscribe (the four service
 * clients share it), and one channel of its own for each session, so that a session whose answers
 * wait holds back no other call (docs/rpc.md, "For other clients"). Each channel has a connection
 * of its own: grpc-js otherwise shares one between channels with equal options, process-wide,
 * so that one client's reconnect back-off would fail another client's calls.
 */
import * as grpc from "@grpc/grpc-js";
import type { CallContext } from "../operations/contract.js";
import { limits } from "../limits.js";
import type { AdminClient } from "../rpc/generated/ess/v1/Admin.js";
import type { AuthClient } from "../rpc/generated/ess/v1/Auth.js";
import type { HealthClient } from "../rpc/generated/ess/v1/Health.js";
import type { StreamsClient } from "../rpc/generated/ess/v1/Streams.js";
import { proto } from "../rpc/proto.js";

export interface ChannelTarget {
  /** host:port, or any target grpc-js takes. */
  address: string;
  credentials: grpc.ChannelCredentials;
}

/** The generated clients of the four services, on one channel. */
export interface ServiceClients {
  streams: StreamsClient;
  admin: AdminClient;
  auth: AuthClient;
  health: HealthClient;
}

function channelOptions(answerBytesMax: number): grpc.ChannelOptions {
  return {
    // A larger answer is a broken or hostile server, refused before it is buffered.
    "grpc.max_receive_message_length": answerBytesMax,
    "grpc.max_send_message_length": -1,
    // No channelz bookkeeping per call (nothing reads it).
    "grpc.enable_channelz": 0,
    "grpc.initial_reconnect_backoff_ms": limits.rpcClientReconnectBackoffMsMax,
    "grpc.max_reconnect_backoff_ms": limits.rpcClientReconnectBackoffMsMax,
    "grpc.use_local_subchannel_pool": 1,
  };
}

export function openServiceClients(target: ChannelTarget): ServiceClients {
  // Read pages stay within limits.readPageBytesMax of payloads (~4 MiB as messages).
  const options = channelOptions(limits.rpcClientAnswerBytesMax);
  const streams = new proto.ess.v1.Streams(target.address, target.credentials, options);
  const shared = { ...options, channelOverride: streams.getChannel() };
  return {
    streams,
    admin: new proto.ess.v1.Admin(target.address, target.credentials, shared),
    auth: new proto.ess.v1.Auth(target.address, target.credentials, shared),
    health: new proto.ess.v1.Health(target.address, target.credentials, shared),
  };
}

export function closeServiceClients(clients: ServiceClients): void {
  clients.streams.close();
  clients.admin.close();
  clients.auth.close();
  clients.health.close();
}

/**
 * A Streams client on a connection of its own, for one session. Without grpc-js's retry layer,
 * which would wait for each message to reach the socket before sending the next: a session is
 * never retried anyway (a failed session fails its requests).
 */
export function openSessionStreams(target: ChannelTarget, answerBytesMax: number): StreamsClient {
  return new proto.ess.v1.Streams(target.address, target.credentials, {
    ...channelOptions(answerBytesMax),
    "grpc.enable_retries": 0,
  });
}

/** Metadata carrying the context's bearer token. */
export function metadataFor(ctx: CallContext | null): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (ctx?.token) metadata.set("authorization", `Bearer ${ctx.token}`);
  return metadata;
}

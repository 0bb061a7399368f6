/**
 * The `Operations` interface over gRPC: every operation calls the matching RPC of a remote
 * `ess` server (used by `ess gateway --upstream host:port`, `ess user ...` and the tests).
 *
 * It answers exactly as the in-process operations would: requests are validated with the same
 * functions (src/operations/validate.ts) before they are sent, so bad input fails with the same
 * EssError, and a failed call is turned back into the EssError the server raised (from the
 * `error-code` and `error-details-bin` trailers). Event data/metadata travel as the JSON text's
 * UTF-8 bytes and come back as the same text. Every call goes through grpc-js; Append, Read and
 * ReadAll with the hand-written codecs of src/rpc/codec/, the rest with proto-loader's.
 *
 * The parts: the channels (./grpc-channels.ts), the unary call (./unary-calls.ts), the unary
 * operations (./service-operations.ts), the sessions (./sessions.ts, carried by
 * ./grpc-session-call.ts), the error mapping (src/rpc/error-mapping.ts).
 */
import * as grpc from "@grpc/grpc-js";
import type { AppendRequest, AppendResult, ReadRequest, ReadStreamResult } from "../contract/bodies.js";
import type { CallContext, Operations } from "../operations/contract.js";
import {
  closeServiceClients,
  metadataFor,
  openServiceClients,
  type ChannelTarget,
  type ServiceClients,
} from "./grpc-channels.js";
import { createGrpcSessionCalls } from "./grpc-session-call.js";
import { appendMessage, readMessage } from "./request-messages.js";
import { unaryOperations } from "./service-operations.js";
import { appendSessionKind, openSession, readSessionKind } from "./sessions.js";
import { createUnaryCalls } from "./unary-calls.js";

export interface RpcClientOptions {
  /** host:port of the RPC server (or any target grpc-js takes). */
  address: string;
  /** Milliseconds each call may take before it fails with UNAVAILABLE. Default: no deadline. */
  deadlineMs?: number;
  /**
   * TLS to the server (it serves TLS when SERVICE_TLS_CERT_FILE is set): `ca` is the PEM of the
   * certificate authority to trust; without it, the system's roots. Default: plaintext.
   */
  tls?: ClientTls | null;
  /** Credentials of one's own instead (overrides `tls`). */
  credentials?: grpc.ChannelCredentials;
}

export interface ClientTls {
  /** PEM of the CA (or CAs) the server's certificate must chain to; null: the system's roots. */
  ca: Buffer | null;
}

/** The channel credentials for `tls`: TLS (grpc-js createSsl) or plaintext. */
export function channelCredentials(tls: ClientTls | null | undefined): grpc.ChannelCredentials {
  return tls ? grpc.credentials.createSsl(tls.ca) : grpc.credentials.createInsecure();
}

/**
 * Appends pipelined over one Streams.AppendSession call (one HTTP/2 stream): `append` answers
 * exactly as the unary `append` would, with the same result or the same EssError. The caller
 * bounds how many appends it keeps in flight, as with unary calls; the server reads at most
 * limits.sessionInFlightMax at once and HTTP/2 flow control holds the rest back.
 */
export interface AppendSession {
  append(request: AppendRequest): Promise<AppendResult>;
  /**
   * Half-closes the session: appends already sent are answered, new ones are refused
   * (UNAVAILABLE). Resolves once the server has ended the session.
   */
  close(): Promise<void>;
}

/**
 * Reads pipelined over one Streams.ReadSession call (one HTTP/2 stream): `read` answers exactly
 * as the unary `read` would. As with AppendSession, the caller bounds how many reads it keeps in
 * flight, and the server reads at most limits.sessionInFlightMax requests at once.
 */
export interface ReadSession {
  read(request: ReadRequest): Promise<ReadStreamResult>;
  /** Half-closes the session, as AppendSession's close does. */
  close(): Promise<void>;
}

export interface RpcClient extends Operations {
  /** The underlying clients, for calls outside the Operations interface (Subscribe). */
  readonly grpc: ServiceClients;
  /** Metadata carrying the context's bearer token. */
  metadataFor(ctx: CallContext | null): grpc.Metadata;
  /**
   * Opens a Streams.AppendSession with the context's token, on a connection of its own. A
   * missing, bad or expired token ends it with UNAUTHENTICATED, which every append still waiting
   * then rejects with. No deadline applies to the session (it is long-lived). An open session
   * holds the process open until it is closed (or the client is).
   */
  openAppendSession(ctx: CallContext): AppendSession;
  /** Opens a Streams.ReadSession with the context's token, as openAppendSession does. */
  openReadSession(ctx: CallContext): ReadSession;
  /** Closes the channels; open sessions end, their waiting requests fail with UNAVAILABLE. */
  close(): void;
}

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const target: ChannelTarget = {
    address: options.address,
    credentials: options.credentials ?? channelCredentials(options.tls),
  };
  const clients = openServiceClients(target);
  const calls = createUnaryCalls(clients.streams, options.deadlineMs);
  const sessionCalls = createGrpcSessionCalls(target);
  return {
    ...unaryOperations(calls),
    grpc: clients,
    metadataFor,
    openAppendSession(ctx) {
      const session = openSession(appendSessionKind, (handlers) =>
        sessionCalls.open(appendSessionKind, ctx, handlers),
      );
      return {
        append: (request) => session.request(() => appendMessage(request)),
        close: () => session.close(),
      };
    },
    openReadSession(ctx) {
      const session = openSession(readSessionKind, (handlers) =>
        sessionCalls.open(readSessionKind, ctx, handlers),
      );
      return { read: (request) => session.request(() => readMessage(request)), close: () => session.close() };
    },
    close() {
      calls.close();
      sessionCalls.closeAll();
      closeServiceClients(clients);
    },
  };
}

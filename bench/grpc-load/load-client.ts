/**
 * The benchmark's gRPC client: the product client (src/client/rpc-client.ts) for every call,
 * except the calls the load generator makes by the thousand — Append, Read and ReadAll, and the
 * two sessions — which go over the cheaper transports of this folder (./unary-transport.ts,
 * ./session-transport.ts). The load generator shares the machine's cores with the server it
 * measures, so every microsecond of client CPU it saves is server throughput measured. Requests
 * are checked, built and answered with the product client's own parts (request messages, codecs,
 * session logic, error mapping), so the answers and EssErrors are the product client's
 * (test/bench/grpc-load/ holds both to that). A plaintext `host:port` only.
 *
 * Beside the product client's methods, reads that answer a summary of the page (./read-summary.ts:
 * the event count and revisions, no EventRecords built), for the load generator's read cells,
 * where building every event was most of its CPU per read.
 */
import * as grpc from "@grpc/grpc-js";
import type { ReadRequest } from "../../src/contract/bodies.js";
import type { CallContext } from "../../src/operations/contract.js";
import { createRpcClient, type RpcClient, type RpcClientOptions } from "../../src/client/rpc-client.js";
import { appendMessage, readAllMessage, readMessage } from "../../src/client/request-messages.js";
import {
  appendSessionKind,
  openSession,
  readSessionKind,
  sessionEnded,
  type SessionCall,
  type SessionCallHandlers,
  type SessionKind,
} from "../../src/client/sessions.js";
import { decodeAppendResult, encodeAppendRequest } from "../../src/rpc/codec/append.js";
import {
  encodeReadAllRequest,
  encodeReadRequest,
  type ReadRequestMessage,
} from "../../src/rpc/codec/read-requests.js";
import { decodeReadAllResult, decodeReadResult } from "../../src/rpc/codec/read-results.js";
import { fromServiceError, fromStatus } from "../../src/rpc/error-mapping.js";
import { proto } from "../../src/rpc/proto.js";
import { summarizeReadResult, summarizeReadSessionAnswer, type ReadSummary } from "./read-summary.js";
import { Http2SessionCall } from "./session-transport.js";
import { isPlainAddress, UnaryCallError, UnaryTransport } from "./unary-transport.js";

export type LoadClientOptions = Omit<RpcClientOptions, "credentials">;

export interface LoadClient extends RpcClient {
  /** Streams.Read, answered as a summary of the page (the request is checked as by `read`). */
  readSummary(ctx: CallContext, request: ReadRequest): Promise<ReadSummary>;
  /** A ReadSession whose reads answer summaries. */
  openReadSummarySession(ctx: CallContext): ReadSummarySession;
}

export interface ReadSummarySession {
  read(request: ReadRequest): Promise<ReadSummary>;
  close(): Promise<void>;
}

const paths = proto.ess.v1.Streams.service;

/** ReadSession with each answer's page summarized instead of decoded. */
const readSummarySessionKind: SessionKind<ReadRequestMessage, ReadSummary> = {
  ...readSessionKind,
  decode: summarizeReadSessionAnswer,
};

export function createLoadClient(options: LoadClientOptions): LoadClient {
  if (!isPlainAddress(options.address))
    throw new Error(`the load client takes a plaintext host:port, not ${options.address}`);
  const client = createRpcClient(options);
  const unary = new UnaryTransport({ address: options.address, deadlineMs: options.deadlineMs });
  /** Sessions not ended yet: close() ends them. */
  const sessions = new Set<Http2SessionCall>();

  function call<Req, Res>(
    path: string,
    encode: (request: Req) => Buffer,
    decode: (message: Buffer) => Res,
    request: Req,
    ctx: CallContext | null,
  ): Promise<Res> {
    return unary.call(path, encode, decode, request, ctx?.token ?? null).catch(toEssError);
  }

  return {
    ...client,
    async append(ctx, request) {
      const message = appendMessage(request);
      return call(paths.Append.path, encodeAppendRequest, decodeAppendResult, message, ctx);
    },
    async read(ctx, request) {
      const message = readMessage(request);
      return call(paths.Read.path, encodeReadRequest, decodeReadResult, message, ctx);
    },
    async readSummary(ctx, request) {
      const message = readMessage(request);
      return call(paths.Read.path, encodeReadRequest, summarizeReadResult, message, ctx);
    },
    async readAll(ctx, request) {
      const message = readAllMessage(request);
      return call(paths.ReadAll.path, encodeReadAllRequest, decodeReadAllResult, message, ctx);
    },
    openAppendSession(ctx) {
      const session = openSession(appendSessionKind, (handlers) =>
        http2SessionCall(options.address, appendSessionKind, ctx, handlers, sessions),
      );
      return {
        append: (request) => session.request(() => appendMessage(request)),
        close: () => session.close(),
      };
    },
    openReadSession(ctx) {
      const session = openSession(readSessionKind, (handlers) =>
        http2SessionCall(options.address, readSessionKind, ctx, handlers, sessions),
      );
      return { read: (request) => session.request(() => readMessage(request)), close: () => session.close() };
    },
    openReadSummarySession(ctx) {
      const session = openSession(readSummarySessionKind, (handlers) =>
        http2SessionCall(options.address, readSummarySessionKind, ctx, handlers, sessions),
      );
      return { read: (request) => session.request(() => readMessage(request)), close: () => session.close() };
    },
    close() {
      unary.close();
      for (const session of sessions) session.destroy();
      client.close();
    },
  };
}

/** A failed unary call as the EssError grpc-js's ServiceError would have given (fromServiceError). */
function toEssError(error: unknown): never {
  if (error instanceof UnaryCallError) {
    const s = error.status;
    throw fromStatus(s.code, s.details, s.errorCode, s.errorDetails);
  }
  // A decoder's error on a malformed answer: grpc-js reports it as INTERNAL.
  throw fromServiceError({ code: grpc.status.INTERNAL });
}

/** A session call over ./session-transport.ts, as src/client/sessions.ts drives it. */
function http2SessionCall<Result>(
  address: string,
  kind: SessionKind<unknown, Result>,
  ctx: CallContext,
  handlers: SessionCallHandlers<Result>,
  open: Set<Http2SessionCall>,
): SessionCall {
  const call = new Http2SessionCall(address, kind.path, ctx.token ?? null, kind.answerBytesMax, {
    message: (message) => handlers.answer(kind.decode(message)),
    end: (status) => {
      open.delete(call);
      handlers.ended(
        status.code === grpc.status.OK
          ? sessionEnded(kind.noun)
          : fromStatus(status.code, status.details, status.errorCode, status.errorDetails),
      );
    },
  });
  open.add(call);
  return {
    send: (message, written) => call.send(message, written),
    halfClose: () => call.halfClose(),
    hold: (busy) => call.hold(busy),
  };
}

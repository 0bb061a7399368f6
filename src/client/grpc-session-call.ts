/**
 * Session calls through grpc-js's bidi streams, each on a channel of its own (./grpc-channels.ts)
 * that is closed when the call ends. grpc-js's stream object writes one message at a time and
 * waits for each to reach the socket (grpc/grpc-node#2899), so every request costs a socket write
 * of its own; and grpc-js holds the process open while a call is open, so a session that is never
 * closed keeps a program running until the client is closed.
 */
import * as grpc from "@grpc/grpc-js";
import type { CallContext } from "../operations/contract.js";
import type { EssError } from "../errors.js";
import { fromServiceError } from "../rpc/error-mapping.js";
import type { DecodedSessionAnswer } from "../rpc/session-codec.js";
import { metadataFor, openSessionStreams, type ChannelTarget } from "./grpc-channels.js";
import { channelShutDown } from "./unary-calls.js";
import { sessionEnded, type SessionCall, type SessionCallHandlers, type SessionKind } from "./sessions.js";

export interface GrpcSessionCalls {
  open<Result>(
    kind: SessionKind<unknown, Result>,
    ctx: CallContext,
    handlers: SessionCallHandlers<Result>,
  ): SessionCall;
  /**
   * Ends every open session call: their waiting requests fail with UNAVAILABLE, as a shut-down
   * channel's calls do (grpc-js leaves calls open when their channel closes); so do the sessions
   * opened later.
   */
  closeAll(): void;
}

export function createGrpcSessionCalls(target: ChannelTarget): GrpcSessionCalls {
  /** Ends the calls not ended yet, for closeAll. */
  const openCalls = new Set<(error: EssError) => void>();
  let closed = false;
  return {
    open<Result>(
      kind: SessionKind<unknown, Result>,
      ctx: CallContext,
      handlers: SessionCallHandlers<Result>,
    ) {
      if (closed) {
        handlers.ended(channelShutDown());
        return { send: () => undefined, halfClose: () => undefined, hold: () => undefined };
      }
      const streams = openSessionStreams(target, kind.answerBytesMax);
      const call = streams.makeBidiStreamRequest(
        kind.path,
        (message: Buffer) => message,
        (answer: Buffer) => kind.decode(answer),
        metadataFor(ctx),
        {},
      );
      const end = (error: EssError): void => {
        if (!openCalls.delete(end)) return;
        handlers.ended(error);
        call.cancel();
        streams.close();
      };
      openCalls.add(end);
      call.on("data", (answer: DecodedSessionAnswer<Result>) => handlers.answer(answer));
      call.on("error", (error: grpc.ServiceError) => end(fromServiceError(error)));
      call.on("status", (status: grpc.StatusObject) => {
        if (status.code === grpc.status.OK) end(sessionEnded(kind.noun));
      });
      return {
        send: (message, written) => call.write(message, written),
        halfClose: () => call.end(),
        // grpc-js holds the process open while the call is open, whatever this asks.
        hold: () => undefined,
      };
    },
    closeAll() {
      closed = true;
      for (const end of [...openCalls]) end(channelShutDown());
    },
  };
}

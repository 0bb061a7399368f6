/**
 * Streams.AppendSession and Streams.ReadSession: one PipelinedSession (../pipelined-session.ts)
 * per call, on whichever channel the carrier gives, with the hand-written codecs of
 * ../session-codec.ts. An append runs the unary Append's operation, a read the unary Read's.
 */
import type { CallContext, Operations } from "../../operations/contract.js";
import { limits } from "../../limits.js";
import type { AppendResult, ReadStreamResult } from "../../contract/bodies.js";
import * as convert from "../convert.js";
import type { AppendRequest__Output } from "../generated/ess/v1/AppendRequest.js";
import type { AppendSessionRequest__Output } from "../generated/ess/v1/AppendSessionRequest.js";
import type { ReadRequest__Output } from "../generated/ess/v1/ReadRequest.js";
import type { ReadSessionRequest__Output } from "../generated/ess/v1/ReadSessionRequest.js";
import {
  PipelinedSession,
  type SessionChannel,
  type SessionEntry,
  type SessionOptions,
} from "../pipelined-session.js";
import {
  decodeAppendSessionRequest,
  decodeReadSessionRequest,
  encodeAppendSessionFrame,
  encodeAppendSessionResponse,
  encodeReadSessionFrame,
  encodeReadSessionResponse,
} from "../session-codec.js";
import { shuttingDown, type LongLivedCalls } from "./long-lived-calls.js";
import type { AnySessionMethod, SessionMethod } from "./method.js";
import { pageBytes } from "./reads.js";

/** What a session's requests run: everything but its channel, context and the server's bounds. */
type SessionRules<Request, Payload, Result> = Pick<
  SessionOptions<Request, Payload, Result>,
  "payloadField" | "payloadOf" | "furtherOf" | "run" | "answerBytes" | "runningBytes"
>;

const noEntries: readonly SessionEntry<AppendRequest__Output>[] = [];

export interface SessionDeps {
  ops: Operations;
  calls: LongLivedCalls;
  /** Checks a session's token at its start and tells when it expires. */
  authenticate?: (ctx: CallContext) => Promise<{ expires_at_ms: number }>;
  /** Requests run at once per session. Default limits.sessionInFlightMax. */
  inFlightMax?: number;
}

export function sessionMethods(deps: SessionDeps): AnySessionMethod[] {
  const { ops, calls } = deps;
  function opener<Request extends { correlation_id: number }, Payload, Result>(
    rules: SessionRules<Request, Payload, Result>,
  ): SessionMethod<Request, Result>["open"] {
    return (channel: SessionChannel<Request, Result>, ctx: CallContext) => {
      if (calls.isStopping) {
        channel.end(shuttingDown());
        return;
      }
      const session: PipelinedSession<Request, Payload, Result> = new PipelinedSession(
        channel,
        ctx,
        { ...rules, authenticate: deps.authenticate, inFlightMax: deps.inFlightMax },
        () => calls.deleteSession(session),
      );
      calls.addSession(session);
      session.start();
    };
  }

  const appendSession: SessionMethod<AppendSessionRequest__Output, AppendResult> = {
    kind: "session",
    path: "/ess.v1.Streams/AppendSession",
    access: "authenticated",
    decode: decodeAppendSessionRequest,
    encode: encodeAppendSessionResponse,
    encodeFrame: encodeAppendSessionFrame,
    open: opener<AppendSessionRequest__Output, AppendRequest__Output, AppendResult>({
      payloadField: "append",
      payloadOf: (r) => r.append,
      // Several appends in one message: handed to the operation together, so that they join one
      // group commit (docs/rpc.md, "Several appends in one message").
      furtherOf: (r) =>
        r.appends.length === 0
          ? noEntries
          : r.appends.map((entry) => ({ correlation_id: entry.correlation_id, payload: entry.append })),
      run: (ctx, append) => ops.append(ctx, convert.fromPbAppendRequest(append)),
    }),
  };
  const readSession: SessionMethod<ReadSessionRequest__Output, ReadStreamResult> = {
    kind: "session",
    path: "/ess.v1.Streams/ReadSession",
    access: "authenticated",
    decode: decodeReadSessionRequest,
    encode: encodeReadSessionResponse,
    encodeFrame: encodeReadSessionFrame,
    // Reads wait while the session's unwritten answers, with a whole page for each read
    // running, weigh limits.sessionUnwrittenBytesMax.
    open: opener<ReadSessionRequest__Output, ReadRequest__Output, ReadStreamResult>({
      payloadField: "read",
      payloadOf: (r) => r.read,
      run: (ctx, read) => ops.read(ctx, convert.fromPbReadRequest(read)),
      answerBytes: pageBytes,
      runningBytes: limits.readPageBytesMax,
    }),
  };
  return [appendSession, readSession];
}

/**
 * The fast carrier's stream handlers for methods of the table (../methods/): each call takes the
 * steps every carrier takes (../methods/admission.ts) and is answered straight on its stream.
 */
import { toEssError } from "../../errors.js";
import type { CallContext } from "../../operations/contract.js";
import type { ConnectionReadBudget } from "../connection-read-budget.js";
import { toCallFailure } from "../error-mapping.js";
import { grpcFrame } from "../grpc-frame.js";
import { admitCall, callContext, type Admission } from "../methods/admission.js";
import type {
  AnyServerStreamMethod,
  AnySessionMethod,
  AnyUnaryMethod,
  Outcome,
  UnaryCall,
} from "../methods/method.js";
import type { FastConnection, FastConnections } from "./connections.js";
import { requestIdOf, type FastStreamHandler } from "./grpc-answers.js";
import { FastServerStreamCall } from "./server-stream-call.js";
import { sessionFastPath } from "./session-call.js";
import type { FastUnaryCall, FastUnaryHandler } from "./unary-call.js";

export interface MethodHandlerDeps {
  connections: FastConnections;
  admission: Admission;
  receiveBytesMax: number;
}

/** A unary call as its method's handler sees it (../methods/method.ts), on a fast-carrier call. */
class FastMethodCall<Result> implements UnaryCall {
  constructor(
    private readonly call: FastUnaryCall,
    private readonly connection: FastConnection,
    readonly ctx: CallContext,
    private readonly encodeFrame: (result: Result) => Buffer,
  ) {}

  get cancelled(): boolean {
    return this.call.cancelled;
  }

  get stream(): FastUnaryCall["stream"] {
    return this.call.stream;
  }

  readBudget(): ConnectionReadBudget {
    return this.connection.readBudget();
  }

  /** Answers with the outcome: its result framed in place, or its failure's status. */
  readonly done = (outcome: Outcome<Result>): void => {
    if (outcome.error !== null) {
      this.call.fail(toCallFailure(outcome.error));
      return;
    }
    let frame: Buffer;
    try {
      frame = this.encodeFrame(outcome.result);
    } catch (error) {
      this.call.fail(toCallFailure(toEssError(error)));
      return;
    }
    this.call.answer(frame);
  };
}

/** The handler of a unary method: the token verified, the message decoded, the answer framed in place. */
export function unaryMethodHandler(method: AnyUnaryMethod, deps: MethodHandlerDeps): FastUnaryHandler {
  const encodeFrame = method.encodeFrame ?? ((result: unknown) => grpcFrame(method.encode(result)));
  return (call, message) => {
    const connection = deps.connections.of(call.stream);
    const ctx = callContext(
      method.access,
      connection.contextOf(call.authorization, requestIdOf(call.stream)),
      () => connection.peer,
    );
    admitCall(
      method,
      ctx,
      message,
      deps.admission,
      (admitted, request) => {
        const methodCall = new FastMethodCall(call, connection, admitted, encodeFrame);
        method.serve(methodCall, request, methodCall.done);
      },
      (failure) => call.fail(toCallFailure(failure)),
    );
  };
}

/** The handler of a server-streaming method: the token verified, the message decoded, then served. */
export function serverStreamMethodHandler(
  method: AnyServerStreamMethod,
  deps: MethodHandlerDeps,
): FastStreamHandler {
  const serve = (call: FastServerStreamCall<unknown>, message: Buffer): void => {
    const connection = deps.connections.of(call.stream);
    const ctx = callContext(
      method.access,
      connection.contextOf(call.authorization, requestIdOf(call.stream)),
      () => connection.peer,
    );
    admitCall(
      method,
      ctx,
      message,
      deps.admission,
      (admitted, request) => {
        call.ctx = admitted;
        method.serve(call, request);
      },
      (failure) => call.end(failure),
    );
  };
  return (stream, headers) =>
    new FastServerStreamCall(
      stream,
      headers,
      deps.receiveBytesMax,
      deps.connections.of(stream).peer,
      method.encode,
      serve,
    ).start();
}

/** The handler of a session method: its session opened on the stream. */
export function sessionMethodHandler(method: AnySessionMethod, deps: MethodHandlerDeps): FastStreamHandler {
  return sessionFastPath(
    { decode: method.decode, encodeFrame: method.encodeFrame },
    deps.receiveBytesMax,
    (call) =>
      method.open(
        call,
        deps.connections.of(call.stream).contextOf(call.authorization, requestIdOf(call.stream)),
      ),
  );
}

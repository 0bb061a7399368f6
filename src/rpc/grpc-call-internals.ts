/**
 * The two grpc-js server internals this server reaches beneath a call's public object, in one
 * place: grpc-js keeps its call object at `call.call` (BaseServerInterceptingCall in its
 * server-interceptors.ts; an interceptor would wrap it, and this server installs none) and that
 * object's node:http2 stream at `.stream`. Each accessor gives null when the shape is not there
 * (another grpc-js version), and its caller falls back to the public path.
 */
import type * as http2 from "node:http2";

/** The call object's `sendMessage(message, written)`, bound to it; null when it is not there. */
export function callSendMessage(call: object): ((message: unknown, written: () => void) => void) | null {
  const inner = (call as { call?: { sendMessage?: unknown } }).call;
  const sendMessage = inner?.sendMessage;
  if (typeof sendMessage !== "function") return null;
  return (message, written) => {
    (sendMessage as (message: unknown, callback: () => void) => void).call(inner, message, written);
  };
}

/** The node:http2 stream beneath a call; null when it is not there. */
export function callHttp2Stream(call: object): http2.ServerHttp2Stream | null {
  const stream = (call as { call?: { stream?: unknown } }).call?.stream;
  if (typeof stream !== "object" || stream === null) return null;
  const candidate = stream as Partial<http2.ServerHttp2Stream>;
  const isStream =
    typeof candidate.once === "function" &&
    typeof candidate.cork === "function" &&
    typeof candidate.closed === "boolean" &&
    typeof candidate.session === "object";
  return isStream ? (stream as http2.ServerHttp2Stream) : null;
}

/**
 * The grpc-js server internals this server reaches, in one place: beneath a call's public
 * object, grpc-js keeps its call object at `call.call` (BaseServerInterceptingCall in its
 * server-interceptors.ts; an interceptor would wrap it, and this server installs none) and that
 * object's node:http2 stream at `.stream`; a Server keeps its node:http2 servers as the keys of
 * `http2Servers` (server.ts). Each accessor gives null when the shape is not there (another
 * grpc-js version), and its caller falls back to the public path.
 */
import type * as http2 from "node:http2";
import * as net from "node:net";

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

/**
 * Resets the HTTP/2 stream beneath a call with RST_STREAM `code`: what is queued on it is dropped,
 * not sent first (grpc-js has no public way to end a server call without its status, which
 * waits behind the queued messages). False when the stream is not there.
 */
export function resetCallStream(call: object, code: number): boolean {
  const stream = callHttp2Stream(call);
  if (stream === null) return false;
  if (!stream.closed) stream.close(code);
  return true;
}

/** The node:http2 servers of a bound grpc-js Server; null when they are not there. */
export function serverHttp2Servers(server: object): http2.Http2Server[] | null {
  const servers = (server as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return null;
  const keys = [...(servers as Map<unknown, unknown>).keys()];
  return keys.length > 0 && keys.every((key) => key instanceof net.Server)
    ? (keys as http2.Http2Server[])
    : null;
}

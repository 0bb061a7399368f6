/**
 * Whether a server speaks TLS, asked directly: a client whose call failed with UNAVAILABLE can then
 * say why ("the server speaks TLS", "the server does not speak TLS", "its certificate is not
 * trusted") instead of grpc-js's generic connection failure. One TLS handshake (ALPN h2), bounded
 * by a timeout; the connection is closed at once.
 */
import { isIP } from "node:net";
import { connect } from "node:tls";

export type TlsProbe =
  /** Nothing accepted the TCP connection (or it did not come in time). */
  | { kind: "unreachable"; reason: string }
  /** A TCP connection, but no TLS handshake: a plaintext server (or not a server of ours). */
  | { kind: "plaintext" }
  /** A TLS handshake; `untrusted` says why the certificate fails verification against `ca`, or null. */
  | { kind: "tls"; untrusted: string | null };

export function probeTls(host: string, port: number, ca: Buffer | null, timeoutMs = 3000): Promise<TlsProbe> {
  return new Promise((resolve) => {
    let connected = false;
    const socket = connect({
      host,
      port,
      ...(ca === null ? {} : { ca }),
      // Verified below, to report rather than refuse.
      rejectUnauthorized: false,
      ALPNProtocols: ["h2"],
      ...(isIP(host) === 0 ? { servername: host } : {}),
    });
    const finish = (probe: TlsProbe): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(probe);
    };
    const timer = setTimeout(
      () => finish(connected ? { kind: "plaintext" } : { kind: "unreachable", reason: "timed out" }),
      timeoutMs,
    );
    socket.once("connect", () => (connected = true));
    socket.once("secureConnect", () => {
      const error = socket.authorizationError as Error | string | null | undefined;
      finish({
        kind: "tls",
        untrusted: socket.authorized || error == null ? null : error instanceof Error ? error.message : error,
      });
    });
    socket.once("error", (error: NodeJS.ErrnoException) =>
      finish(
        connected ? { kind: "plaintext" } : { kind: "unreachable", reason: error.code ?? error.message },
      ),
    );
  });
}

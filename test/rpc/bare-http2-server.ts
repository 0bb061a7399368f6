// A bare node:http2 server for client tests that need a peer misbehaving on purpose (never
// answering, refusing a stream, dropping the connection, sending broken answers).
import * as http2 from "node:http2";
import type { Socket } from "node:net";

/** A bare HTTP/2 server; `onStream` decides what each request gets. */
export async function bareServer(
  onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, index: number) => void,
): Promise<{ address: string; dropConnections(): void; close(): Promise<void> }> {
  const server = http2.createServer();
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  let index = 0;
  server.on("stream", (stream, headers) => {
    stream.on("error", () => undefined);
    onStream(stream, headers, index++);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    /** Cuts the TCP connections as a crash or a network failure would (no GOAWAY). */
    dropConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}

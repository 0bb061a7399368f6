/**
 * A client HTTP/2 connection (RFC 9113) over a plain TCP socket, for the benchmark load
 * generator's unary gRPC transport (../unary-transport.ts); no product path uses it. node:http2 gives every stream a Duplex object, an events emitter and a
 * headers object built in C++ and again in JS; at one call per stream that was most of the
 * client's CPU per call and most of its garbage (docs/rpc.md, "The benchmark's load generator"). Here a
 * stream is a small record and its owner gets plain callbacks.
 *
 * What it does: the connection preface and settings (push off, wide receive windows), PING and
 * SETTINGS acknowledgements, HPACK (./hpack.ts), flow control both ways (a request body larger
 * than the peer's windows waits for WINDOW_UPDATE; received data is acknowledged once half a
 * window is used), the peer's concurrent-stream limit (streams past it wait their turn), GOAWAY
 * (streams it did not take are reported refused, the rest finish), RST_STREAM both ways. A
 * protocol error from the peer ends the connection with GOAWAY and fails its streams.
 *
 * What it does not: TLS, server push, priorities, being a server.
 */
import * as net from "node:net";
import { HpackDecoder, HpackError, type HeaderFields } from "./hpack.js";
import { TickCork } from "../../../src/tick-cork.js";

const FRAME_DATA = 0x0;
const FRAME_HEADERS = 0x1;
const FRAME_RST_STREAM = 0x3;
const FRAME_SETTINGS = 0x4;
const FRAME_PUSH_PROMISE = 0x5;
const FRAME_PING = 0x6;
const FRAME_GOAWAY = 0x7;
const FRAME_WINDOW_UPDATE = 0x8;
const FRAME_CONTINUATION = 0x9;

const FLAG_END_STREAM = 0x1;
const FLAG_ACK = 0x1;
const FLAG_END_HEADERS = 0x4;
const FLAG_PADDED = 0x8;
const FLAG_PRIORITY = 0x20;

const SETTINGS_HEADER_TABLE_SIZE = 0x1;
const SETTINGS_ENABLE_PUSH = 0x2;
const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
const SETTINGS_MAX_FRAME_SIZE = 0x5;

export const H2_NO_ERROR = 0x0;
export const H2_PROTOCOL_ERROR = 0x1;
export const H2_FLOW_CONTROL_ERROR = 0x3;
export const H2_FRAME_SIZE_ERROR = 0x6;
export const H2_REFUSED_STREAM = 0x7;
export const H2_CANCEL = 0x8;
export const H2_COMPRESSION_ERROR = 0x9;

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
const FRAME_HEADER_BYTES = 9;
/** The largest frame this side accepts (the protocol's default; this side does not raise it). */
const RECEIVE_FRAME_BYTES_MAX = 16_384;
const DEFAULT_WINDOW = 65_535;
const WINDOW_MAX = 2 ** 31 - 1;
const STREAM_ID_MAX = 2 ** 31 - 1;
const HEADER_TABLE_BYTES = 4_096;

/** Why a stream ended without the peer's END_STREAM. */
export type StreamAbort =
  /** RST_STREAM from the peer, with its error code. */
  | { kind: "reset"; code: number }
  /** Never processed: past a GOAWAY's last stream id, or never sent before the connection went. */
  | { kind: "refused"; message: string }
  /** The connection failed or was closed under the stream. */
  | { kind: "connection"; message: string };

/** What a stream's owner hears. Exactly one of `headers`/`data` with endStream, or `aborted`, ends it. */
export interface StreamHandler {
  /** A header block: the response headers, then (if any) the trailers. */
  onHeaders(fields: HeaderFields, endStream: boolean): void;
  onData(chunk: Buffer, endStream: boolean): void;
  onAbort(reason: StreamAbort): void;
}

export interface H2Stream {
  /** 0 while waiting for the peer's stream limit. */
  id: number;
  readonly handler: StreamHandler;
  readonly headerBlock: Buffer;
  /** What is left of the request body to send (END_STREAM goes with its last byte). */
  body: Buffer | null;
  sendWindow: number;
  receivedUnacknowledged: number;
}

export interface H2ConnectionOptions {
  host: string;
  port: number;
  /** SETTINGS_INITIAL_WINDOW_SIZE this side announces (each stream's receive window). */
  streamWindowBytes: number;
  /** The connection's receive window. */
  connectionWindowBytes: number;
  /** The most octets of one decoded header list. */
  headerListBytesMax: number;
  /** Called once, when the connection stops taking new streams (GOAWAY, error, close). */
  onRetire: () => void;
}

export class H2ClientConnection {
  /** False once new streams must go to another connection. */
  usable = true;
  /** Header blocks received for open streams: a connection answering nothing may be half-open. */
  answers = 0;
  private readonly socket: net.Socket;
  private readonly decoder: HpackDecoder;
  private readonly streams = new Map<number, H2Stream>();
  private readonly waiting: H2Stream[] = [];
  private nextStreamId = 1;
  /**
   * Until the peer's first SETTINGS: 100, as nghttp2 (node:http2, grpc-js) assumes, so that a
   * burst of calls on a new connection is not refused past the server's limit (its
   * limits.rpcConnectionStreamsMax is 100 too); then the peer's value, unlimited if it sends none.
   */
  private peerStreamsMax = 100;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerFrameBytesMax = 16_384;
  private connectionSendWindow = DEFAULT_WINDOW;
  private connectionReceivedUnacknowledged = 0;
  private settingsSeen = false;
  private inbox: Buffer | null = null;
  /** A header block in progress (HEADERS without END_HEADERS, then CONTINUATION frames). */
  private partialBlock: { streamId: number; endStream: boolean; fragments: Buffer[] } | null = null;
  private readonly cork: TickCork;
  /** Set once this side has ended the socket: nothing more is written. */
  private ending = false;
  private referenced = false;
  private closedReason: string | null = null;
  private socketError: Error | null = null;

  constructor(private readonly options: H2ConnectionOptions) {
    this.decoder = new HpackDecoder(HEADER_TABLE_BYTES, options.headerListBytesMax);
    this.socket = net.connect({ host: options.host, port: options.port });
    this.socket.setNoDelay(true);
    this.cork = new TickCork(this.socket);
    this.socket.unref();
    this.socket.on("data", (chunk: Buffer) => this.receive(chunk));
    this.socket.on("error", (error) => {
      this.socketError = error;
    });
    this.socket.on("close", () => this.closed(this.socketError?.message ?? "Connection closed"));
    const settings = Buffer.alloc(12);
    settings.writeUInt16BE(SETTINGS_ENABLE_PUSH, 0);
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(SETTINGS_INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(options.streamWindowBytes, 8);
    const parts = [PREFACE, frameHeader(settings.length, FRAME_SETTINGS, 0, 0), settings];
    if (options.connectionWindowBytes > DEFAULT_WINDOW) {
      parts.push(windowUpdate(0, options.connectionWindowBytes - DEFAULT_WINDOW));
    }
    this.write(Buffer.concat(parts));
  }

  /** Opens a stream (or queues it behind the peer's stream limit). Only on a usable connection. */
  open(headerBlock: Buffer, body: Buffer, handler: StreamHandler): H2Stream {
    const stream: H2Stream = {
      id: 0,
      handler,
      headerBlock,
      body,
      sendWindow: 0,
      receivedUnacknowledged: 0,
    };
    if (this.streams.size < this.peerStreamsMax) this.start(stream);
    else this.waiting.push(stream);
    this.updateReference();
    return stream;
  }

  /** Abandons a stream: RST_STREAM with `code` if it was sent, else it leaves the queue. */
  cancel(stream: H2Stream, code: number): void {
    if (stream.id === 0) {
      const at = this.waiting.indexOf(stream);
      if (at >= 0) this.waiting.splice(at, 1);
    } else if (this.streams.get(stream.id) === stream) {
      this.release(stream, code);
    }
    this.updateReference();
  }

  /** Takes no new streams; closes once the open ones are done. */
  retire(): void {
    this.markUnusable();
    this.endIfIdle();
  }

  /** Closes at once: open and waiting streams fail. */
  destroy(message: string): void {
    this.markUnusable();
    this.socket.destroy();
    this.closed(message);
  }

  // ------------------------------------------------------------ sending

  private start(stream: H2Stream): void {
    if (this.nextStreamId > STREAM_ID_MAX) {
      stream.handler.onAbort({ kind: "refused", message: "stream ids exhausted" });
      this.retire();
      return;
    }
    stream.id = this.nextStreamId;
    this.nextStreamId += 2;
    if (this.nextStreamId > STREAM_ID_MAX) this.markUnusable();
    stream.sendWindow = this.peerInitialWindow;
    this.streams.set(stream.id, stream);
    // One HEADERS frame, then CONTINUATION frames for a block larger than the peer's frames.
    const block = stream.headerBlock;
    for (let at = 0; at < block.length;) {
      const end = Math.min(block.length, at + this.peerFrameBytesMax);
      const type = at === 0 ? FRAME_HEADERS : FRAME_CONTINUATION;
      const flags = end === block.length ? FLAG_END_HEADERS : 0;
      this.write(frameHeader(end - at, type, flags, stream.id), block.subarray(at, end));
      at = end;
    }
    this.sendBody(stream);
  }

  /** Sends as much of the body as the windows allow, END_STREAM with the last of it. */
  private sendBody(stream: H2Stream): void {
    const body = stream.body;
    if (body === null) return;
    let at = 0;
    for (;;) {
      const n = Math.min(
        body.length - at,
        stream.sendWindow,
        this.connectionSendWindow,
        this.peerFrameBytesMax,
      );
      const last = at + n === body.length;
      // A window closed (or below zero after a SETTINGS change): the rest waits for WINDOW_UPDATE.
      if (n <= 0 && !last) break;
      this.write(
        frameHeader(n, FRAME_DATA, last ? FLAG_END_STREAM : 0, stream.id),
        body.subarray(at, at + n),
      );
      stream.sendWindow -= n;
      this.connectionSendWindow -= n;
      at += n;
      if (last) {
        stream.body = null;
        return;
      }
    }
    stream.body = body.subarray(at);
  }

  private sendBlockedBodies(): void {
    for (const stream of this.streams.values()) {
      if (this.connectionSendWindow <= 0) return;
      if (stream.body !== null) this.sendBody(stream);
    }
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.streams.size < this.peerStreamsMax && this.closedReason === null) {
      this.start(this.waiting.shift() as H2Stream);
    }
  }

  /** Frames written in one tick leave in one socket write. */
  private write(...buffers: Buffer[]): void {
    if (this.closedReason !== null || this.ending) return;
    this.cork.hold();
    for (const buffer of buffers) this.socket.write(buffer);
  }

  // ------------------------------------------------------------ receiving

  private receive(chunk: Buffer): void {
    const buf = this.inbox === null ? chunk : Buffer.concat([this.inbox, chunk]);
    this.inbox = null;
    let at = 0;
    try {
      while (buf.length - at >= FRAME_HEADER_BYTES) {
        const length = buf.readUIntBE(at, 3);
        if (length > RECEIVE_FRAME_BYTES_MAX)
          throw new ConnectionError(H2_FRAME_SIZE_ERROR, "frame too large");
        if (buf.length - at < FRAME_HEADER_BYTES + length) break;
        const type = buf.readUInt8(at + 3);
        const flags = buf.readUInt8(at + 4);
        const streamId = buf.readUInt32BE(at + 5) & 0x7fffffff;
        const payload = buf.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + length);
        at += FRAME_HEADER_BYTES + length;
        this.frame(type, flags, streamId, payload);
        if (this.closedReason !== null) return;
      }
    } catch (error) {
      if (!(error instanceof ConnectionError)) throw error;
      this.fail(error.code, error.message);
      return;
    }
    // Copied: a slice would keep the whole socket chunk alive until the frame completes.
    if (at < buf.length) this.inbox = Buffer.from(buf.subarray(at));
  }

  private frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (!this.settingsSeen && type !== FRAME_SETTINGS) {
      throw new ConnectionError(H2_PROTOCOL_ERROR, "the server's preface is not a SETTINGS frame");
    }
    if (
      this.partialBlock !== null &&
      (type !== FRAME_CONTINUATION || streamId !== this.partialBlock.streamId)
    ) {
      throw new ConnectionError(H2_PROTOCOL_ERROR, "a header block was interrupted");
    }
    switch (type) {
      case FRAME_DATA:
        return this.onData(flags, streamId, payload);
      case FRAME_HEADERS:
        return this.onHeaders(flags, streamId, payload);
      case FRAME_CONTINUATION:
        return this.onContinuation(flags, streamId, payload);
      case FRAME_RST_STREAM:
        return this.onReset(streamId, payload);
      case FRAME_SETTINGS:
        return this.onSettings(flags, streamId, payload);
      case FRAME_PING:
        if (payload.length !== 8) throw new ConnectionError(H2_FRAME_SIZE_ERROR, "PING of a wrong size");
        if ((flags & FLAG_ACK) === 0)
          this.write(frameHeader(8, FRAME_PING, FLAG_ACK, 0), Buffer.from(payload));
        return;
      case FRAME_GOAWAY:
        return this.onGoaway(payload);
      case FRAME_WINDOW_UPDATE:
        return this.onWindowUpdate(streamId, payload);
      case FRAME_PUSH_PROMISE:
        throw new ConnectionError(H2_PROTOCOL_ERROR, "server push was disabled");
      default:
        // PRIORITY and unknown frame types are ignored (RFC 9113 4.1, 5.5).
        return;
    }
  }

  private onData(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) throw new ConnectionError(H2_PROTOCOL_ERROR, "DATA on stream 0");
    this.connectionReceivedUnacknowledged += payload.length;
    if (this.connectionReceivedUnacknowledged >= this.options.connectionWindowBytes / 2) {
      this.write(windowUpdate(0, this.connectionReceivedUnacknowledged));
      this.connectionReceivedUnacknowledged = 0;
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    const data = unpadded(flags, payload);
    const endStream = (flags & FLAG_END_STREAM) !== 0;
    if (endStream) {
      this.finish(stream);
    } else {
      stream.receivedUnacknowledged += payload.length;
      if (stream.receivedUnacknowledged >= this.options.streamWindowBytes / 2) {
        this.write(windowUpdate(stream.id, stream.receivedUnacknowledged));
        stream.receivedUnacknowledged = 0;
      }
    }
    stream.handler.onData(data, endStream);
  }

  private onHeaders(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) throw new ConnectionError(H2_PROTOCOL_ERROR, "HEADERS on stream 0");
    let fragment = unpadded(flags, payload);
    if ((flags & FLAG_PRIORITY) !== 0) {
      if (fragment.length < 5) throw new ConnectionError(H2_FRAME_SIZE_ERROR, "HEADERS too short");
      fragment = fragment.subarray(5);
    }
    const endStream = (flags & FLAG_END_STREAM) !== 0;
    if ((flags & FLAG_END_HEADERS) !== 0) this.headerBlock(streamId, endStream, fragment);
    else this.partialBlock = { streamId, endStream, fragments: [Buffer.from(fragment)] };
  }

  private onContinuation(flags: number, streamId: number, payload: Buffer): void {
    const partial = this.partialBlock;
    if (partial === null) throw new ConnectionError(H2_PROTOCOL_ERROR, "CONTINUATION without HEADERS");
    partial.fragments.push(Buffer.from(payload));
    const bytes = partial.fragments.reduce((sum, f) => sum + f.length, 0);
    if (bytes > this.options.headerListBytesMax * 2) {
      throw new ConnectionError(H2_PROTOCOL_ERROR, "header block too large");
    }
    if ((flags & FLAG_END_HEADERS) !== 0) {
      this.partialBlock = null;
      this.headerBlock(streamId, partial.endStream, Buffer.concat(partial.fragments));
    }
  }

  private headerBlock(streamId: number, endStream: boolean, block: Buffer): void {
    if (streamId % 2 === 0 || streamId >= this.nextStreamId) {
      throw new ConnectionError(
        H2_PROTOCOL_ERROR,
        `HEADERS on stream ${streamId}, which this side never opened`,
      );
    }
    let fields: HeaderFields;
    try {
      // Decoded even for a stream already cancelled: the tables must stay in step with the peer.
      fields = this.decoder.decode(block);
    } catch (error) {
      if (error instanceof HpackError) throw new ConnectionError(H2_COMPRESSION_ERROR, error.message);
      throw error;
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    this.answers++;
    if (endStream) this.finish(stream);
    stream.handler.onHeaders(fields, endStream);
  }

  private onReset(streamId: number, payload: Buffer): void {
    if (streamId === 0 || payload.length !== 4)
      throw new ConnectionError(H2_PROTOCOL_ERROR, "bad RST_STREAM");
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    this.release(stream);
    stream.handler.onAbort({ kind: "reset", code: payload.readUInt32BE(0) });
  }

  private onSettings(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) throw new ConnectionError(H2_PROTOCOL_ERROR, "SETTINGS on a stream");
    if ((flags & FLAG_ACK) !== 0) return;
    if (payload.length % 6 !== 0) throw new ConnectionError(H2_FRAME_SIZE_ERROR, "SETTINGS of a wrong size");
    if (!this.settingsSeen) this.peerStreamsMax = Number.POSITIVE_INFINITY;
    this.settingsSeen = true;
    for (let at = 0; at < payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (id === SETTINGS_MAX_CONCURRENT_STREAMS) {
        this.peerStreamsMax = value;
      } else if (id === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > WINDOW_MAX) throw new ConnectionError(H2_FLOW_CONTROL_ERROR, "initial window too large");
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
      } else if (id === SETTINGS_MAX_FRAME_SIZE) {
        if (value < 16_384 || value > 16_777_215) {
          throw new ConnectionError(H2_PROTOCOL_ERROR, "MAX_FRAME_SIZE out of range");
        }
        this.peerFrameBytesMax = value;
      } else if (id === SETTINGS_HEADER_TABLE_SIZE || id === SETTINGS_ENABLE_PUSH) {
        // This side's encoder never indexes, and a client ignores ENABLE_PUSH.
      }
    }
    this.write(frameHeader(0, FRAME_SETTINGS, FLAG_ACK, 0));
    this.sendBlockedBodies();
    this.startWaiting();
  }

  private onGoaway(payload: Buffer): void {
    if (payload.length < 8) throw new ConnectionError(H2_FRAME_SIZE_ERROR, "GOAWAY too short");
    const lastStreamId = payload.readUInt32BE(0) & 0x7fffffff;
    const code = payload.readUInt32BE(4);
    this.markUnusable();
    const message = `New streams cannot be created after receiving a GOAWAY (code ${code})`;
    const refused = [...this.waiting];
    this.waiting.length = 0;
    for (const stream of this.streams.values()) {
      if (stream.id > lastStreamId) {
        this.streams.delete(stream.id);
        refused.push(stream);
      }
    }
    this.updateReference();
    this.endIfIdle();
    for (const stream of refused) stream.handler.onAbort({ kind: "refused", message });
  }

  private onWindowUpdate(streamId: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ConnectionError(H2_FRAME_SIZE_ERROR, "WINDOW_UPDATE of a wrong size");
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (streamId === 0) {
      if (increment === 0) throw new ConnectionError(H2_PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
      this.connectionSendWindow += increment;
      if (this.connectionSendWindow > WINDOW_MAX) {
        throw new ConnectionError(H2_FLOW_CONTROL_ERROR, "connection window above 2^31-1");
      }
      this.sendBlockedBodies();
      return;
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    stream.sendWindow += increment;
    if (increment === 0 || stream.sendWindow > WINDOW_MAX) {
      this.release(stream, increment === 0 ? H2_PROTOCOL_ERROR : H2_FLOW_CONTROL_ERROR);
      stream.handler.onAbort({ kind: "connection", message: "the server broke flow control" });
      return;
    }
    if (stream.body !== null) this.sendBody(stream);
  }

  // ------------------------------------------------------------ life cycle

  /** The peer ended the stream. A request body it did not wait for is not sent (RST_STREAM). */
  private finish(stream: H2Stream): void {
    this.release(stream, stream.body !== null ? H2_CANCEL : undefined);
    stream.body = null;
  }

  /**
   * Takes an open stream off the connection (RST_STREAM with `rstCode` when given): waiting
   * streams take its place, and a retired connection left idle ends.
   */
  private release(stream: H2Stream, rstCode?: number): void {
    this.streams.delete(stream.id);
    if (rstCode !== undefined) this.write(rstStream(stream.id, rstCode));
    this.startWaiting();
    this.updateReference();
    this.endIfIdle();
  }

  private markUnusable(): void {
    if (!this.usable) return;
    this.usable = false;
    this.options.onRetire();
  }

  private endIfIdle(): void {
    if (!this.usable && this.streams.size === 0 && this.waiting.length === 0 && this.closedReason === null) {
      this.write(goaway(0, H2_NO_ERROR));
      this.endSocket();
    }
  }

  /** The socket holds the process open only while streams are open or waiting. */
  private updateReference(): void {
    const active = this.streams.size + this.waiting.length > 0;
    if (active === this.referenced) return;
    this.referenced = active;
    if (active) this.socket.ref();
    else this.socket.unref();
  }

  /** A protocol error by the peer: GOAWAY with the code, then every stream fails. */
  private fail(code: number, message: string): void {
    this.write(goaway(0, code));
    this.endSocket();
    this.closed(`HTTP/2 protocol error: ${message}`);
  }

  /** Ends the socket after what is written (the GOAWAY); a peer that never closes its side is cut. */
  private endSocket(): void {
    if (this.ending) return;
    this.ending = true;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  private closed(message: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = message;
    this.markUnusable();
    const open = [...this.streams.values()];
    const waiting = [...this.waiting];
    this.streams.clear();
    this.waiting.length = 0;
    this.updateReference();
    for (const stream of open) stream.handler.onAbort({ kind: "connection", message });
    for (const stream of waiting) stream.handler.onAbort({ kind: "refused", message });
  }
}

class ConnectionError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function frameHeader(length: number, type: number, flags: number, streamId: number): Buffer {
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  header.writeUIntBE(length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId, 5);
  return header;
}

function windowUpdate(streamId: number, increment: number): Buffer {
  const frame = frameHeader(4, FRAME_WINDOW_UPDATE, 0, streamId);
  return Buffer.concat([frame, uint32(increment)]);
}

function rstStream(streamId: number, code: number): Buffer {
  return Buffer.concat([frameHeader(4, FRAME_RST_STREAM, 0, streamId), uint32(code)]);
}

function goaway(lastStreamId: number, code: number): Buffer {
  return Buffer.concat([frameHeader(8, FRAME_GOAWAY, 0, 0), uint32(Math.max(0, lastStreamId)), uint32(code)]);
}

function uint32(value: number): Buffer {
  const buf = Buffer.allocUnsafe(4);
  buf.writeUInt32BE(value, 0);
  return buf;
}

/** A DATA or HEADERS payload without its padding. */
function unpadded(flags: number, payload: Buffer): Buffer {
  if ((flags & FLAG_PADDED) === 0) return payload;
  const padding = payload.length < 1 ? payload.length : payload.readUInt8(0);
  if (padding >= payload.length)
    throw new ConnectionError(H2_PROTOCOL_ERROR, "padding longer than the frame");
  return payload.subarray(1, payload.length - padding);
}

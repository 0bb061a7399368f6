/**
 * gRPC's length-prefixed message on HTTP/2: one byte (1 when the message is compressed; this
 * code never compresses) and the message's length as a big-endian uint32, then the message.
 */
import type { MessagePrefix } from "./codec/writer.js";

export const GRPC_FRAME_HEAD_BYTES = 5;

/** For the encoders that take a prefix: the message is written after its frame head, uncopied. */
export const grpcFramePrefix: MessagePrefix = {
  bytes: () => GRPC_FRAME_HEAD_BYTES,
  write(buf, size) {
    buf[0] = 0;
    buf.writeUInt32BE(size, 1);
  },
};

/** `message` framed (copied after its frame head). */
export function grpcFrame(message: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(GRPC_FRAME_HEAD_BYTES + message.length);
  grpcFramePrefix.write(frame, message.length);
  message.copy(frame, GRPC_FRAME_HEAD_BYTES);
  return frame;
}

/**
 * A client uploading a body over the limit must be able to read the 413: the gateway reads
 * (and discards) the rest of a moderately oversized body before it answers, so closing the
 * connection afterwards never resets it under the client's feet.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { limits } from "../../src/limits.js";
import { adminPassword, login, startTarget, type RestTarget } from "./harness.js";

let target: RestTarget;
let token: string;

before(async () => {
  target = await startTarget("in-process");
  token = await login(target, "admin", adminPassword);
});
after(async () => {
  await target?.stop();
});

/**
 * Uploads `body` as curl does: the request line, headers and the whole body are written before
 * the answer is read, and a write that fails (the server reset the connection) fails the
 * upload, even if an answer was on its way. Resolves with the status line's code and the body.
 */
function upload(body: Buffer, chunked: boolean): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(target.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.pause();
    const received: Buffer[] = [];
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("end", () => {
      const text = Buffer.concat(received).toString("latin1");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    const head =
      `POST /v1/streams/big/append HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\n` +
      (chunked ? "Transfer-Encoding: chunked\r\n" : `Content-Length: ${body.length}\r\n`) +
      "\r\n";
    socket.write(head);
    const piece = 256 * 1024;
    for (let at = 0; at < body.length; at += piece) {
      const part = body.subarray(at, at + piece);
      socket.write(
        chunked
          ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")])
          : part,
      );
    }
    // Only once everything was written (and none of it refused) is the answer read.
    socket.write(chunked ? "0\r\n\r\n" : "", () => socket.resume());
  });
}

const oversized = Buffer.alloc(2 * limits.appendBodyBytesMax, "a");

test("an upload over the body limit is answered 413 PAYLOAD_TOO_LARGE, and the client reads it every time (Content-Length)", async () => {
  for (let i = 0; i < 50; i++) {
    const answer = await upload(oversized, false).catch((error: Error) => ({
      status: 0,
      text: error.message,
    }));
    assert.equal(answer.status, 413, `upload ${i}: ${answer.text}`);
    assert.equal((JSON.parse(answer.text) as { error: { code: string } }).error.code, "PAYLOAD_TOO_LARGE");
  }
});

test("a chunked upload over the body limit is answered 413 too, every time", async () => {
  for (let i = 0; i < 30; i++) {
    const answer = await upload(oversized, true).catch((error: Error) => ({
      status: 0,
      text: error.message,
    }));
    assert.equal(answer.status, 413, `upload ${i}: ${answer.text}`);
    assert.equal((JSON.parse(answer.text) as { error: { code: string } }).error.code, "PAYLOAD_TOO_LARGE");
  }
});

test("a body past even the discard bound is still refused with 413 and nothing is appended", async () => {
  const huge = Buffer.alloc(limits.restDiscardBodyBytesMax + 1024 * 1024, "a");
  const answer = await upload(huge, false).catch((error: Error) => ({ status: 0, text: error.message }));
  // The connection closes with the body unread: the client may or may not see the answer.
  assert.ok(answer.status === 413 || answer.status === 0, `${answer.status} ${answer.text}`);
  const info = await fetch(`${target.baseUrl}/v1/streams/big/info`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(info.status, 404, "nothing was appended");
});

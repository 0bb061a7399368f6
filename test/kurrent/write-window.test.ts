// The KurrentDB listener's write window (src/kurrent/write-window.ts) on a real grpc-js server and
// client: answers written together reach HTTP/2 in the same turn, in order and before the status;
// a client that does not read holds the server's writes back once the window is full.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { windowedWrites, writeWindowBytes } from "../../src/kurrent/write-window.js";

const same = (b: Buffer): Buffer => b;
const service: grpc.ServiceDefinition = {
  Bidi: {
    path: "/test.Window/Bidi",
    requestStream: true,
    responseStream: true,
    requestSerialize: same,
    requestDeserialize: same,
    responseSerialize: same,
    responseDeserialize: same,
  },
};

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A server whose Bidi handler is `handler`, with or without the window, and a client of it. */
async function serve(
  handler: grpc.handleBidiStreamingCall<Buffer, Buffer>,
  windowed: boolean,
): Promise<{ client: grpc.Client & Record<string, unknown>; close(): void }> {
  const server = new grpc.Server(windowed ? { interceptors: [windowedWrites] } : {});
  server.addService(service, { Bidi: handler });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const Client = grpc.makeGenericClientConstructor(service, "Window");
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as grpc.Client &
    Record<string, unknown>;
  return {
    client,
    close() {
      client.close();
      server.forceShutdown();
    },
  };
}

function open(client: grpc.Client & Record<string, unknown>): grpc.ClientDuplexStream<Buffer, Buffer> {
  return (client.Bidi as () => grpc.ClientDuplexStream<Buffer, Buffer>)();
}

/** Turns the server takes to hand 64 answers, written together, to HTTP/2; and what the client got. */
async function answersTogether(
  windowed: boolean,
): Promise<{ turns: number; received: number[]; status: number }> {
  let turns = 0;
  let counting = true;
  const count = (): void => {
    turns++;
    if (counting) setImmediate(count);
  };
  let handed: Promise<number> = Promise.resolve(0);
  const running = await serve((call) => {
    call.once("data", () => {
      handed = new Promise((resolve) => {
        const start = turns;
        let done = 0;
        for (let i = 0; i < 64; i++) {
          const answer = Buffer.alloc(60);
          answer.writeUInt32BE(i);
          call.write(answer, () => {
            if (++done === 64) resolve(turns - start);
          });
        }
        call.end();
      });
    });
  }, windowed);
  try {
    const call = open(running.client);
    const received: number[] = [];
    call.on("data", (message: Buffer) => received.push(message.readUInt32BE(0)));
    const status = new Promise<number>((resolve) =>
      call.on("status", (s: grpc.StatusObject) => resolve(s.code)),
    );
    setImmediate(count);
    call.write(Buffer.from("go"));
    call.end();
    const code = await status;
    counting = false;
    return { turns: await handed, received, status: code };
  } finally {
    running.close();
  }
}

test("answers written together reach HTTP/2 in one turn, in order, before the status", async () => {
  const windowed = await answersTogether(true);
  const plain = await answersTogether(false);
  const inOrder = Array.from({ length: 64 }, (_, i) => i);
  assert.deepEqual(windowed.received, inOrder);
  assert.equal(windowed.status, grpc.status.OK);
  assert.ok(windowed.turns <= 1, `windowed: ${windowed.turns} turns`);
  // What the window is for: without it grpc-js hands them over one write at a time.
  assert.deepEqual(plain.received, inOrder);
  assert.ok(plain.turns >= 16, `without the window: ${plain.turns} turns`);
});

test("a client that does not read holds the writes back once the window is full; all arrive when it reads", async () => {
  const size = 16 * 1024;
  // Far more than the window and HTTP/2's receive windows hold.
  const total = Math.max(1024, Math.ceil((64 * writeWindowBytes) / size));
  let acknowledged = 0;
  let refused = -1;
  const running = await serve((call) => {
    call.once("data", () => {
      for (let i = 0; i < total; i++) {
        const message = Buffer.alloc(size, i % 251);
        const more = call.write(message, () => acknowledged++);
        if (!more && refused < 0) refused = i;
      }
      call.end();
    });
  }, true);
  try {
    const call = open(running.client);
    call.pause();
    call.write(Buffer.from("go"));
    call.end();
    for (let i = 0; i < 50; i++) await nextTurn();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // HTTP/2's windows (the client's and the connection's) and the window here hold some; not all.
    assert.ok(
      acknowledged < total,
      `acknowledged ${acknowledged} of ${total} while the client reads nothing`,
    );
    assert.ok(refused >= 0 && refused < total, "write() said stop");
    const received: number[] = [];
    const ended = new Promise<void>((resolve) => call.on("status", () => resolve()));
    call.on("data", (message: Buffer) => received.push(message[0]!));
    call.resume();
    await ended;
    assert.equal(received.length, total);
    assert.deepEqual(
      received,
      Array.from({ length: total }, (_, i) => i % 251),
    );
    assert.equal(acknowledged, total);
  } finally {
    running.close();
  }
});

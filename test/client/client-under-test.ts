// What the client scenarios (./unary-scenarios.ts, ./session-scenarios.ts) need to know of the
// client they run on: the product client (src/client/rpc-client.ts, grpc-js) or the benchmark's
// load client (bench/grpc-load/load-client.ts, its own transports). Both must give the same
// answers and EssErrors; where the two transports differ by design, a field below says how.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { EssError } from "../../src/errors.js";
import type { RpcClient } from "../../src/client/rpc-client.js";

export interface ClientUnderTest {
  make(options: { address: string; deadlineMs?: number }): RpcClient;
  /** The compiled module that exports `make` as `exportName`, for a child process. */
  module: string;
  exportName: string;
  /**
   * The `grpc-timeout` a call sends: the whole deadline (the load client, which holds the header
   * once per client), or what is left of it when the call starts (grpc-js).
   */
  sendsWholeDeadline: boolean;
  /**
   * A server that came back is reached at the next call (the load client connects again for
   * it), or once grpc-js's reconnect back-off has passed (limits.rpcClientReconnectBackoffMsMax).
   */
  reconnectsAtOnce: boolean;
  /**
   * A session answer longer than any answer of its kind: INTERNAL from the load client's
   * session transport, PAYLOAD_TOO_LARGE from grpc-js (its receive limit, as for a unary call).
   */
  oversizedSessionAnswerCode: "INTERNAL" | "PAYLOAD_TOO_LARGE";
}

/** The call's EssError (fails the test when the call succeeds or fails otherwise). */
export async function essError(call: Promise<unknown>): Promise<EssError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof EssError, `an EssError, got ${String(error)}`);
    return error;
  }
  assert.fail("the call succeeded");
}

/**
 * Runs `script` (an ES module's text) in a child process that must exit by itself within 15 s;
 * returns what it wrote to stdout.
 */
export async function outputOfChildThatExits(script: string): Promise<string> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearTimeout(killer);
  assert.equal(code, 0, "the child exited by itself");
  return out;
}

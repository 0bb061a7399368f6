// The product client (src/client/rpc-client.ts, on grpc-js) as a client under test.
import { fileURLToPath } from "node:url";
import { createRpcClient } from "../../src/client/rpc-client.js";
import type { ClientUnderTest } from "./client-under-test.js";

export const productClient: ClientUnderTest = {
  make: createRpcClient,
  module: fileURLToPath(new URL("../../src/client/rpc-client.js", import.meta.url)),
  exportName: "createRpcClient",
  sendsWholeDeadline: false,
  reconnectsAtOnce: false,
  oversizedSessionAnswerCode: "PAYLOAD_TOO_LARGE",
};

// The benchmark's load client (bench/grpc-load/load-client.ts) as a client under test.
import { fileURLToPath } from "node:url";
import { createLoadClient } from "../../../bench/grpc-load/load-client.js";
import type { ClientUnderTest } from "../../client/client-under-test.js";

export const loadClient: ClientUnderTest = {
  make: createLoadClient,
  module: fileURLToPath(new URL("../../../bench/grpc-load/load-client.js", import.meta.url)),
  exportName: "createLoadClient",
  sendsWholeDeadline: true,
  reconnectsAtOnce: true,
  oversizedSessionAnswerCode: "INTERNAL",
};

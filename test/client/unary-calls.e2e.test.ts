// The product client's unary calls (src/client/unary-calls.ts, through grpc-js): the scenarios
// every client of this project passes (./unary-scenarios.ts).
import { before, after } from "node:test";
import { startTestService, type TestService } from "../rpc/service-harness.js";
import { productClient } from "./product-client.js";
import { unaryScenarios } from "./unary-scenarios.js";

let ts: TestService;

before(async () => {
  ts = await startTestService();
});

after(async () => {
  await ts.close();
});

unaryScenarios(productClient, () => ts);

// The product client's sessions (src/client/sessions.ts on grpc-js's bidi streams,
// src/client/grpc-session-call.ts): the scenarios every client of this project passes
// (./session-scenarios.ts). The sessions against the real service are tested in
// test/rpc/append-session.e2e.test.ts and read-session.e2e.test.ts.
import { productClient } from "./product-client.js";
import { sessionScenarios } from "./session-scenarios.js";

sessionScenarios(productClient);
